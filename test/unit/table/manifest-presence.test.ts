/**
 * A commit refuses a base whose current snapshot lists a manifest storage no longer holds, naming
 * it, before writing anything; and a writer committing again and again looks only at the
 * manifests it has not seen present yet (one per earlier commit), not at every manifest each time
 * (manifests are immutable: one deleted after it was seen present goes unnoticed by that process).
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { currentSnapshot } from '../../../src/iceberg/snapshot-ancestry.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { manifestsOf } from '../../../src/table/scan.js';
import { CommitTestTable, ID } from './commit-test-table.js';

let table: CommitTestTable;
beforeEach(async () => {
  table = await CommitTestTable.open();
});
afterEach(() => table.close());

/** The table's FileIO, counting existence checks. */
function countingIo(io: FileIO): { io: FileIO; checks: string[] } {
  const checks: string[] = [];
  return { checks, io: Object.assign(Object.create(io) as FileIO, { exists: (location: string) => (checks.push(location), io.exists(location)) }) };
}

async function appendVia(io: FileIO, from: number): Promise<void> {
  const { metadata } = await table.load();
  await commitSnapshot({ catalog: table.catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: await table.writeRows(from, 5) });
}

it('checks each manifest once, then only the ones added since', async () => {
  const { io, checks } = countingIo(table.io);
  await appendVia(io, 0);
  expect(checks).toEqual([]);
  for (let run = 1; run <= 4; run += 1) {
    const { metadata } = await table.load();
    const [newest] = await manifestsOf(table.io, currentSnapshot(metadata)!);
    checks.length = 0;
    await appendVia(io, run * 10);
    expect(checks).toEqual([newest!.manifestPath]);
  }
});

it('refuses a base listing a missing manifest, naming it, and writes nothing', async () => {
  await table.append(await table.writeRows(0, 5));
  await table.append(await table.writeRows(10, 5));
  const { metadata } = await table.load();
  // The newest manifest: this process never looked at it (the older one it saw present, and does not look again).
  const [newest] = await manifestsOf(table.io, currentSnapshot(metadata)!);
  const gone = newest!.manifestPath;
  rmSync(fileURLToPath(gone));
  const before = table.metadataFiles();
  const files = await table.writeRows(20, 5);
  const refused = await commitSnapshot({ catalog: table.catalog, identifier: ID, base: { metadata, io: table.io, create: false }, mode: 'append', addedFiles: files }).catch(
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(IcebergFormatError);
  expect(String(refused)).toContain(gone);
  expect(String(refused)).toContain('db.t');
  expect(table.metadataFiles()).toEqual(before);
  expect((await table.load()).metadata.snapshots).toHaveLength(2);
});
