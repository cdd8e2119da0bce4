/**
 * Bad input through the CLI: each failure is one clear line naming what is wrong and where,
 * exits non-zero, and changes nothing in the catalog (no table, no new snapshot, no data files).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO, filesUnder, inspect, thund } from './cli.js';

const INPUT = join(REPO, 'examples/quickstart/data/orders.parquet');

let work: string;
let warehouse: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-bad-input-'));
  warehouse = join(work, 'warehouse');
  mkdirSync(join(work, 'data'));
  copyFileSync(INPUT, join(work, 'data/orders.parquet'));
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

function spec(sql: string, options: { path?: string; table?: string } = {}): string {
  const file = join(work, `pipeline-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    [
      'pipeline: bad-input',
      'sources:',
      '  orders:',
      '    format: parquet',
      `    path: ${options.path ?? 'data/orders.parquet'}`,
      'tables:',
      `  ${options.table ?? 'lake.orders'}:`,
      '    mode: append',
      'flows:',
      '  load_orders:',
      `    target: ${options.table ?? 'lake.orders'}`,
      `    sql: ${sql}`,
      '',
    ].join('\n'),
  );
  return file;
}

function expectFailureWithoutChanges(args: string[], ...messageParts: (string | RegExp)[]): string {
  const result = thund(args);
  expect(result.status).not.toBe(0);
  expect(result.stdout).toBe('');
  const firstLine = result.stderr.split('\n')[0] ?? '';
  for (const part of messageParts) expect(firstLine).toMatch(part);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(filesUnder(warehouse).filter((file) => file !== 'catalog.db')).toEqual([]);
  return firstLine;
}

describe('thund run with bad input', () => {
  it('names a pipeline file that does not exist', () => {
    expectFailureWithoutChanges(['run', join(work, 'nope.yaml'), '--warehouse', warehouse], /nope\.yaml/);
  });

  it('names the line and field of a YAML error', () => {
    const file = join(work, 'broken.yaml');
    writeFileSync(file, 'pipeline: x\nsources:\n  orders:\n    format: parquet\n    path: [unclosed\n');
    expectFailureWithoutChanges(['run', file, '--warehouse', warehouse], /broken\.yaml:\d+:\d+/);
    writeFileSync(file, 'pipeline: x\nsources:\n  orders:\n    format: csv\n    path: a.parquet\ntables: {}\nflows: {}\n');
    expectFailureWithoutChanges(['run', file, '--warehouse', warehouse], /broken\.yaml:4:\d+/, /format/);
  });

  it('names a source whose files are missing', () => {
    expectFailureWithoutChanges(['run', spec('SELECT * FROM orders', { path: 'data/missing-*.parquet' }), '--warehouse', warehouse], /orders/, /missing-\*\.parquet/);
  });

  it('names the flow whose SQL is wrong', () => {
    expectFailureWithoutChanges(['run', spec('SELECT no_such_column FROM orders'), '--warehouse', warehouse], /flow "load_orders"/i, /no_such_column/);
  });

  it('names the flow when its SQL fails while rows are written', () => {
    expectFailureWithoutChanges(
      ['run', spec("SELECT id, CAST(CASE WHEN id > 500 THEN 'x' ELSE '1' END AS INTEGER) AS n FROM orders"), '--warehouse', warehouse],
      /load_orders/,
    );
  });

  it('names a column whose type Iceberg cannot represent', () => {
    expectFailureWithoutChanges(['run', spec('SELECT id, INTERVAL 1 DAY AS wait_time FROM orders'), '--warehouse', warehouse], /wait_time/, /INTERVAL/i);
  });

  it('refuses to write into a table whose schema does not fit, leaving it as it was', () => {
    const good = spec('SELECT CAST(id AS BIGINT) AS order_id, customer FROM orders');
    expect(thund(['run', good, '--warehouse', warehouse]).status).toBe(0);
    const before = inspect('lake.orders', warehouse);
    const filesBefore = filesUnder(warehouse);

    const result = thund(['run', spec('SELECT id::VARCHAR AS order_id, customer FROM orders'), '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/lake\.orders/);
    expect(result.stderr).toMatch(/order_id/);
    const after = inspect('lake.orders', warehouse);
    expect(after.metadataLocation).toBe(before.metadataLocation);
    expect(after.snapshots).toHaveLength(1);
    expect(filesUnder(warehouse)).toEqual(filesBefore);
  });

  it('creates no namespace when the run that needed it failed', () => {
    const result = thund(['run', spec("SELECT CAST('x' || id AS INTEGER) AS n FROM orders", { table: 'fresh.t' }), '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(thund(['inspect', 'fresh.t', '--warehouse', warehouse]).stderr).toMatch(/fresh/);
    expect(filesUnder(warehouse).filter((file) => file !== 'catalog.db')).toEqual([]);
  });
});

describe('thund inspect with bad input', () => {
  it('names a table that does not exist', () => {
    const result = thund(['inspect', 'lake.nothing', '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/lake\.nothing/);
  });

  it('rejects a name without a namespace', () => {
    const result = thund(['inspect', 'orders', '--warehouse', warehouse]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/namespace\.table/);
  });
});

describe('thund run with forgiving input', () => {
  it('accepts flow SQL that ends with a semicolon', () => {
    const result = thund(['run', spec('"SELECT id FROM orders;  "'), '--warehouse', warehouse]);
    expect(result.stderr).toBe('');
    expect(Number(inspect('lake.orders', warehouse).rowCount)).toBeGreaterThan(0);
  });
});
