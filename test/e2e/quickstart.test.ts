/**
 * The quickstart end to end through the built CLI: two runs (the second with --full-refresh, as the
 * input is unchanged) append two snapshots; the rows read
 * back through our manifests and through pyiceberg are the rows quickstart-expected.ts computes
 * independently from the input (twice over), with the same types.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { readWithPyiceberg, type PyicebergTable } from '../interop/pyiceberg.js';
import { QUICKSTART_COLUMNS, QUICKSTART_SPEC, QUICKSTART_TABLE, localCatalog, quickstartExpectedRows } from '../interop/quickstart-expected.js';
import { verifyTableRows, verifyTableSchema, type Row } from '../interop/verify.js';
import { inspect, thund, type InspectReport } from './cli.js';

describe('quickstart: thund run, twice', () => {
  let warehouse: string;
  let session: DuckDbSession;
  let expected: Row[];
  let first: InspectReport;
  let second: InspectReport;

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-quickstart-'));
    session = await DuckDbSession.open();
    expected = await quickstartExpectedRows();
    const run1 = thund(['run', QUICKSTART_SPEC, '--warehouse', warehouse]);
    expect(run1.stderr).toBe('');
    expect(run1.status).toBe(0);
    first = inspect(QUICKSTART_TABLE, warehouse);
    // The input did not change, so a plain second run would find lake.orders up to date: force it.
    const run2 = thund(['run', QUICKSTART_SPEC, '--warehouse', warehouse, '--full-refresh']);
    expect(run2.status).toBe(0);
    second = inspect(QUICKSTART_TABLE, warehouse);
  });

  afterAll(() => {
    session?.close();
    rmSync(warehouse, { recursive: true, force: true });
  });

  it('commits one append snapshot per run, each on top of the last', () => {
    const n = expected.length;
    expect(n).toBeGreaterThan(500);
    expect(first.snapshots).toHaveLength(1);
    expect(second.snapshots).toHaveLength(2);
    const [s1, s2] = second.snapshots;
    expect(s1?.parentSnapshotId).toBeNull();
    expect(String(s2?.parentSnapshotId)).toBe(String(s1?.snapshotId));
    expect(String(second.currentSnapshotId)).toBe(String(s2?.snapshotId));
    expect([Number(s1?.sequenceNumber), Number(s2?.sequenceNumber)]).toEqual([1, 2]);
    expect(Number(first.rowCount)).toBe(n);
    expect(Number(second.rowCount)).toBe(2 * n);
  });

  it('writes summaries whose totals add up', () => {
    const [s1, s2] = second.snapshots.map((snapshot) => snapshot.summary);
    const files1 = first.dataFiles;
    const files2 = second.dataFiles;
    const size = (files: InspectReport['dataFiles']): number => files.reduce((t, f) => t + Number(f.fileSizeInBytes), 0);
    expect(s1).toMatchObject({
      operation: 'append',
      'added-records': String(expected.length),
      'total-records': String(expected.length),
      'added-data-files': String(files1.length),
      'total-data-files': String(files1.length),
      'total-files-size': String(size(files1)),
      'total-delete-files': '0',
      'engine-name': 'thund',
    });
    expect(s2).toMatchObject({
      operation: 'append',
      'added-records': String(expected.length),
      'total-records': String(2 * expected.length),
      'total-data-files': String(files2.length),
      'total-files-size': String(size(files2)),
    });
  });

  it('holds exactly the flow output twice, read through our own manifests', async () => {
    const paths = second.dataFiles.map((file) => new URL(file.path).pathname);
    const list = `[${paths.map(quoteLiteral).join(', ')}]`;
    const rows = await session.queryJson(
      `SELECT order_id, customer_name, amount::VARCHAR AS amount, currency, epoch_us(ordered_at) AS ordered_at,
              ship_date::VARCHAR AS ship_date, is_gift
       FROM read_parquet(${list})`,
    );
    verifyTableRows({ expected: [...expected, ...expected], actual: rows, columns: QUICKSTART_COLUMNS, reader: 'DuckDB over the data files', table: QUICKSTART_TABLE });
  });

  it('writes Iceberg field ids into every Parquet column', async () => {
    const path = new URL(second.dataFiles[0]?.path ?? '').pathname;
    const columns = await session.queryJson(`SELECT name, field_id FROM parquet_schema(${quoteLiteral(path)}) WHERE name <> 'duckdb_schema'`);
    expect(columns.map((c) => [c['name'], Number(c['field_id'])])).toEqual([
      ['order_id', 1],
      ['customer_name', 2],
      ['amount', 3],
      ['currency', 4],
      ['ordered_at', 5],
      ['ship_date', 6],
      ['is_gift', 7],
    ]);
  });

  describe('read by pyiceberg (SqlCatalog on the same SQLite file)', () => {
    let table: PyicebergTable;
    beforeAll(async () => {
      table = await readWithPyiceberg(localCatalog(warehouse));
    }, 300_000);

    it('sees the same schema with the same Iceberg types, all columns optional', () => {
      verifyTableSchema({ expected: QUICKSTART_COLUMNS, actual: table.schema, reader: 'pyiceberg' });
      expect(table.schema.map((field) => [field.id, field.required])).toEqual(QUICKSTART_COLUMNS.map((_, i) => [i + 1, false]));
    });

    it('sees both snapshots and the same rows', () => {
      expect(table.snapshots).toHaveLength(2);
      expect(table.rowCount).toBe(2 * expected.length);
      verifyTableRows({ expected: [...expected, ...expected], actual: table.rows, columns: QUICKSTART_COLUMNS, reader: 'pyiceberg', table: QUICKSTART_TABLE });
    });
  });
});
