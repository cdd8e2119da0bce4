/**
 * `partitioned_by` in a pipeline: the first run creates a partitioned table, a later run with
 * other terms evolves the spec in the same commit as its data (old files keep their spec), and
 * pyiceberg reads every row and prunes by the new partitioning.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { inspect, ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-partitioned-');

const specFile = (name: string, partitionedBy: string, where: string): string =>
  ordersSpec(
    workdir(),
    name,
    'lake.parts',
    `{mode: append, partitioned_by: ${partitionedBy}}`,
    `SELECT CAST(id AS BIGINT) AS order_id, upper(currency) AS currency, CAST(ship_date AS DATE) AS ship_date FROM orders WHERE ${where}`,
  );

it('creates a partitioned table, evolves its spec on a later run, and readers see every row', async () => {
  const warehouse = join(workdir(), 'warehouse');
  const first = thund(['run', specFile('first', '[currency]', 'id <= 500'), '--warehouse', warehouse]);
  expect(first.stderr).toBe('');
  const second = thund(['run', specFile('second', '["bucket(4, order_id)", month(ship_date)]', 'id > 500'), '--warehouse', warehouse]);
  expect(second.stderr).toBe('');

  const report = inspect('lake.parts', warehouse);
  expect(report.snapshots).toHaveLength(2);
  const read = await readWithPyiceberg({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: 'lake.parts',
  });
  const ids = read.rows.map((row) => Number(row['order_id'])).sort((a, b) => a - b);
  expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  // First-run files are partitioned by currency, second-run files by bucket and month.
  const byRun = (predicate: (path: string) => boolean) => read.dataFiles.filter((file) => predicate(file.filePath));
  expect(byRun((path) => /\/currency=[A-Z]+\//.test(path)).length).toBeGreaterThan(1);
  expect(byRun((path) => /\/order_id_bucket_4=\d\/ship_date_month=\d{4}-\d{2}\//.test(path)).length).toBeGreaterThan(4);
  expect(byRun((path) => /\/currency=/.test(path)).length + byRun((path) => /order_id_bucket_4=/.test(path)).length).toBe(read.dataFiles.length);

  const filtered = await readWithPyiceberg({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: 'lake.parts',
    filter: "currency = 'EUR'",
  });
  expect(filtered.rows.every((row) => row['currency'] === 'EUR')).toBe(true);
  expect(filtered.rows.length).toBeGreaterThan(0);
  expect(filtered.dataFiles.length).toBeLessThan(read.dataFiles.length);
});

it('says how to quote a term that YAML split at its comma', () => {
  const refused = thund(['run', specFile('split', '[bucket(4, order_id)]', 'id <= 10'), '--warehouse', join(workdir(), 'split')]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('quote terms that contain a comma');
});

it('refuses a partition term on a column the flow does not produce, naming it, and creates nothing', () => {
  const warehouse = join(workdir(), 'refused');
  const refused = thund(['run', specFile('bad', '[day(no_such_column)]', 'id <= 10'), '--warehouse', warehouse]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('no_such_column');
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
});
