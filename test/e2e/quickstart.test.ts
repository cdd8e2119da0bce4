/**
 * The quickstart end to end through the built CLI: two runs append two snapshots; the rows read
 * back through our manifests and through pyiceberg equal the flow's output, with the same types.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { readWithPyiceberg, type PyicebergTable } from '../interop/pyiceberg.js';
import { REPO, inspect, thund, type InspectReport } from './cli.js';

const SPEC = join(REPO, 'examples/quickstart/pipeline.yaml');
const INPUT = join(REPO, 'examples/quickstart/data/orders.parquet');

/** The flow's SELECT, run by DuckDB directly over the input: the rows the table must hold. */
const EXPECTED_SQL = `
  SELECT CAST(id AS BIGINT) AS order_id, customer AS customer_name,
         CAST(amount_cents * 0.01 AS DECIMAL(12, 2))::VARCHAR AS amount, upper(currency) AS currency,
         epoch_ms(to_timestamp(ordered_at_epoch_s)) AS ordered_at_ms, CAST(ship_date AS DATE)::VARCHAR AS ship_date, is_gift
  FROM read_parquet(${quoteLiteral(INPUT)})`;

type Row = Record<string, unknown>;
const byOrderId = (a: Row, b: Row): number => Number(a['order_id']) - Number(b['order_id']);

describe('quickstart: thund run, twice', () => {
  let warehouse: string;
  let session: DuckDbSession;
  let expected: Row[];
  let first: InspectReport;
  let second: InspectReport;

  beforeAll(async () => {
    warehouse = mkdtempSync(join(tmpdir(), 'thund-quickstart-'));
    session = await DuckDbSession.open();
    expected = (await session.queryJson(`${EXPECTED_SQL} ORDER BY order_id`)).map((row) => ({ ...row, order_id: Number(row['order_id']) }));
    const run1 = thund(['run', SPEC, '--warehouse', warehouse]);
    expect(run1.stderr).toBe('');
    expect(run1.status).toBe(0);
    first = inspect('lake.orders', warehouse);
    const run2 = thund(['run', SPEC, '--warehouse', warehouse]);
    expect(run2.status).toBe(0);
    second = inspect('lake.orders', warehouse);
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
      `SELECT order_id, customer_name, amount::VARCHAR AS amount, currency, epoch_ms(ordered_at) AS ordered_at_ms,
              ship_date::VARCHAR AS ship_date, is_gift
       FROM read_parquet(${list}) ORDER BY order_id`,
    );
    const doubled = expected.flatMap((row) => [row, row]);
    expect(rows.map((row) => ({ ...row, order_id: Number(row['order_id']) }))).toEqual(doubled);
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
      table = await readWithPyiceberg({
        catalogDb: join(warehouse, 'catalog.db'),
        warehouse: pathToFileURL(warehouse).href,
        catalogName: 'default',
        table: 'lake.orders',
      });
    }, 300_000);

    it('sees the same schema with the same Iceberg types', () => {
      expect(table.schema.map((field) => [field.id, field.name, field.type, field.required])).toEqual([
        [1, 'order_id', 'long', false],
        [2, 'customer_name', 'string', false],
        [3, 'amount', 'decimal(12, 2)', false],
        [4, 'currency', 'string', false],
        [5, 'ordered_at', 'timestamptz', false],
        [6, 'ship_date', 'date', false],
        [7, 'is_gift', 'boolean', false],
      ]);
    });

    it('sees both snapshots and the same rows', () => {
      expect(table.snapshots).toHaveLength(2);
      expect(table.rowCount).toBe(2 * expected.length);
      const rows = table.rows
        .map((row) => ({
          order_id: row['order_id'],
          customer_name: row['customer_name'],
          amount: row['amount'],
          currency: row['currency'],
          ordered_at_ms: row['ordered_at'] === null ? null : String(Date.parse(String(row['ordered_at']))),
          ship_date: row['ship_date'],
          is_gift: row['is_gift'],
        }))
        .sort(byOrderId);
      const doubled = expected
        .flatMap((row) => [row, row])
        .map((row) => ({ ...row, ordered_at_ms: row['ordered_at_ms'] === null ? null : String(row['ordered_at_ms']) }));
      expect(rows).toEqual(doubled);
    });
  });
});
