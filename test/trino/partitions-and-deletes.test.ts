/**
 * Trino reads what Thund's writers leave in the embedded SQLite catalog beyond a plain append:
 * partitioned tables (day(ts) + bucket[16](id), truncate[4](name), identity(region)), tables after
 * deleteWhere and three upserts over the same keys (merge-on-read and copy-on-write), and a table
 * whose spec `thund run` evolved. Expected rows come from DuckDB over the source data, never from
 * our files; Trino must return exactly them, no key twice, and read less for a filter on the
 * partitioning.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import type { PartitionField } from '../../src/iceberg/table-metadata.js';
import { primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { REPO, thund } from '../e2e/cli.js';
import { ordersSpec } from '../e2e/orders-spec.js';
import { buildRowLevelTables, isCopyOnWrite, writeUnderDefaultSpec, ROW_LEVEL_CASES, ROW_LEVEL_COLUMNS, type RowLevelTables } from '../interop/row-level-workload.js';
import { verifyTableRows, type ColumnType, type Row } from '../interop/verify.js';
import { startTrino, type RunningTrino } from '../stack/trino.js';
import { summaryLine } from '../stack/service.js';
import { queryTrinoRows, trinoPhysicalInputRows } from './trino-rows.js';

const io = new LocalFileIO();

// --- partitioned tables (the shapes of test/interop/partitioned-readers.test.ts) ---

const { fields: PART_FIELDS } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'ts', required: false, type: primitive('timestamptz') },
  { name: 'name', required: false, type: primitive('string') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'x', required: false, type: primitive('int') },
]);
const PART_COLUMNS: readonly ColumnType[] = PART_FIELDS.map((f) => ({ name: f.name, type: f.type.kind }));
const sourceId = (name: string): number => PART_FIELDS.find((f) => f.name === name)!.id;
const SOURCE_ROWS = 20_000;

/** 4 days of seconds from 2024-02-28 (over a leap day), names with 5 prefixes, 4 regions, nulls in each. */
const SOURCE = `
  SELECT CASE WHEN range % 11 = 0 THEN NULL ELSE range END::BIGINT AS id,
         CASE WHEN range % 17 = 0 THEN NULL ELSE TIMESTAMPTZ '2024-02-28 00:00:00+00' + to_seconds((range * 7919) % 345600) END AS ts,
         CASE WHEN range % 19 = 0 THEN NULL ELSE ['alpha', 'bravo', 'charlie', 'delta', 'echo'][range % 5 + 1] || '-' || (range % 37) END AS name,
         CASE WHEN range % 13 = 0 THEN NULL ELSE ['eu', 'us', 'ap', 'sa'][range % 4 + 1] END AS region,
         (range % 100)::INTEGER AS x
  FROM range(${SOURCE_ROWS})`;

interface PartitionedCase {
  readonly table: string;
  readonly partitionBy: readonly Omit<PartitionField, 'fieldId'>[];
  /**
   * The same predicates in DuckDB's and Trino's dialects; each prunes by the partitioning.
   * `partitions`, where DuckDB can compute the transform, selects the source rows of the
   * partitions that can match: Trino must read no more than those.
   */
  readonly filters: readonly { readonly duckdb: string; readonly trino: string; readonly partitions?: string }[];
  /** A partition field Trino's `$partitions` shows and the DuckDB expression computing it as text. */
  readonly partitionValue: { readonly field: string; readonly duckdb: string };
}

const PARTITIONED: readonly PartitionedCase[] = [
  {
    table: 'by_day_bucket',
    partitionBy: [
      { name: 'ts_day', transform: 'day', sourceId: sourceId('ts') },
      { name: 'id_bucket', transform: 'bucket[16]', sourceId: sourceId('id') },
    ],
    partitionValue: { field: 'ts_day', duckdb: `strftime(CAST(ts AT TIME ZONE 'UTC' AS DATE), '%Y-%m-%d')` },
    filters: [
      { duckdb: 'id = 4242', trino: 'id = 4242' },
      {
        duckdb: `ts >= TIMESTAMPTZ '2024-02-29 00:00:00+00' AND ts < TIMESTAMPTZ '2024-03-01 00:00:00+00'`,
        trino: `ts >= TIMESTAMP '2024-02-29 00:00:00 UTC' AND ts < TIMESTAMP '2024-03-01 00:00:00 UTC'`,
        partitions: `CAST(ts AT TIME ZONE 'UTC' AS DATE) = DATE '2024-02-29'`,
      },
    ],
  },
  {
    table: 'by_name_trunc',
    partitionBy: [{ name: 'name_trunc', transform: 'truncate[4]', sourceId: sourceId('name') }],
    filters: [{ duckdb: `name = 'delta-5'`, trino: `name = 'delta-5'`, partitions: `left(name, 4) = 'delt'` }],
    partitionValue: { field: 'name_trunc', duckdb: 'left(name, 4)' },
  },
  {
    table: 'by_region',
    partitionBy: [{ name: 'region', transform: 'identity', sourceId: sourceId('region') }],
    filters: [{ duckdb: `region = 'eu'`, trino: `region = 'eu'`, partitions: `region = 'eu'` }],
    partitionValue: { field: 'region', duckdb: 'region' },
  },
];

