/**
 * A later run whose flow adds a column and widens one: the CLI says what changed in the table's
 * schema (so a misspelt column is noticed), and pyiceberg reads old rows with nulls in the new column.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { ordersWorkdir, thund } from './cli.js';
import { ordersSpec } from './orders-spec.js';

const workdir = ordersWorkdir('thund-evolve-');

const specFile = (name: string, select: string, properties = ''): string =>
  ordersSpec(workdir(), name, 'lake.evolving', `{mode: append${properties}}`, `SELECT ${select} FROM orders WHERE id BETWEEN 1 AND 9`);

it('reports added and widened columns, and readers see nulls for old rows', async () => {
  const warehouse = join(workdir(), 'warehouse');
  const first = thund(['run', specFile('first', 'CAST(id AS INTEGER) AS order_id'), '--warehouse', warehouse]);
  expect(first.stderr).toBe('');
  expect(first.stdout).not.toContain('schema:');

  const second = thund(['run', specFile('second', "CAST(id AS BIGINT) AS order_id, 'x' || id AS note"), '--warehouse', warehouse]);
  expect(second.stderr).toBe('');
  const schemaLines = second.stdout.split('\n').filter((line) => line.includes('schema:'));
  expect([...schemaLines].sort()).toEqual(['  schema: added column note string (field id 2)', '  schema: widened order_id from int to long']);

  const table = await readWithPyiceberg({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: 'lake.evolving',
  });
  expect(table.schema.map((field) => [field.name, field.type])).toEqual([
    ['order_id', 'long'],
    ['note', 'string'],
  ]);
  const byIdThenNote = (a: unknown[], b: unknown[]): number => Number(a[0]) - Number(b[0]) || String(a[1]).localeCompare(String(b[1]));
  const rows = table.rows.map((row) => [Number(row['order_id']), row['note']]).sort(byIdThenNote);
  // The quickstart data has ids 1..1000: each of 1..9 once from the first run (no note) and once from the second.
  const ids = Array.from({ length: 9 }, (_, i) => i + 1);
  expect(rows).toEqual(ids.flatMap((id) => [[id, `x${id}`], [id, null]]).sort(byIdThenNote));
});

it('with thund.schema.auto-evolve false, a new column fails the run and changes nothing', () => {
  const warehouse = join(workdir(), 'strict');
  expect(thund(['run', specFile('strict1', 'CAST(id AS BIGINT) AS order_id'), '--warehouse', warehouse]).status).toBe(0);
  const refused = thund([
    'run',
    specFile('strict2', "CAST(id AS BIGINT) AS order_id, 'x' AS note", ", properties: {thund.schema.auto-evolve: 'false'}"),
    '--warehouse',
    warehouse,
  ]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('note');
});
