/**
 * Expectations through `thund run`: warn keeps and counts failing rows, drop leaves them out and
 * counts them, both recorded in the snapshot summary and printed per flow; a failing `fail`
 * expectation stops the run with exit 1 and commits nothing of that flow, while the flow before
 * it stays committed.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { thund } from './cli.js';
import { tableRows, tableSnapshots, writeOrders, writeSpec } from './graph-support.js';

let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-expect-'));
  mkdirSync(join(work, 'data'));
  await writeOrders(join(work, 'data/orders.parquet'), "(1, 'ann', 10), (2, 'bob', -5), (3, 'ann', 30), (4, NULL, 7)");
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

const spec = (name: string, extra: readonly string[] = [], before: readonly string[] = []): string =>
  writeSpec(work, name, [
    `pipeline: ${name}`,
    'sources:',
    '  orders: {format: parquet, path: data/orders.parquet}',
    'tables:',
    ...before,
    '  lake.checked:',
    '    mode: overwrite',
    '    sql: SELECT id, customer, amount FROM orders',
    '    expectations:',
    '      has_customer: customer IS NOT NULL',
    '      positive: {condition: amount > 0, action: drop}',
    ...extra,
  ]);

it('warn counts, drop removes and counts, both in the summary and the output', async () => {
  const warehouse = join(work, 'wh-warn-drop');
  const result = thund(['run', spec('warn_drop'), '--warehouse', warehouse]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines).toContain('  expectation has_customer (warn): 3 passed, 1 failed');
  expect(lines).toContain('  expectation positive (drop): 3 passed, 1 failed (dropped)');
  expect(await tableRows(warehouse, 'lake.checked', 'id, customer, amount')).toEqual([
    { id: 1, customer: 'ann', amount: 10 },
    { id: 3, customer: 'ann', amount: 30 },
    { id: 4, customer: null, amount: 7 },
  ]);
  const [snapshot] = await tableSnapshots(warehouse, 'lake.checked');
  expect(snapshot?.summary).toMatchObject({
    'thund.expectation.has_customer.action': 'warn',
    'thund.expectation.has_customer.passed': '3',
    'thund.expectation.has_customer.failed': '1',
    'thund.expectation.positive.action': 'drop',
    'thund.expectation.positive.passed': '3',
    'thund.expectation.positive.failed': '1',
    'added-records': '3',
  });
});

it('a failing fail expectation exits 1 and commits nothing of its flow', async () => {
  const warehouse = join(work, 'wh-fail');
  const failing = spec('fail', ['      small: {condition: amount < 20, action: fail}'], ['  lake.first:', '    mode: overwrite', '    sql: SELECT id FROM orders']);
  const result = thund(['run', failing, '--warehouse', warehouse]);
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/^thund: error \[EXPECTATION_FAILED\]: Flow "lake\.checked": Expectation "small" failed for 1 row\(s\)/);
  expect(result.stderr).toContain('"amount":30');
  expect(result.stderr).toContain('nothing of this flow was committed');
  // lake.first ran first (declared first, independent) and stays; lake.checked was never created.
  expect(await tableRows(warehouse, 'lake.first', 'id')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
  await expect(tableSnapshots(warehouse, 'lake.checked')).rejects.toThrow(/lake\.checked|checked/);
});

it('a view with expectations is checked once: drop leaves rows out of every reader of the view, counts printed', async () => {
  const warehouse = join(work, 'wh-view');
  const file = writeSpec(work, 'view_expect', [
    'pipeline: view_expect',
    'sources:',
    '  orders: {format: parquet, path: data/orders.parquet}',
    'views:',
    '  paid:',
    '    sql: SELECT id, amount FROM orders',
    '    expectations:',
    '      positive: {condition: amount > 0, action: drop}',
    'tables:',
    '  lake.paid_ids: {mode: overwrite, sql: SELECT id FROM paid}',
  ]);
  const result = thund(['run', file, '--warehouse', warehouse]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout.split('\n')).toContain('  expectation positive (drop): 3 passed, 1 failed (dropped)');
  expect(await tableRows(warehouse, 'lake.paid_ids', 'id')).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }]);
});
