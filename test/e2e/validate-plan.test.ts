/**
 * `thund validate` and `thund plan` through the built CLI: exit codes, the one-line problem
 * format (file:line:col CODE message), and the DAG as text, Mermaid and DOT.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, thund } from './cli.js';

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-validate-plan-'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function spec(name: string, ...lines: string[]): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Declared out of dependency order on purpose: plan must sort it. */
const SHOP = [
  'pipeline: shop', //                                                              1
  'tables:', //                                                                     2
  '  lake.totals:', //                                                              3
  '    sql: SELECT customer, sum(amount) AS total FROM lake.orders GROUP BY ALL', // 4
  '  lake.orders:', //                                                              5
  '    kind: streaming_table', //                                                   6
  '    sql: SELECT * FROM STREAM(raw)', //                                          7
  'sources:', //                                                                    8
  '  raw:', //                                                                      9
  '    format: parquet', //                                                         10
  '    path: data/*.parquet', //                                                    11
];

describe('thund validate', () => {
  it('accepts the quickstart: exit 0 and a count', () => {
    const result = thund(['validate', join(REPO, 'examples/quickstart/pipeline.yaml')]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('ok: 2 datasets, 1 flows\n');
  });

  it('reports every problem, one line each, in file order, and exits 1', () => {
    const file = spec(
      'bad',
      'pipeline: bad', //                                  1
      'sources:', //                                       2
      '  raw: { format: parquet, path: a.parquet }', //    3
      'tables:', //                                        4
      '  lake.a:', //                                      5
      '    sql: SELECT * FROM STREAM(lake.b)', //          6
      '  lake.b:', //                                      7
      '    sql: SELECT * FROM lake.a JOIN rw USING (k)', // 8
    );
    const result = thund(['validate', file]);
    expect(result.status).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      `${file}:5:3 THUND_E_CYCLE datasets depend on each other in a cycle: lake.a → lake.b → lake.a`,
      `${file}:6:10 THUND_E_STREAM_FROM_BATCH flow "lake.a" reads STREAM(lake.b), but materialized view lake.b is not append-only; read it without STREAM()`,
      `${file}:8:10 THUND_E_UNKNOWN_REF flow "lake.b" reads "rw", which is not a declared dataset (did you mean raw?)`,
    ]);
  });

  it('reports spec errors in the same form', () => {
    const file = spec('typo', 'pipeline: t', 'sources:', '  raw: { format: csv, path: a.csv }');
    const result = thund(['validate', file]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^${file.replaceAll('.', '\\.')}:3:\\d+ THUND_E_SPEC sources\\.raw\\.format: `));
  });

  it('names a missing file', () => {
    const result = thund(['validate', join(work, 'nope.yaml')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('nope.yaml: file not found');
  });
});

describe('thund plan', () => {
  it('prints datasets and flows in dependency order as text', () => {
    const result = thund(['plan', spec('shop', ...SHOP)]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('pipeline shop: 3 datasets, 2 flows');
    const position = (text: string): number => lines.findIndex((line) => line.includes(text));
    expect(position('source raw')).toBeLessThan(position('streaming table lake.orders'));
    expect(position('streaming table lake.orders')).toBeLessThan(position('materialized view lake.totals'));
    expect(lines).toContain('  1. lake.orders: STREAM(raw) → lake.orders  [append, output append]');
    expect(lines).toContain('  2. lake.totals: lake.orders → lake.totals  [append, output append]');
  });

  it('--format mermaid: nodes for datasets and flows, a STREAM edge for a streaming read', () => {
    const result = thund(['plan', spec('shop-m', ...SHOP), '--format', 'mermaid']);
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart LR');
    const node = (name: string): string => {
      const line = lines.find((l) => l.includes(`"${name}<br/>`));
      return line?.trim().split(/[[({>]/)[0] ?? '?';
    };
    const [raw, orders, totals] = [node('raw'), node('lake.orders'), node('lake.totals')];
    const flowOrders = lines.find((l) => l.includes('{{"lake.orders<br/>'))?.trim().split('{')[0] ?? '?';
    expect(lines).toContain(`  ${raw} ==>|STREAM| ${flowOrders}`);
    expect(lines).toContain(`  ${flowOrders} --> ${orders}`);
    expect(lines.some((l) => l.trim().startsWith(`${orders} --> `))).toBe(true);
    expect(lines.some((l) => l.trim().endsWith(`--> ${totals}`))).toBe(true);
  });

  it('--format dot: a digraph with one edge per read and write', () => {
    const result = thund(['plan', spec('shop-d', ...SHOP), '--format', 'dot']);
    expect(result.status).toBe(0);
    expect(result.stdout.startsWith('digraph "shop" {\n  rankdir=LR;\n')).toBe(true);
    expect(result.stdout.trimEnd().endsWith('}')).toBe(true);
    const edges = result.stdout.split('\n').filter((line) => line.includes(' -> '));
    expect(edges).toHaveLength(4);
    expect(edges.filter((line) => line.includes('label="STREAM"'))).toHaveLength(1);
  });

  it('an invalid pipeline prints its problems and exits 1; an unknown format is refused', () => {
    const invalid = thund(['plan', spec('bad-plan', 'pipeline: b', 'tables:', '  lake.t: {}')]);
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toMatch(/bad-plan\.yaml:3:3 THUND_E_NO_FLOW /);
    const format = thund(['plan', spec('shop-f', ...SHOP), '--format', 'svg']);
    expect(format.status).not.toBe(0);
    expect(format.stderr).toContain('--format must be one of text, mermaid, dot, got "svg"');
  });
});
