/**
 * The quickstart table, written by the built CLI, read by two independent implementations
 * (pyiceberg, and Spark SQL with Iceberg's Java runtime): each must see the Iceberg schema the
 * flow declares and exactly the rows DuckDB computes from the input with the flow's SELECT, and
 * the two readers must agree with each other.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWithPyiceberg } from './pyiceberg.js';
import { QUICKSTART_COLUMNS, localCatalog, quickstartExpectedRows, writeQuickstart } from './quickstart-expected.js';
import type { ReaderTable } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, verifyTableSchema, type Row } from './verify.js';

/** Spark's SQL type for each Iceberg type of the table (Iceberg's Spark type mapping). */
const SPARK_TYPES: Record<string, string> = {
  long: 'bigint',
  string: 'string',
  'decimal(12, 2)': 'decimal(12,2)',
  timestamptz: 'timestamp',
  date: 'date',
  boolean: 'boolean',
};

const hashOf = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('quickstart table read by pyiceberg and Spark', () => {
  let warehouse: string;
  let expected: Row[];
  let catalogHash: string;
  const tables = new Map<string, ReaderTable>();

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-readers-'));
    writeQuickstart(warehouse);
    catalogHash = hashOf(join(warehouse, 'catalog.db'));
    expected = await quickstartExpectedRows();
    expect(expected.length).toBeGreaterThan(500);
  }, 120_000);

  afterAll(() => {
    if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
  });

  it('pyiceberg sees the declared schema and exactly the expected rows', async () => {
    const table = await readWithPyiceberg(localCatalog(warehouse));
    tables.set('pyiceberg', table);
    verifyTableSchema({ expected: QUICKSTART_COLUMNS, actual: table.schema, reader: 'pyiceberg' });
    expect(table.schema.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    verifyTableRows({ expected, actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'pyiceberg', table: 'lake.orders' });
  }, 300_000);

  it('Spark sees the declared schema, maps it to the right Spark types, and reads exactly the expected rows', async () => {
    const started = Date.now();
    const table = await readWithSpark(localCatalog(warehouse));
    console.log(`spark read lake.orders (${table.rowCount} rows) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    tables.set('spark', table);
    verifyTableSchema({ expected: QUICKSTART_COLUMNS, actual: table.schema, reader: 'spark' });
    expect(table.schema.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(table.schema.map((f) => f.engineType)).toEqual(QUICKSTART_COLUMNS.map((c) => SPARK_TYPES[c.type]));
    verifyTableRows({ expected, actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'spark', table: 'lake.orders' });
  }, 600_000);

  it('both readers see the same snapshot, files and rows', () => {
    const pyiceberg = tables.get('pyiceberg');
    const spark = tables.get('spark');
    expect(pyiceberg, 'the pyiceberg read above failed').toBeDefined();
    expect(spark, 'the Spark read above failed').toBeDefined();
    expect(spark!.currentSnapshotId).toBe(pyiceberg!.currentSnapshotId);
    expect(spark!.formatVersion).toBe(pyiceberg!.formatVersion);
    expect(spark!.schema.map(({ id, name, type, required }) => ({ id, name, type, required }))).toEqual(pyiceberg!.schema);
    expect(spark!.snapshots).toEqual(pyiceberg!.snapshots);
    expect(spark!.dataFiles).toEqual(pyiceberg!.dataFiles);
    verifyTableRows({ expected: pyiceberg!.rows, actual: spark!.rows, columns: QUICKSTART_COLUMNS, reader: 'spark (against pyiceberg)' });
  });

  it('readers leave the catalog database untouched', () => {
    expect(hashOf(join(warehouse, 'catalog.db'))).toBe(catalogHash);
  });
});
