/**
 * `mode: upsert` with `keys`: each run replaces the rows whose key it produces and adds the rest,
 * in one snapshot; after three overlapping runs pyiceberg sees every key once with its latest row.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { inspect, ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-upsert-');

const specFile = (name: string, label: string, from: number, to: number, table = '{mode: upsert, keys: [order_id]}'): string =>
  ordersSpec(workdir(), name, 'lake.latest', table, `SELECT CAST(id AS BIGINT) AS order_id, '${label}' AS version FROM orders WHERE id BETWEEN ${from} AND ${to}`);

it('three overlapping upserts leave every key once, with the row of its latest run', async () => {
  const warehouse = join(workdir(), 'warehouse');
  const runs: [string, number, number][] = [
    ['a', 1, 100],
    ['b', 50, 150],
    ['c', 100, 200],
  ];
  for (const [label, from, to] of runs) {
    const result = thund(['run', specFile(`run_${label}`, label, from, to), '--warehouse', warehouse]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  }
  const report = inspect('lake.latest', warehouse);
  expect(report.snapshots.map((s) => s.summary['operation'])).toEqual(['append', 'overwrite', 'overwrite']);
  expect(Number(report.rowCount)).toBe(200);

  const read = await readWithPyiceberg({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: 'lake.latest',
  });
  const latest = new Map<number, string>();
  for (const [label, from, to] of runs) for (let id = from; id <= to; id++) latest.set(id, label);
  const rows = read.rows.map((row) => [Number(row['order_id']), String(row['version'])] as const).sort((a, b) => a[0] - b[0]);
  expect(rows).toEqual([...latest.entries()].sort((a, b) => a[0] - b[0]));
});

it('refuses mode upsert without keys, and keys without upsert, at their lines', () => {
  const noKeys = thund(['run', specFile('no_keys', 'x', 1, 2, '{mode: upsert}'), '--warehouse', join(workdir(), 'refused')]);
  expect(noKeys.status).toBe(1);
  expect(noKeys.stderr).toContain('mode upsert needs keys');
  const strayKeys = thund(['run', specFile('stray', 'x', 1, 2, '{mode: append, keys: [order_id]}'), '--warehouse', join(workdir(), 'refused')]);
  expect(strayKeys.status).toBe(1);
  expect(strayKeys.stderr).toContain('keys are used only with mode: upsert');
});
