/**
 * The commit loop against the real SQLite catalog, with faults injected around it: a concurrent
 * writer (409 → refresh, rebuild the manifest list, retry), and an unknown outcome (never delete,
 * look for our snapshot id).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../../catalog/catalog.js';
import { CommitConflictError, CommitStateUnknownError, InvalidInputError } from '../../../src/errors.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { liveDataFiles, manifestsOf, snapshotOf } from '../../../src/table/scan.js';
import { CommitTestTable, ID } from './commit-test-table.js';

let t: CommitTestTable;
let io: CommitTestTable['io'];
let catalog: CommitTestTable['catalog'];

beforeEach(async () => {
  t = await CommitTestTable.open();
  ({ io, catalog } = t);
});

afterEach(async () => {
  await t.close();
});

const writeRows = (from: number, count: number): Promise<DataFile[]> => t.writeRows(from, count);
const append = (files: DataFile[], via: Catalog = catalog, base?: Awaited<ReturnType<Catalog['loadTable']>>) => t.append(files, via, base);

describe('commitSnapshot', () => {
  it('retries an append whose base went stale and keeps both writers’ rows', async () => {
    const staleBase = await catalog.loadTable(ID);
    await append(await writeRows(0, 10));
    const late = await append(await writeRows(10, 5), catalog, staleBase);
    expect(late.attempts).toBe(2);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(2);
    expect(late.snapshot.sequenceNumber).toBe(2n);
    expect(late.snapshot.summary['total-records']).toBe('15');
    const files = await liveDataFiles(io, metadata);
    expect(files.reduce((n, f) => n + f.recordCount, 0n)).toBe(15n);
    const manifests = await manifestsOf(io, snapshotOf(metadata) ?? late.snapshot);
    expect(manifests.map((m) => m.sequenceNumber).sort()).toEqual([1n, 2n]);
  });

  it('replaces every live file on overwrite and counts what it removed', async () => {
    await append(await writeRows(0, 10));
    await append(await writeRows(10, 10));
    const table = await catalog.loadTable(ID);
    const result = await commitSnapshot({
      catalog,
      identifier: ID,
      base: { metadata: table.metadata, io, create: false },
      mode: 'overwrite',
      addedFiles: await writeRows(100, 3),
    });
    expect(result.snapshot.summary).toMatchObject({
      operation: 'overwrite',
      'added-records': '3',
      'deleted-records': '20',
      'deleted-data-files': '2',
      'total-records': '3',
      'total-data-files': '1',
    });
    const { metadata } = await catalog.loadTable(ID);
    const files = await liveDataFiles(io, metadata);
    expect(files.map((f) => f.recordCount)).toEqual([3n]);
    // the previous snapshot still reads as it was (time travel)
    const previous = metadata.snapshots[1]?.snapshotId;
    expect((await liveDataFiles(io, metadata, previous)).reduce((n, f) => n + f.recordCount, 0n)).toBe(20n);
  });

  it('treats an unknown outcome that did land as success', async () => {
    const landsThenFails: Catalog = Object.create(catalog, {
      commitTable: {
        value: async (...args: Parameters<Catalog['commitTable']>) => {
          await catalog.commitTable(...args);
          throw new CommitStateUnknownError('connection reset after the request was sent');
        },
      },
    });
    const result = await append(await writeRows(0, 4), landsThenFails);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.currentSnapshotId).toBe(result.snapshot.snapshotId);
    expect(metadata.snapshots).toHaveLength(1);
  });

  it('retries with the same snapshot id when a lost request did not land', async () => {
    let calls = 0;
    const losesFirst: Catalog = Object.create(catalog, {
      commitTable: {
        value: async (...args: Parameters<Catalog['commitTable']>) => {
          calls += 1;
          if (calls === 1) throw new CommitStateUnknownError('503 from a gateway; the server never saw the request');
          return catalog.commitTable(...args);
        },
      },
    });
    const files = await writeRows(0, 4);
    const result = await append(files, losesFirst);
    expect(result.attempts).toBe(2);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.snapshots.map((s) => s.snapshotId)).toEqual([result.snapshot.snapshotId]);
    expect((await liveDataFiles(io, metadata)).map((f) => f.filePath)).toEqual(files.map((f) => f.filePath));
  });

  it('treats a refusal of a commit that did land (a gateway answering 409) as success and deletes nothing it references', async () => {
    const landsThenRefuses: Catalog = Object.create(catalog, {
      commitTable: {
        value: async (...args: Parameters<Catalog['commitTable']>) => {
          await catalog.commitTable(...args);
          throw new CommitConflictError('gateway answered 409');
        },
      },
    });
    const result = await append(await writeRows(0, 4), landsThenRefuses);
    expect(result.attempts).toBe(1);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(1);
    const live = await liveDataFiles(io, metadata);
    expect(live.reduce((n, f) => n + f.recordCount, 0n)).toBe(4n);
    const current = snapshotOf(metadata);
    if (current === undefined) throw new Error('no current snapshot');
    for (const manifest of await manifestsOf(io, current)) expect(await io.exists(manifest.manifestPath)).toBe(true);
  });

  it('removes the manifests and manifest lists it wrote when the commit is refused', async () => {
    const before = t.metadataFiles();
    const refuses: Catalog = Object.create(catalog, {
      commitTable: { value: async () => Promise.reject(new InvalidInputError('the server refused the request')) },
    });
    await expect(append(await writeRows(0, 4), refuses)).rejects.toBeInstanceOf(InvalidInputError);
    expect(t.metadataFiles()).toEqual(before);
  });

  it('keeps every file when the outcome stays unknown', async () => {
    const neverLands: Catalog = Object.create(catalog, {
      commitTable: { value: async () => Promise.reject(new CommitStateUnknownError('gateway timeout')) },
    });
    const files = await writeRows(0, 4);
    await expect(append(files, neverLands)).rejects.toBeInstanceOf(CommitStateUnknownError);
    for (const file of files) expect(await io.exists(file.filePath)).toBe(true);
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(0);
  });
});
