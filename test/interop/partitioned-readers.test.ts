/**
 * Partitioned tables written by Thund's partitioned writer and committed into the embedded SQLite
 * catalog, read by pyiceberg and by Spark with Iceberg's Java runtime: (a) day(ts) + bucket[16](id),
 * (b) truncate[4](name), (c) identity(region), (d) hour(ts) + void(x). Each reader must return
 * exactly the rows DuckDB computes from the source table (not from our files), with and without a
 * filter, and pyiceberg's filtered scan must plan fewer files than the table has: its pruning by
 * the partition tuples and summaries we wrote. Source columns are null on some rows, so every
 * table has null partitions too.
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
import type { PartitionField } from '../../src/iceberg/table-metadata.js';
import { primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';
import { readWithPyiceberg } from './pyiceberg.js';
import type { SqliteCatalogReadArgs } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, type ColumnType, type Row } from './verify.js';

const { fields } = assignFreshIds([
  { name: 'id', required: false, type: primitive('long') },
  { name: 'ts', required: false, type: primitive('timestamptz') },
  { name: 'name', required: false, type: primitive('string') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'x', required: false, type: primitive('int') },
]);
const COLUMNS: readonly ColumnType[] = fields.map((f) => ({ name: f.name, type: f.type.kind }));
const source = (name: string): number => fields.find((f) => f.name === name)!.id;

/** 4 days of seconds from 2024-02-28 (over a leap day), names with 5 prefixes, 4 regions. */
const SOURCE = `
  SELECT CASE WHEN range % 11 = 0 THEN NULL ELSE range END::BIGINT AS id,
         CASE WHEN range % 17 = 0 THEN NULL ELSE TIMESTAMPTZ '2024-02-28 00:00:00+00' + to_seconds((range * 7919) % 345600) END AS ts,
         CASE WHEN range % 19 = 0 THEN NULL ELSE ['alpha', 'bravo', 'charlie', 'delta', 'echo'][range % 5 + 1] || '-' || (range % 37) END AS name,
         CASE WHEN range % 13 = 0 THEN NULL ELSE ['eu', 'us', 'ap', 'sa'][range % 4 + 1] END AS region,
         (range % 100)::INTEGER AS x
  FROM range(20000)`;

interface Case {
  readonly table: string;
  readonly partitionBy: readonly Omit<PartitionField, 'fieldId'>[];
  /** The same predicate for DuckDB (expected rows), pyiceberg's row_filter and Spark's WHERE. */
  readonly filter: { readonly duckdb: string; readonly pyiceberg: string; readonly spark: string };
}

const CASES: readonly Case[] = [
  {
    table: 'lake.by_day_bucket',
    partitionBy: [
      { name: 'ts_day', transform: 'day', sourceId: source('ts') },
      { name: 'id_bucket', transform: 'bucket[16]', sourceId: source('id') },
    ],
    filter: { duckdb: 'id = 4242', pyiceberg: 'id = 4242', spark: 'id = 4242' },
  },
  {
    table: 'lake.by_name_trunc',
    partitionBy: [{ name: 'name_trunc', transform: 'truncate[4]', sourceId: source('name') }],
    filter: { duckdb: `name = 'delta-5'`, pyiceberg: `name = 'delta-5'`, spark: `name = 'delta-5'` },
  },
  {
    table: 'lake.by_region',
    partitionBy: [{ name: 'region', transform: 'identity', sourceId: source('region') }],
    filter: { duckdb: `region = 'eu'`, pyiceberg: `region = 'eu'`, spark: `region = 'eu'` },
  },
  {
    table: 'lake.by_hour_void',
    partitionBy: [
      { name: 'ts_hour', transform: 'hour', sourceId: source('ts') },
      { name: 'x_null', transform: 'void', sourceId: source('x') },
    ],
    filter: {
      duckdb: `ts >= TIMESTAMPTZ '2024-03-01 05:00:00+00' AND ts < TIMESTAMPTZ '2024-03-01 07:00:00+00'`,
      pyiceberg: `ts >= '2024-03-01T05:00:00+00:00' AND ts < '2024-03-01T07:00:00+00:00'`,
      spark: `ts >= TIMESTAMP '2024-03-01 05:00:00' AND ts < TIMESTAMP '2024-03-01 07:00:00'`,
    },
  },
];

