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
import type { DataFile } from '../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { dataLocation } from '../../src/table/locations.js';
import type { RowOperationTarget } from '../../src/table/row-operation.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { upsert } from '../../src/table/upsert.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';
import { readWithPyiceberg } from './pyiceberg.js';
import type { ReaderTable, SqliteCatalogReadArgs } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, type ColumnType, type Row } from './verify.js';

const COLUMNS: readonly ColumnType[] = [
  { name: 'id', type: 'long' },
  { name: 'label', type: 'string' },
  { name: 'region', type: 'string' },
];

/** Rows id in [from, from + count): label 'v<version>-<id>', region by id % 3. */
const rowsSql = (from: number, count: number, version: number): string =>
  `SELECT range::BIGINT AS id, 'v${version}-' || range AS label, ['a', 'b', 'c'][range % 3 + 1] AS region FROM range(${from}, ${from + count})`;
const DELETE_PREDICATE = "id % 10 = 3 OR id BETWEEN 60 AND 89 OR (region = 'b' AND id < 20)";
const UPSERTS = [rowsSql(20, 50, 1), rowsSql(40, 80, 2), rowsSql(30, 60, 3)];

interface Case {
  readonly name: string;
  /** Partition transform and source column, or none. */
  readonly partitionBy?: { readonly transform: string; readonly column: 'id' | 'region' };
  readonly properties: Record<string, string>;
}

const COPY_ON_WRITE = { 'write.delete.mode': 'copy-on-write', 'write.update.mode': 'copy-on-write' };
const CASES: readonly Case[] = [
  { name: 'mor', properties: {} },
  { name: 'mor_by_region', partitionBy: { transform: 'identity', column: 'region' }, properties: {} },
  { name: 'mor_by_bucket', partitionBy: { transform: 'bucket[16]', column: 'id' }, properties: {} },
  { name: 'cow_by_bucket', partitionBy: { transform: 'bucket[16]', column: 'id' }, properties: COPY_ON_WRITE },
  { name: 'cow', properties: COPY_ON_WRITE },
];

describe('row-level deletes and upserts read by pyiceberg and Spark', () => {
  let warehouse: string;
  let session: DuckDbSession;
  let catalog: SqlCatalog;
  const io = new LocalFileIO();
  const afterDelete = new Map<string, { snapshotId: bigint; rows: Row[] }>();
  const final = new Map<string, Row[]>();

  const identifier = (c: Case): TableIdentifier => ({ namespace: ['lake'], name: c.name });

  /** Data files under the table's default spec (the partitioned writer fans rows out by partition). */
  async function writeRows(query: string, metadata: TableMetadata): Promise<DataFile[]> {
    return writePartitionedDataFiles({
      session,
      query,
      schema: currentSchema(metadata),
      spec: defaultSpec(metadata),
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'interop',
    });
  }

  async function expected(sql: string): Promise<Row[]> {
    return session.queryJson(`SELECT id::VARCHAR AS id, label, region FROM (${sql})`);
  }

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-row-level-'));
    session = await DuckDbSession.open({ threads: 1 });
    catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
    await catalog.createNamespace(['lake']);
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'label', required: false, type: primitive('string') },
      { name: 'region', required: false, type: primitive('string') },
    ]);
    for (const c of CASES) {
      const by = c.partitionBy;
      const source = fields.find((f) => f.name === by?.column);
      const partitionSpec =
        by === undefined || source === undefined
          ? undefined
          : { specId: 0, fields: [{ sourceId: source.id, fieldId: 1000, name: `${by.column}_part`, transform: by.transform }] };
      await catalog.createTable(identifier(c), {
        schema: { schemaId: 0, identifierFieldIds: [], fields },
        properties: c.properties,
        ...(partitionSpec === undefined ? {} : { partitionSpec }),
      });
      for (const from of [0, 30, 60]) {
        const { metadata } = await catalog.loadTable(identifier(c));
        const files = await writeRows(rowsSql(from, 30, 0), metadata);
        await commitSnapshot({ catalog, identifier: identifier(c), base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
      }
      const target: RowOperationTarget = { catalog, identifier: identifier(c), io, session };
      const deleted = await deleteWhere(target, DELETE_PREDICATE);
      expect(deleted.snapshot).toBeDefined();
      afterDelete.set(c.name, {
        snapshotId: deleted.snapshot!.snapshotId,
        rows: await expected(`SELECT * FROM (${rowsSql(0, 90, 0)}) WHERE NOT (${DELETE_PREDICATE})`),
      });
      for (const source of UPSERTS) {
        await upsert(target, { keyColumns: ['id'], sourceQuery: source });
      }
    }
    // Independently: the surviving seed rows, replaced key by key by the latest upsert holding it.
    const stages = [`SELECT *, 0 AS stage FROM (${rowsSql(0, 90, 0)}) WHERE NOT (${DELETE_PREDICATE})`, ...UPSERTS.map((s, i) => `SELECT *, ${i + 1} AS stage FROM (${s})`)];
    const latest = await expected(`SELECT id, label, region FROM (${stages.join(' UNION ALL ')}) QUALIFY row_number() OVER (PARTITION BY id ORDER BY stage DESC) = 1`);
    for (const c of CASES) final.set(c.name, latest);
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
      const deleted = afterDelete.get(c.name)!;
      check(await readWithPyiceberg(readArgs(c, deleted.snapshotId)), deleted.rows, 'pyiceberg', c);
      const table = await readWithPyiceberg(readArgs(c));
      check(table, final.get(c.name)!, 'pyiceberg', c);
      const copyOnWrite = c.properties['write.update.mode'] === 'copy-on-write';
      if (!copyOnWrite) expect(table.dataFiles.some((file) => file.deleteFileCount > 0)).toBe(true);
      else expect(table.dataFiles.every((file) => file.deleteFileCount === 0)).toBe(true);
      if (c.partitionBy !== undefined) expect(new Set(table.dataFiles.map((file) => file.filePath.split('/').at(-2))).size).toBeGreaterThan(1);
    }, 300_000);

    it(`Spark reads lake.${c.name} exactly after three upserts`, async () => {
      check(await readWithSpark(readArgs(c)), final.get(c.name)!, 'spark', c);
    }, 600_000);
  }

  it("Thund's own scan agrees with the expected rows of every table", async () => {
    for (const c of CASES) {
      const { metadata } = await catalog.loadTable(identifier(c));
      const rows = await openTableRows({ session, io, metadata });
      try {
        const actual = await session.queryJson(`SELECT id::VARCHAR AS id, label, region FROM (${rows.sql})`);
        verifyTableRows({ expected: final.get(c.name)!, actual, columns: COLUMNS, reader: 'thund', table: `lake.${c.name}` });
      } finally {
        await rows.release();
      }
    }
  });

  it('Spark reads the merge-on-read table exactly at the snapshot of the deletes', async () => {
    const c = CASES[0]!;
    const deleted = afterDelete.get(c.name)!;
    check(await readWithSpark(readArgs(c, deleted.snapshotId)), deleted.rows, 'spark', c);
  }, 600_000);
});
