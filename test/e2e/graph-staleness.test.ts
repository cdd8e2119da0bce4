/**
 * A pipeline of several flows through `thund run`: a source feeds a materialized view, a second
 * view reads the first as `lake.clean`, a view reads that, and a third table reads the view. The
 * rows are exact; a second run finds everything up to date; a new source file recomputes only
 * what depends on it; a changed SQL recomputes only its flow; --full-refresh recomputes all;
 * `thund plan --state` says what is stale and why.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thund } from './cli.js';
import { tableRows, tableSnapshots, writeOrders, writeSpec } from './graph-support.js';

let work: string;
let warehouse: string;

function pipeline(bigSql = 'SELECT customer FROM big_customers'): string[] {
  return [
    'pipeline: shop',
    'sources:',
    '  orders: {format: parquet, path: data/orders_*.parquet}',
    '  regions: {format: parquet, path: data/regions.parquet}',
    'tables:',
    '  lake.clean:',
    '    mode: overwrite',
    '    sql: SELECT id, customer, amount FROM orders WHERE amount > 0',
    '  lake.totals:',
    '    mode: overwrite',
    '    sql: SELECT customer, CAST(sum(amount) AS BIGINT) AS total FROM lake.clean GROUP BY customer',
    '  lake.big:',
    '    mode: overwrite',
    `    sql: ${bigSql}`,
    '  lake.region_names:',
    '    mode: overwrite',
    '    sql: SELECT upper(customer) AS region FROM regions',
    'views:',
    '  big_customers:',
    '    sql: SELECT customer, total FROM lake.totals WHERE total >= 20',
  ];
}

const run = (spec: string, ...flags: string[]) => {
  const result = thund(['run', spec, '--warehouse', warehouse, ...flags]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n');
};

const snapshotCount = async (table: string): Promise<number> => (await tableSnapshots(warehouse, table)).length;
const snapshotCounts = (tables: readonly string[]): Promise<number[]> => Promise.all(tables.map(snapshotCount));
const linesOf = (stdout: string[], flow: string): string[] => stdout.filter((line) => line.startsWith(`flow ${flow}:`));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-graph-'));
  warehouse = join(work, 'warehouse');
  mkdirSync(join(work, 'data'));
  await writeOrders(join(work, 'data/orders_1.parquet'), "(1, 'ann', 10), (2, 'bob', -5), (3, 'ann', 15), (4, 'cid', 7)");
  await writeOrders(join(work, 'data/regions.parquet'), "(1, 'north', 0), (2, 'south', 0)");
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a multi-flow batch pipeline', () => {
  it('plans every table as never run before the first run', () => {
    const plan = thund(['plan', writeSpec(work, 'shop', pipeline()), '--state', '--warehouse', warehouse]);
    expect(plan.stderr).toBe('');
    const state = plan.stdout.split('\n').filter((line) => /^ {2}lake\./.test(line));
    expect(state).toEqual([
      '  lake.clean: stale: never run',
      '  lake.totals: stale: never run',
      '  lake.region_names: stale: never run',
      '  lake.big: stale: never run',
    ]);
  });

  it('runs every flow in dependency order with exact rows', async () => {
    const stdout = run(writeSpec(work, 'shop', pipeline()));
    expect(linesOf(stdout, 'lake.clean')[0]).toMatch(/^flow lake\.clean: created lake\.clean — overwrite snapshot \d+, 3 rows/);
    expect(linesOf(stdout, 'big_customers')).toEqual(['flow big_customers: view big_customers defined']);
    expect(await tableRows(warehouse, 'lake.clean', 'id, customer, amount')).toEqual([
      { id: 1, customer: 'ann', amount: 10 },
      { id: 3, customer: 'ann', amount: 15 },
      { id: 4, customer: 'cid', amount: 7 },
    ]);
    expect(await tableRows(warehouse, 'lake.totals', 'customer, total')).toEqual([
      { customer: 'ann', total: '25' },
      { customer: 'cid', total: '7' },
    ]);
    expect(await tableRows(warehouse, 'lake.big', 'customer')).toEqual([{ customer: 'ann' }]);
    expect(await tableRows(warehouse, 'lake.region_names', 'region')).toEqual([{ region: 'NORTH' }, { region: 'SOUTH' }]);
    const summary: Record<string, string> = { ...(await tableSnapshots(warehouse, 'lake.totals'))[0]?.summary };
    expect(summary['thund.flow']).toBe('lake.totals');
    expect(summary['thund.flow.definition-hash']).toMatch(/^[0-9a-f]{64}$/);
    const cleanSnapshot = String((await tableSnapshots(warehouse, 'lake.clean'))[0]?.snapshotId);
    expect(JSON.parse(summary['thund.upstream'] ?? '{}')).toEqual({ 'lake.clean': cleanSnapshot });
    const big = JSON.parse((await tableSnapshots(warehouse, 'lake.big'))[0]?.summary['thund.upstream'] ?? '{}') as Record<string, string>;
    // lake.big reads the view big_customers, which stands for what it reads: lake.totals.
    expect(Object.keys(big)).toEqual(['lake.totals']);
  });

  it('finds everything up to date on a second run and commits nothing', async () => {
    const before = await snapshotCounts(['lake.clean', 'lake.totals', 'lake.big', 'lake.region_names']);
    const stdout = run(writeSpec(work, 'shop', pipeline()));
    for (const flow of ['lake.clean', 'lake.totals', 'lake.big', 'lake.region_names']) {
      expect(linesOf(stdout, flow)).toEqual([expect.stringMatching(new RegExp(`^flow ${flow.replace('.', '\\.')}: ${flow.replace('.', '\\.')} is up to date \\(snapshot \\d+\\)$`))]);
    }
    expect(await snapshotCounts(['lake.clean', 'lake.totals', 'lake.big', 'lake.region_names'])).toEqual(before);
  });

  it('plans and recomputes only what depends on a changed source', async () => {
    await writeOrders(join(work, 'data/orders_2.parquet'), "(5, 'cid', 20)");
    const spec = writeSpec(work, 'shop', pipeline());
    const plan = thund(['plan', spec, '--state', '--warehouse', warehouse]);
    const state = plan.stdout.split('\n').filter((line) => /^ {2}lake\./.test(line));
    expect(state).toEqual([
      '  lake.clean: stale: upstream orders changed (files changed)',
      '  lake.totals: stale: upstream lake.clean will be recomputed first',
      '  lake.region_names: up to date',
      '  lake.big: stale: upstream lake.totals will be recomputed first',
    ]);
    const regions = await snapshotCount('lake.region_names');
    const stdout = run(spec);
    expect(linesOf(stdout, 'lake.region_names')[0]).toMatch(/is up to date/);
    expect(await snapshotCount('lake.region_names')).toBe(regions);
    for (const flow of ['lake.clean', 'lake.totals', 'lake.big']) expect(linesOf(stdout, flow)[0]).toMatch(/updated lake\.\w+ — overwrite snapshot/);
    expect(await tableRows(warehouse, 'lake.totals', 'customer, total')).toEqual([
      { customer: 'ann', total: '25' },
      { customer: 'cid', total: '27' },
    ]);
    expect(await tableRows(warehouse, 'lake.big', 'customer')).toEqual([{ customer: 'ann' }, { customer: 'cid' }]);
  });

  it('recomputes only the flow whose SQL changed', async () => {
    const spec = writeSpec(work, 'shop', pipeline('SELECT customer, total FROM big_customers'));
    const plan = thund(['plan', spec, '--state', '--warehouse', warehouse]);
    expect(plan.stdout).toContain('  lake.big: stale: definition changed');
    expect(plan.stdout).toContain('  lake.totals: up to date');
    const stdout = run(spec);
    for (const flow of ['lake.clean', 'lake.totals', 'lake.region_names']) expect(linesOf(stdout, flow)[0]).toMatch(/is up to date/);
    expect(linesOf(stdout, 'lake.big')[0]).toMatch(/updated lake\.big — overwrite snapshot/);
    expect(stdout).toContain('  schema: added column total long (field id 2)');
    expect(await tableRows(warehouse, 'lake.big', 'customer, total')).toEqual([
      { customer: 'ann', total: '25' },
      { customer: 'cid', total: '27' },
    ]);
  });

  it('recomputes everything with --full-refresh', async () => {
    const tables = ['lake.clean', 'lake.totals', 'lake.big', 'lake.region_names'];
    const before = await snapshotCounts(tables);
    const stdout = run(writeSpec(work, 'shop', pipeline('SELECT customer, total FROM big_customers')), '--full-refresh');
    for (const flow of tables) expect(linesOf(stdout, flow)[0]).toMatch(/updated lake\.\w+ — overwrite snapshot/);
    expect(await snapshotCounts(tables)).toEqual(before.map((count) => count + 1));
  });
});