let warehouse: string;
let session: DuckDbSession;
const committed = new Map<string, DataFile[]>();

const identifierOf = (table: string): TableIdentifier => {
  const [namespace, name] = table.split('.') as [string, string];
  return { namespace: [namespace], name };
};

const readArgs = (table: string, filter?: string): SqliteCatalogReadArgs => ({
  catalogDb: join(warehouse, 'catalog.db'),
  warehouse: pathToFileURL(warehouse).href,
  catalogName: 'default',
  table,
  ...(filter === undefined ? {} : { filter }),
});

/** The rows of the source matching a DuckDB predicate, in the forms verify.ts reads (ts as µs). */
const expectedRows = (where?: string): Promise<Row[]> =>
  session.queryJson(`SELECT id, epoch_us(ts) AS ts, name, region, x FROM src ${where === undefined ? '' : `WHERE ${where}`}`);

beforeAll(async () => {
  warehouse = mkdtempSync(join(tmpdir(), 'thund-partitioned-readers-'));
  session = await DuckDbSession.open();
  await session.run(`CREATE TABLE src AS ${SOURCE}`);
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
  try {
    await catalog.createNamespace(['lake']);
    for (const c of CASES) {
      const identifier = identifierOf(c.table);
      const { metadata } = await catalog.createTable(identifier, {
        schema: { schemaId: 0, identifierFieldIds: [], fields },
        partitionSpec: { specId: 0, fields: c.partitionBy.map((f, i) => ({ ...f, fieldId: 1000 + i })) },
      });
      const files = await writePartitionedDataFiles({
        session,
        query: 'SELECT id, ts, name, region, x FROM src',
        schema: currentSchema(metadata),
        spec: defaultSpec(metadata),
        dataLocation: dataLocation(metadata),
        io,
        properties: metadata.properties,
        writerName: c.table,
      });
      await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
      committed.set(c.table, files);
    }
  } finally {
    await catalog.close();
  }
}, 300_000);

afterAll(() => {
  session?.close();
  if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
});

describe.each(CASES.map((c) => [c.table, c] as const))('%s read by pyiceberg and Spark', (table, c) => {
  it('pyiceberg reads exactly the source rows, and its filtered scan prunes files', async () => {
    const files = committed.get(table)!;
    expect(files.length).toBeGreaterThan(3);
    const full = await readWithPyiceberg(readArgs(table));
    verifyTableRows({ expected: await expectedRows(), actual: full.rows, columns: COLUMNS, reader: 'pyiceberg', table });
    expect(full.dataFiles.map((f) => f.filePath).sort()).toEqual(files.map((f) => f.filePath).sort());

    const filtered = await readWithPyiceberg(readArgs(table, c.filter.pyiceberg));
    const expected = await expectedRows(c.filter.duckdb);
    expect(expected.length).toBeGreaterThan(0);
    verifyTableRows({ expected, actual: filtered.rows, columns: COLUMNS, reader: 'pyiceberg (filtered)', table });
    expect(filtered.dataFiles.length).toBeGreaterThan(0);
    expect(filtered.dataFiles.length).toBeLessThan(full.dataFiles.length);
    console.log(`pyiceberg planned ${filtered.dataFiles.length} of ${full.dataFiles.length} files of ${table} for ${c.filter.pyiceberg}`);
    // Files are pruned by partition: every planned file's tuple can hold matching rows.
    const planned = new Set(filtered.dataFiles.map((f) => f.filePath));
    const needed = files.filter((f) => planned.has(f.filePath));
    expect(needed.reduce((n, f) => n + Number(f.recordCount), 0)).toBeGreaterThanOrEqual(expected.length);
  }, 300_000);

  it('Spark reads exactly the source rows, with and without the filter', async () => {
    const full = await readWithSpark(readArgs(table));
    verifyTableRows({ expected: await expectedRows(), actual: full.rows, columns: COLUMNS, reader: 'spark', table });
    const filtered = await readWithSpark(readArgs(table, c.filter.spark));
    verifyTableRows({ expected: await expectedRows(c.filter.duckdb), actual: filtered.rows, columns: COLUMNS, reader: 'spark (filtered)', table });
  }, 900_000);
});
