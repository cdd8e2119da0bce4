/**
 * A table whose schema evolves between writes, read by pyiceberg and Spark. Three flows write
 * through runFlow into the embedded catalog: the first creates the table; the second widens
 * int→long, float→double and decimal(9,2)→decimal(12,2), adds a field inside a struct and a new
 * top-level column; then a column is renamed through the API; the third writes under the new
 * name; last the partition spec evolves twice (add bucket and truncate fields, then remove one and
 * rename the other) and a fourth write lands under the newest spec. Both readers must see the final schema (ids kept, new ids from last-column-id + 1) and
 * every row: nulls for the new columns in old rows, old values under the renamed column. The
 * expected rows are computed by DuckDB from the same generators, not by Thund.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIdentifier, type TableIdentifier } from '../../catalog/catalog.js';
import { DEFAULT_CATALOG_NAME, SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { runFlow, type FlowRunResult } from '../../src/engine/run-flow.js';
import { evolvePartitionSpec, type PartitionSpecChange } from '../../src/iceberg/partition-spec-evolution.js';
import { renameColumnUpdate } from '../../src/iceberg/schema-update.js';
import type { PartitionSpec } from '../../src/iceberg/table-metadata.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { localCatalog } from './quickstart-expected.js';
import type { ReaderTable } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, verifyTableSchema, type ColumnType, type Row } from './verify.js';

const TABLE: TableIdentifier = { namespace: ['lake'], name: 'evolving' };

/** Row generators per write: i is the row number; each write states its own output types. */
const FIRST = `SELECT CAST(i AS INTEGER) AS id, CAST(i * 10 AS INTEGER) AS qty, CAST(i + 0.1 AS FLOAT) AS score,
  CAST(i * 1.25 AS DECIMAL(9, 2)) AS price, 'c' || i AS name, {'a': CAST(i AS INTEGER)} AS info FROM range(1, 4) t(i)`;
const SECOND = `SELECT CAST(i AS BIGINT) * 1000000000 AS id, CAST(i * 10 AS INTEGER) AS qty, CAST(i + 0.1 AS DOUBLE) AS score,
  CAST(i * 1000000.25 AS DECIMAL(12, 2)) AS price, 'c' || i AS name, {'a': CAST(i AS INTEGER), 'b': 'b' || i} AS info, 'n' || i AS note
  FROM range(4, 7) t(i)`;
const THIRD = `SELECT CAST(i AS BIGINT) AS id, CAST(i * 10 AS INTEGER) AS qty, CAST(i + 0.1 AS DOUBLE) AS score,
  CAST(i * 1.25 AS DECIMAL(12, 2)) AS price, 'c' || i AS customer, {'b': 'b' || i, 'a': CAST(i AS INTEGER)} AS info, 'n' || i AS note
  FROM range(7, 9) t(i)`;

/** Written after the partition spec evolved: lands under spec 2, partitioned by truncate[2](customer). */
const FOURTH = `SELECT CAST(i AS BIGINT) AS id, CAST(i * 10 AS INTEGER) AS qty, CAST(i + 0.1 AS DOUBLE) AS score,
  CAST(i * 1.25 AS DECIMAL(12, 2)) AS price, (CASE WHEN i = 9 THEN 'xy' ELSE 'zz' END) || i AS customer,
  {'a': CAST(i AS INTEGER), 'b': 'b' || i} AS info, NULL::VARCHAR AS note FROM range(9, 12) t(i)`;

/**
 * What the table must hold: each write's rows as the Iceberg promotion rules read them (a float
 * widened to double keeps its float32 value; old rows have nulls in columns added later).
 */
