/**
 * mode: overwrite replaces the table's rows in one snapshot; pyiceberg reads only the new rows,
 * and time travel to the earlier snapshot still sees the old ones.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { inspect, ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-overwrite-');

const specFile = (name: string, mode: string, where: string): string =>
  ordersSpec(workdir(), name, 'lake.small_orders', `{mode: ${mode}}`, `SELECT CAST(id AS BIGINT) AS order_id, customer FROM orders WHERE ${where}`);

it('overwrites the whole table in one snapshot that readers agree on', async () => {
  const warehouse = join(workdir(), 'warehouse');
  expect(thund(['run', specFile('first', 'append', 'id < 300'), '--warehouse', warehouse]).status).toBe(0);
  const replaced = thund(['run', specFile('second', 'overwrite', 'id >= 900'), '--warehouse', warehouse]);
  expect(replaced.stderr).toBe('');
  const report = inspect('lake.small_orders', warehouse);
  expect(report.snapshots.map((s) => s.summary['operation'])).toEqual(['append', 'overwrite']);
  const appended = Number(report.snapshots[0]?.summary['added-records']);
  const kept = Number(report.snapshots[1]?.summary['added-records']);
  expect(report.snapshots[1]?.summary).toMatchObject({ 'deleted-records': String(appended), 'total-records': String(kept) });
  expect(Number(report.rowCount)).toBe(kept);

  const read = (snapshotId?: string) =>
    readWithPyiceberg({
      catalogDb: join(warehouse, 'catalog.db'),
      warehouse: pathToFileURL(warehouse).href,
      catalogName: 'default',
      table: 'lake.small_orders',
      ...(snapshotId === undefined ? {} : { snapshotId }),
    });
  const now = await read();
  const ids = now.rows.map((row) => Number(row['order_id']));
  expect(ids.length).toBe(kept);
  expect(Math.min(...ids)).toBeGreaterThanOrEqual(900);
  const before = await read(String(report.snapshots[0]?.snapshotId));
  expect(before.rows.length).toBe(appended);
  expect(Math.max(...before.rows.map((row) => Number(row['order_id'])))).toBeLessThan(300);
}, 300_000);
