/**
 * `thund add-files` as a user runs it: Parquet files written by DuckDB (one without field ids)
 * named by a glob and a folder, a dry run that commits nothing, the summary line, the rows read
 * back, and a bad file refusing the whole request with its name.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toFileUri } from '../../connectors/storage/local-file-io.js';
import { openEmbeddedCatalog } from '../../src/app/embedded-catalog.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive } from '../../src/iceberg/types.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { inspect, thund } from './cli.js';

let work: string;
let session: DuckDbSession;
const warehouse = () => join(work, 'warehouse');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-add-files-'));
  session = await DuckDbSession.open({ threads: 1 });
  const { catalog } = openEmbeddedCatalog({ warehouse: warehouse() });
  try {
    await catalog.createNamespace(['lake']);
    const { fields } = assignFreshIds([
      { name: 'id', required: true, type: primitive('long') },
      { name: 'name', required: false, type: primitive('string') },
    ]);
    await catalog.createTable({ namespace: ['lake'], name: 'events' }, { schema: { schemaId: 0, identifierFieldIds: [], fields } });
  } finally {
    await catalog.close();
  }
  mkdirSync(join(work, 'incoming', 'more'), { recursive: true });
  const copy = (query: string, path: string, ids: boolean) =>
    session.run(`COPY (${query}) TO '${join(work, path)}' (FORMAT parquet${ids ? ', FIELD_IDS {id: 1, name: 2}' : ''})`);
  await copy(`SELECT range::BIGINT AS id, 'a' || range AS name FROM range(0, 100)`, 'incoming/a.parquet', true);
  await copy(`SELECT range::BIGINT AS id, 'b' || range AS name FROM range(100, 130)`, 'incoming/b.parquet', false);
  await copy(`SELECT range::BIGINT AS id, 'c' || range AS name FROM range(200, 205)`, 'incoming/more/c.parquet', false);
  await copy(`SELECT 'x' AS id`, 'bad.parquet', false);
});

afterAll(async () => {
  session?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

async function tableIds(): Promise<unknown[]> {
  const { catalog } = openEmbeddedCatalog({ warehouse: warehouse(), existingOnly: true });
  try {
    const table = await catalog.loadTable({ namespace: ['lake'], name: 'events' });
    const rows = await openTableRows({ session, io: table.io, metadata: table.metadata });
    try {
      return (await session.queryJson(`SELECT id::INTEGER AS id, name FROM (${rows.sql}) ORDER BY id`)).map((r) => `${r['id']}:${r['name']}`);
    } finally {
      await rows.release();
    }
  } finally {
    await catalog.close();
  }
}

it('adds files named by a glob and a folder, after a dry run that commits nothing', async () => {
  const glob = join(work, 'incoming', '*.parquet');
  const dry = thund(['add-files', 'lake.events', glob, '--warehouse', warehouse(), '--dry-run']);
  expect(dry.stderr).toBe('');
  expect(dry.stdout).toMatch(/^add-files \(dry run\): would add 2 files, 130 rows, \d+ bytes to lake\.events\n/);
  expect(inspect('lake.events', warehouse()).currentSnapshotId).toBeNull();

  const added = thund(['add-files', 'lake.events', glob, join(work, 'incoming', 'more'), '--warehouse', warehouse()]);
  expect(added.stderr).toBe('');
  const report = inspect('lake.events', warehouse());
  expect(added.stdout).toBe(`add-files: 3 files, 135 rows, ${report.dataFiles.reduce((s, f) => s + Number(f.fileSizeInBytes), 0)} bytes → snapshot ${report.currentSnapshotId}\n`);
  expect(report.dataFiles.map((f) => f.path).sort()).toEqual(
    ['incoming/a.parquet', 'incoming/b.parquet', 'incoming/more/c.parquet'].map((p) => toFileUri(join(work, p))),
  );
  const expected = [
    ...Array.from({ length: 100 }, (_, i) => `${i}:a${i}`),
    ...Array.from({ length: 30 }, (_, i) => `${100 + i}:b${100 + i}`),
    ...Array.from({ length: 5 }, (_, i) => `${200 + i}:c${200 + i}`),
  ];
  expect(await tableIds()).toEqual(expected);
});

it('refuses a bad file and a file already added, naming them, and commits nothing', () => {
  const before = inspect('lake.events', warehouse()).currentSnapshotId;
  const bad = join(work, 'bad.parquet');
  const again = join(work, 'incoming', 'a.parquet');
  const result = thund(['add-files', 'lake.events', bad, again, '--warehouse', warehouse()]);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('2 files refused, nothing added');
  expect(result.stderr).toContain(`Cannot add ${toFileUri(bad)}: column id is BYTE_ARRAY (string) in the file, which cannot be read as long`);
  expect(result.stderr).toContain(`Cannot add ${toFileUri(again)}: it is already a data file of lake.events`);
  expect(inspect('lake.events', warehouse()).currentSnapshotId).toBe(before);
});