const EXPECTED = `
  SELECT CAST(i AS BIGINT)::VARCHAR AS id, CAST(i * 10 AS INTEGER) AS qty, CAST(CAST(i + 0.1 AS FLOAT) AS DOUBLE) AS score,
    CAST(i * 1.25 AS DECIMAL(9, 2))::VARCHAR AS price, 'c' || i AS customer, {'a': CAST(i AS INTEGER), 'b': NULL::VARCHAR} AS info,
    NULL::VARCHAR AS note FROM range(1, 4) t(i)
  UNION ALL
  SELECT (CAST(i AS BIGINT) * 1000000000)::VARCHAR, CAST(i * 10 AS INTEGER), CAST(i + 0.1 AS DOUBLE), CAST(i * 1000000.25 AS DECIMAL(12, 2))::VARCHAR,
    'c' || i, {'a': CAST(i AS INTEGER), 'b': 'b' || i}, 'n' || i FROM range(4, 7) t(i)
  UNION ALL
  SELECT CAST(i AS BIGINT)::VARCHAR, CAST(i * 10 AS INTEGER), CAST(i + 0.1 AS DOUBLE), CAST(i * 1.25 AS DECIMAL(12, 2))::VARCHAR,
    'c' || i, {'a': CAST(i AS INTEGER), 'b': 'b' || i}, 'n' || i FROM range(7, 9) t(i)
  UNION ALL
  SELECT CAST(i AS BIGINT)::VARCHAR, CAST(i * 10 AS INTEGER), CAST(i + 0.1 AS DOUBLE), CAST(i * 1.25 AS DECIMAL(12, 2))::VARCHAR,
    (CASE WHEN i = 9 THEN 'xy' ELSE 'zz' END) || i, {'a': CAST(i AS INTEGER), 'b': 'b' || i}, NULL FROM range(9, 12) t(i)`;

/** The final schema: ids 1–7 from the first write, 8 (info.b) and 9 (note) added, 5 renamed. */
const COLUMNS: readonly (ColumnType & { id: number })[] = [
  { id: 1, name: 'id', type: 'long' },
  { id: 2, name: 'qty', type: 'int' },
  { id: 3, name: 'score', type: 'double' },
  { id: 4, name: 'price', type: 'decimal(12, 2)' },
  { id: 5, name: 'customer', type: 'string' },
  { id: 6, name: 'info', type: 'struct<7: a: optional int, 8: b: optional string>' },
  { id: 9, name: 'note', type: 'string' },
];

/** Commits a partition spec change (no data is written under the new specs: readers must still load and read the table). */
async function evolveSpec(catalog: SqlCatalog, changes: readonly PartitionSpecChange[]): Promise<void> {
  const base = (await catalog.loadTable(TABLE)).metadata;
  const update = evolvePartitionSpec(base, changes);
  await catalog.commitTable(TABLE, [{ type: 'assert-table-uuid', uuid: base.tableUuid }, ...update.requirements], update.updates);
}