// --- row-level operations: test/interop/row-level-workload.ts ---

// --- spec evolved by `thund run` (the pipeline of test/e2e/partitioned-run.test.ts) ---

const EVOLVED_COLUMNS: readonly ColumnType[] = [
  { name: 'order_id', type: 'long' },
  { name: 'currency', type: 'string' },
  { name: 'ship_date', type: 'date' },
];
const EVOLVED_SELECT = 'SELECT CAST(id AS BIGINT) AS order_id, upper(currency) AS currency, CAST(ship_date AS DATE) AS ship_date FROM orders';

const writePipeline = (dir: string, name: string, partitionedBy: string, where: string): string =>
  ordersSpec(dir, name, 'lake.parts', `{mode: append, partitioned_by: ${partitionedBy}}`, `${EVOLVED_SELECT} WHERE ${where}`);

const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('trino 483 reads partitioned, row-level-changed and spec-evolved tables from the embedded SQLite catalog', () => {
  let work: string;
  let session: DuckDbSession;
  let trino: RunningTrino;
  let rowLevel: RowLevelTables;

  /** Rows of the partition source matching a DuckDB predicate (ts as µs, as verify.ts reads it). */
  const sourceRows = (where?: string): Promise<Row[]> =>
    session.queryJson(`SELECT id, epoch_us(ts) AS ts, name, region, x FROM src ${where === undefined ? '' : `WHERE ${where}`}`);

  async function writePartitionedTables(catalog: SqlCatalog): Promise<void> {
    await session.run(`CREATE TABLE src AS ${SOURCE}`);
    for (const c of PARTITIONED) {
      const identifier: TableIdentifier = { namespace: ['lake'], name: c.table };
      const { metadata } = await catalog.createTable(identifier, {
        schema: { schemaId: 0, identifierFieldIds: [], fields: PART_FIELDS },
        partitionSpec: { specId: 0, fields: c.partitionBy.map((f, i) => ({ ...f, fieldId: 1000 + i })) },
      });
      const files = await writeUnderDefaultSpec({ session, io }, 'SELECT id, ts, name, region, x FROM src', metadata, c.table);
      await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    }
  }

  function runEvolvingPipeline(warehouse: string): void {
    mkdirSync(join(work, 'data'));
    copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders.parquet'));
    const first = thund(['run', writePipeline(work, 'first', '[currency]', 'id <= 500'), '--warehouse', warehouse]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const second = thund(['run', writePipeline(work, 'second', '["bucket(4, order_id)", month(ship_date)]', 'id > 500'), '--warehouse', warehouse]);
    expect(second.stderr).toBe('');
    expect(second.status).toBe(0);
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'thund-trino-partitions-'));
    session = await DuckDbSession.open({ threads: 1 });
    const library = join(work, 'library');
    const cli = join(work, 'cli');
    mkdirSync(library);
    const catalog = new SqlCatalog({ databasePath: join(library, 'catalog.db'), warehouse: toFileUri(library), io });
    try {
      await catalog.createNamespace(['lake']);
      await writePartitionedTables(catalog);
      rowLevel = await buildRowLevelTables({ catalog, io, session, namespace: ['lake'] });
    } finally {
      await catalog.close();
    }
    runEvolvingPipeline(cli);

    const startedAt = Date.now();
    trino = await startTrino({
      catalogs: {
        lib: { type: 'sqlite', catalogDb: join(library, 'catalog.db'), warehouse: pathToFileURL(library).href, catalogName: 'default' },
        cli: { type: 'sqlite', catalogDb: join(cli, 'catalog.db'), warehouse: pathToFileURL(cli).href, catalogName: 'default' },
      },
    });
    console.log(`${summaryLine(trino, trino.uri)} (ready in ${seconds(startedAt)})`);
  });

  afterAll(async () => {
    await trino?.stop();
    session?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  const select = async (sql: string) => queryTrinoRows(trino.uri, sql);

  describe.each(PARTITIONED.map((c) => [c.table, c] as const))('partitioned lib.lake.%s', (table, c) => {
    it('reads exactly the source rows', async () => {
      const { rows } = await select(`SELECT * FROM lib.lake.${table}`);
      const summary = verifyTableRows({ expected: await sourceRows(), actual: rows, columns: PART_COLUMNS, reader: 'trino', table });
      expect(summary.rows).toBe(SOURCE_ROWS);
    });

    it.each(c.filters.map((f) => [f.trino, f] as const))('reads exactly the rows matching %s, from fewer rows than the table has', async (_, filter) => {
      const expected = await sourceRows(filter.duckdb);
      expect(expected.length).toBeGreaterThan(0);
      const { queryId, rows } = await select(`SELECT * FROM lib.lake.${table} WHERE ${filter.trino}`);
      verifyTableRows({ expected, actual: rows, columns: PART_COLUMNS, reader: 'trino (filtered)', table });
      const read = await trinoPhysicalInputRows(trino.uri, queryId);
      console.log(`trino read ${read} of ${SOURCE_ROWS} rows of ${table} for ${filter.trino} (${expected.length} match)`);
      expect(read).toBeGreaterThanOrEqual(expected.length);
      expect(read).toBeLessThan(SOURCE_ROWS / 2);
      if (filter.partitions !== undefined) expect(read).toBeLessThanOrEqual((await sourceRows(filter.partitions)).length);
    });

    it('lists the partitions in $partitions with the record counts of the source', async () => {
      const { rows } = await select(`SELECT partition, record_count, file_count FROM lib.lake."${table}$partitions"`);
      expect(rows.reduce((n, row) => n + Number(row['record_count']), 0)).toBe(SOURCE_ROWS);
      expect(rows.every((row) => Number(row['file_count']) >= 1)).toBe(true);
      const value = c.partitionValue;
      const expected = await session.queryJson(`SELECT ${value.duckdb} AS value, count(*)::VARCHAR AS record_count FROM src GROUP BY 1`);
      // Summed per value of this field: with two fields, several partitions share one value.
      const counts = new Map<unknown, number>();
      for (const row of rows) {
        const key = (row['partition'] as Record<string, unknown>)[value.field];
        counts.set(key, (counts.get(key) ?? 0) + Number(row['record_count']));
      }
      if (c.partitionBy.length > 1) expect(rows.length).toBeGreaterThan(counts.size);
      const actual = [...counts].map(([key, count]) => ({ value: key, record_count: count }));
      verifyTableRows({
        expected,
        actual,
        columns: [
          { name: 'value', type: 'string' },
          { name: 'record_count', type: 'long' },
        ],
        reader: 'trino $partitions',
        table,
      });
    });
  });

  describe.each(ROW_LEVEL_CASES.map((c) => [c.name, c] as const))('row-level lib.lake.%s', (table, c) => {
    const check = (rows: readonly Row[], expected: readonly Row[], reader: string): void => {
      verifyTableRows({ expected, actual: rows, columns: ROW_LEVEL_COLUMNS, reader, table });
      const ids = rows.map((row) => String(row['id']));
      expect(new Set(ids).size, `${reader} sees a key twice in ${table}`).toBe(ids.length);
    };

    it('reads exactly the rows left by deleteWhere, at its snapshot', async () => {
      const deleted = rowLevel.afterDelete.get(table)!;
      const { rows } = await select(`SELECT * FROM lib.lake.${table} FOR VERSION AS OF ${deleted.snapshotId}`);
      check(rows, deleted.rows, 'trino (after deletes)');
    });

    it('reads exactly the rows after three upserts over the same keys', async () => {
      const { rows } = await select(`SELECT * FROM lib.lake.${table}`);
      check(rows, rowLevel.final, 'trino');
      const { rows: deletes } = await select(`SELECT count(*) AS n FROM lib.lake."${table}$files" WHERE content <> 0`);
      if (isCopyOnWrite(c)) expect(Number(deletes[0]!['n'])).toBe(0);
      else expect(Number(deletes[0]!['n'])).toBeGreaterThan(0);
    });
  });

  describe('cli.lake.parts, partitioned by currency, then by bucket(4, order_id) and month(ship_date)', () => {
    const expectedOrders = (where?: string): Promise<Row[]> =>
      session.queryJson(
        `SELECT order_id, currency, strftime(ship_date, '%Y-%m-%d') AS ship_date FROM (${EVOLVED_SELECT.replace(
          'FROM orders',
          `FROM read_parquet('${join(REPO, 'examples/quickstart/data/orders.parquet')}')`,
        )}) ${where === undefined ? '' : `WHERE ${where}`}`,
      );

    it('has files under both specs', async () => {
      const { rows } = await select(`SELECT spec_id, count(*) AS n FROM cli.lake."parts$files" GROUP BY spec_id`);
      expect(rows.map((row) => Number(row['spec_id'])).sort()).toEqual([0, 1]);
    });

    it('reads every row of both runs exactly', async () => {
      const expected = await expectedOrders();
      expect(expected.length).toBe(1000);
      const { rows } = await select('SELECT * FROM cli.lake.parts');
      verifyTableRows({ expected, actual: rows, columns: EVOLVED_COLUMNS, reader: 'trino', table: 'lake.parts' });
    });

    it('reads exactly the rows of a filter on the first spec and one on the second', async () => {
      for (const where of [`currency = 'EUR'`, `ship_date >= DATE '2024-02-01' AND ship_date < DATE '2024-03-01'`]) {
        const expected = await expectedOrders(where);
        expect(expected.length).toBeGreaterThan(0);
        const { rows } = await select(`SELECT * FROM cli.lake.parts WHERE ${where}`);
        verifyTableRows({ expected, actual: rows, columns: EVOLVED_COLUMNS, reader: `trino (${where})`, table: 'lake.parts' });
      }
    });
  });
});
