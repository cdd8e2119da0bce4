/**
 * The first run of a `mode: upsert` table creates it under the same key rules as every later run:
 * a null key, a key twice or a key column the flow does not produce fails the run, naming the
 * flow and the table, and nothing is created. After an upsert `thund run` reports the live rows.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tableRows } from './graph-support.js';
import { inspect, ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-upsert-first-');

const specFile = (name: string, sql: string, keys = '[order_id]'): string => ordersSpec(workdir(), name, 'lake.keyed', `{mode: upsert, keys: ${keys}}`, sql);

const refusals: [string, string, string, string][] = [
  ['a null key', "SELECT CASE WHEN id = 3 THEN NULL ELSE CAST(id AS BIGINT) END AS order_id, 'a' AS version FROM orders WHERE id <= 5", '[order_id]', 'null key'],
  [
    'a key twice',
    "SELECT CAST(id AS BIGINT) AS order_id, 'a' AS version FROM orders WHERE id <= 5 UNION ALL SELECT 2, 'b'",
    '[order_id]',
    'order_id=2',
  ],
  ['a key column the flow does not produce', "SELECT CAST(id AS BIGINT) AS order_id, 'a' AS version FROM orders WHERE id <= 5", '[customer_id]', 'customer_id'],
];

for (const [what, sql, keys, named] of refusals) {
  it(`refuses ${what} on the run that creates the table, and creates nothing`, () => {
    const warehouse = join(workdir(), `wh-${what.replace(/\W+/g, '-')}`);
    const result = thund(['run', specFile(`first_${what.replace(/\W+/g, '_')}`, sql, keys), '--warehouse', warehouse]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(named);
    expect(result.stderr).toContain('"load"');
    expect(result.stderr).toContain('lake.keyed');
    expect(thund(['inspect', 'lake.keyed', '--warehouse', warehouse]).status).toBe(1);
    expect(existsSync(join(warehouse, 'lake', 'keyed', 'data'))).toBe(false);
  });
}

it('prints the live row count after an upsert, as thund inspect counts it', async () => {
  const warehouse = join(workdir(), 'wh-count');
  const first = thund(['run', specFile('count_a', "SELECT CAST(id AS BIGINT) AS order_id, 'a' AS version FROM orders WHERE id <= 10"), '--warehouse', warehouse]);
  expect(first.stderr).toBe('');
  expect(first.stdout).toContain('table now has 10 rows');
  const second = thund(['run', specFile('count_b', "SELECT CAST(id AS BIGINT) AS order_id, 'b' AS version FROM orders WHERE id BETWEEN 6 AND 15"), '--warehouse', warehouse]);
  expect(second.stderr).toBe('');
  expect(second.stdout).toContain('table now has 15 rows');
  expect(Number(inspect('lake.keyed', warehouse).rowCount)).toBe(15);
  const rows = await tableRows(warehouse, 'lake.keyed', 'order_id, version');
  expect(rows.map((row) => `${String(row['order_id'])}${String(row['version'])}`)).toEqual([
    ...[1, 2, 3, 4, 5].map((id) => `${id}a`),
    ...[6, 7, 8, 9, 10, 11, 12, 13, 14, 15].map((id) => `${id}b`),
  ]);
});