describe('an evolving table read by pyiceberg and Spark', () => {
  let warehouse: string;
  let expected: Row[];
  const results: FlowRunResult[] = [];
  const tables = new Map<string, ReaderTable>();
  let specs: readonly PartitionSpec[] = [];

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-evolving-'));
    const io = new LocalFileIO();
    const catalog = new SqlCatalog({ name: DEFAULT_CATALOG_NAME, databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      const run = (flowName: string, sql: string): Promise<FlowRunResult> =>
        runFlow({ session, catalog, io, flowName, sql, target: TABLE, mode: 'append', tableProperties: {}, summaryProperties: {} });
      results.push(await run('first', FIRST));
      results.push(await run('second', SECOND));
      const base = (await catalog.loadTable(TABLE)).metadata;
      const rename = renameColumnUpdate(base, 'name', 'customer');
      await catalog.commitTable(TABLE, [{ type: 'assert-table-uuid', uuid: base.tableUuid }, ...rename.requirements], rename.updates);
      results.push(await run('third', THIRD));
      await evolveSpec(catalog, [
        { action: 'add-field', source: 'id', transform: 'bucket[4]' },
        { action: 'add-field', source: 'customer', transform: 'truncate[2]' },
      ]);
      await evolveSpec(catalog, [
        { action: 'remove-field', name: 'id_bucket_4' },
        { action: 'rename-field', name: 'customer_trunc_2', newName: 'customer_prefix' },
      ]);
      specs = (await catalog.loadTable(TABLE)).metadata.partitionSpecs;
      results.push(await run('fourth', FOURTH));
      expected = await session.queryJson(EXPECTED);
    } finally {
      session.close();
      await catalog.close();
    }
    expect(expected).toHaveLength(11);
  }, 120_000);

  afterAll(() => {
    if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
  });

  it('the writes evolved the schema as intended', () => {
    expect(results.map((r) => r.schemaChanges.map((c) => `${c.kind} ${c.path.join('.')} ${c.fieldId}`))).toEqual([
      [],
      ['widen-type id 1', 'widen-type score 3', 'widen-type price 4', 'add-column info.b 8', 'add-column note 9'],
      [],
      [],
    ]);
    expect(results.map((r) => r.snapshot.schemaId)).toEqual([0, 1, 2, 2]);
  });

  it('the partition spec evolved twice; every spec is kept, old files stay under spec 0, new ones go under spec 2', () => {
    expect(specs).toEqual([
      { specId: 0, fields: [] },
      { specId: 1, fields: [
        { sourceId: 1, fieldId: 1000, name: 'id_bucket_4', transform: 'bucket[4]' },
        { sourceId: 5, fieldId: 1001, name: 'customer_trunc_2', transform: 'truncate[2]' },
      ] },
      { specId: 2, fields: [{ sourceId: 5, fieldId: 1001, name: 'customer_prefix', transform: 'truncate[2]' }] },
    ]);
    expect(results.slice(0, 3).flatMap((r) => r.dataFiles.map((f) => f.specId))).toEqual([0, 0, 0]);
    const partitioned = results[3]!.dataFiles.map((f) => [f.specId, f.partition.get(1001), f.recordCount, /\/customer_prefix=(xy|zz)\//.test(f.filePath)]);
    expect(partitioned.sort()).toEqual([
      [2, 'xy', 1n, true],
      [2, 'zz', 2n, true],
    ]);
  });

  const readers = {
    pyiceberg: () => readWithPyiceberg(localCatalog(warehouse, { table: formatIdentifier(TABLE) })),
    spark: () => readWithSpark(localCatalog(warehouse, { table: formatIdentifier(TABLE) })),
  };

  for (const [reader, read] of Object.entries(readers)) {
    it(`${reader} sees the evolved schema and every row, nulls in new columns of old rows`, async () => {
      const table = await read();
      tables.set(reader, table);
      verifyTableSchema({ expected: COLUMNS, actual: table.schema, reader });
      expect(table.schema.map((f) => f.id)).toEqual(COLUMNS.map((c) => c.id));
      expect(table.schema.every((f) => !f.required)).toBe(true);
      verifyTableRows({ expected, actual: table.rows, columns: COLUMNS, reader, table: formatIdentifier(TABLE) });
      expect(table.rowCount).toBe(11);
      expect(table.dataFiles).toHaveLength(5);
    }, 600_000);
  }

  it('pyiceberg prunes a filtered scan to the one file under the new spec that can hold the row', async () => {
    const table = await readWithPyiceberg(localCatalog(warehouse, { table: formatIdentifier(TABLE), filter: "customer = 'xy9'" }));
    verifyTableRows({ expected: expected.filter((row) => row['customer'] === 'xy9'), actual: table.rows, columns: COLUMNS, reader: 'pyiceberg (filtered)' });
    expect(table.dataFiles.map((f) => /\/customer_prefix=xy\//.test(f.filePath))).toEqual([true]);
  }, 300_000);

  it('both readers agree', () => {
    const pyiceberg = tables.get('pyiceberg');
    const spark = tables.get('spark');
    expect(pyiceberg, 'the pyiceberg read failed').toBeDefined();
    expect(spark, 'the Spark read failed').toBeDefined();
    expect(spark!.currentSnapshotId).toBe(pyiceberg!.currentSnapshotId);
    verifyTableRows({ expected: pyiceberg!.rows, actual: spark!.rows, columns: COLUMNS, reader: 'spark (against pyiceberg)' });
  });
});
