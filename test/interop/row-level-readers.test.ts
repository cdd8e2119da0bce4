/**
 * Row-level operations read by independent implementations: tables in the embedded SQLite
 * catalog get deleteWhere and three upserts over the same keys (merge-on-read and copy-on-write,
 * unpartitioned, by identity(region) and by bucket[16](id)), and pyiceberg and Spark must
 * read exactly the rows DuckDB computes from the generated data — after the deletes (time travel
 * to that snapshot) and at the end, with no key twice — and so must Thund's own scan.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { readWithPyiceberg } from './pyiceberg.js';
import type { ReaderTable, SqliteCatalogReadArgs } from './read-table-output.js';
import { buildRowLevelTables, isCopyOnWrite, ROW_LEVEL_CASES as CASES, ROW_LEVEL_COLUMNS as COLUMNS, type RowLevelCase as Case, type RowLevelTables } from './row-level-workload.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, type Row } from './verify.js';

describe('row-level deletes and upserts read by pyiceberg and Spark', () => {
  let warehouse: string;
  let session: DuckDbSession;
  let catalog: SqlCatalog;
  const io = new LocalFileIO();
  let tables: RowLevelTables;

  const identifier = (c: Case): TableIdentifier => ({ namespace: ['lake'], name: c.name });

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-row-level-'));
    session = await DuckDbSession.open({ threads: 1 });
    catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
    await catalog.createNamespace(['lake']);
    tables = await buildRowLevelTables({ catalog, io, session, namespace: ['lake'] });
  }, 300_000);

  afterAll(async () => {
    session?.close();
    await catalog?.close();
    if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
  });

  const readArgs = (c: Case, snapshotId?: bigint): SqliteCatalogReadArgs => ({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: `lake.${c.name}`,
    ...(snapshotId === undefined ? {} : { snapshotId }),
  });

  function check(table: ReaderTable, expectedRows: readonly Row[], reader: string, c: Case): void {
    verifyTableRows({ expected: expectedRows, actual: table.rows, columns: COLUMNS, reader, table: `lake.${c.name}` });
    const ids = table.rows.map((row) => String(row['id']));
    expect(new Set(ids).size, `${reader} sees a key twice in lake.${c.name}`).toBe(ids.length);
  }

  for (const c of CASES) {
    it(`pyiceberg reads lake.${c.name} exactly, after the deletes and after three upserts`, async () => {
      const deleted = tables.afterDelete.get(c.name)!;
      check(await readWithPyiceberg(readArgs(c, deleted.snapshotId)), deleted.rows, 'pyiceberg', c);
      const table = await readWithPyiceberg(readArgs(c));
      check(table, tables.final, 'pyiceberg', c);
      if (!isCopyOnWrite(c)) expect(table.dataFiles.some((file) => file.deleteFileCount > 0)).toBe(true);
      else expect(table.dataFiles.every((file) => file.deleteFileCount === 0)).toBe(true);
      if (c.partitionBy !== undefined) expect(new Set(table.dataFiles.map((file) => file.filePath.split('/').at(-2))).size).toBeGreaterThan(1);
    }, 300_000);

    it(`Spark reads lake.${c.name} exactly after three upserts`, async () => {
      check(await readWithSpark(readArgs(c)), tables.final, 'spark', c);
    }, 600_000);
  }

  it("Thund's own scan agrees with the expected rows of every table", async () => {
    for (const c of CASES) {
      const { metadata } = await catalog.loadTable(identifier(c));
      const rows = await openTableRows({ session, io, metadata });
      try {
        const actual = await session.queryJson(`SELECT id::VARCHAR AS id, label, region FROM (${rows.sql})`);
        verifyTableRows({ expected: tables.final, actual, columns: COLUMNS, reader: 'thund', table: `lake.${c.name}` });
      } finally {
        await rows.release();
      }
    }
  });

  it('Spark reads the merge-on-read table exactly at the snapshot of the deletes', async () => {
    const c = CASES[0]!;
    const deleted = tables.afterDelete.get(c.name)!;
    check(await readWithSpark(readArgs(c, deleted.snapshotId)), deleted.rows, 'spark', c);
  }, 600_000);
});
