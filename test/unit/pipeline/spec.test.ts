import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { loadPipelineSpec, parsePipelineSpec, type PipelineSpec } from '../../../src/pipeline/spec.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

/** Lines joined with "\n": line N of the file is element N-1, so expected positions are readable. */
const lines = (...text: string[]): string => `${text.join('\n')}\n`;

const GOOD = [
  'pipeline: demo', //                              1
  'sources:', //                                    2
  '  orders:', //                                   3
  '    format: parquet', //                         4
  '    path: data/*.parquet', //                    5
  'tables:', //                                     6
  '  lake.orders:', //                              7
  '    mode: append', //                            8
  'flows:', //                                      9
  '  load_orders:', //                              10
  '    target: lake.orders', //                     11
  '    sql: SELECT * FROM orders', //               12
];

function specError(text: string, sourceName = 'pipeline.yaml'): InvalidInputError {
  try {
    parsePipelineSpec(text, sourceName);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected the spec to be rejected');
}

/** GOOD with line `n` (1-based) replaced by `replacement` (which may span lines). */
function goodWith(n: number, ...replacement: string[]): string {
  return lines(...GOOD.slice(0, n - 1), ...replacement, ...GOOD.slice(n));
}

describe('parsePipelineSpec: valid specs', () => {
  it('resolves the minimal spec', () => {
    const spec: PipelineSpec = parsePipelineSpec(lines(...GOOD), '/project/pipes/pipeline.yaml');
    expect(spec.name).toBe('demo');
    expect(spec.specPath).toBe('/project/pipes/pipeline.yaml');
    expect(spec.sources).toEqual([
      {
        name: 'orders',
        format: 'parquet',
        paths: ['/project/pipes/data/*.parquet'],
        origin: { file: '/project/pipes/pipeline.yaml', line: 3, column: 3 },
      },
    ]);
    expect(spec.tables).toEqual([
      {
        key: 'lake.orders',
        identifier: { namespace: ['lake'], name: 'orders' },
        mode: 'append',
        properties: {},
        origin: { file: '/project/pipes/pipeline.yaml', line: 7, column: 3 },
      },
    ]);
    expect(spec.flows).toEqual([
      {
        name: 'load_orders',
        target: 'lake.orders',
        targetIdentifier: { namespace: ['lake'], name: 'orders' },
        sql: 'SELECT * FROM orders',
        origin: { file: '/project/pipes/pipeline.yaml', line: 10, column: 3 },
      },
    ]);
  });

  it('accepts path lists, URIs, multi-level namespaces, a default mode and coerces properties to text', () => {
    const text = lines(
      'pipeline: multi-level_1',
      'sources:',
      '  raw_orders:',
      '    format: parquet',
      '    path: [a/one.parquet, /abs/two/*.parquet, "s3://bucket/k/*.parquet"]',
      'tables:',
      '  prod.sales.orders:',
      '    properties:',
      '      write.target-file-size-bytes: 536870912',
      '      huge: 9007199254740993',
      '      ratio: 0.5',
      '      flag: true',
      '      text: "x"',
      'flows:',
      '  f:',
      '    target: prod.sales.orders',
      '    sql: |',
      '      SELECT 1',
      '      FROM raw_orders',
    );
    const spec = parsePipelineSpec(text, 'rel/spec.yaml');
    expect(spec.specPath).toBe(path.resolve('rel/spec.yaml'));
    expect(spec.sources[0]?.paths).toEqual([
      path.resolve('rel/a/one.parquet'),
      '/abs/two/*.parquet',
      's3://bucket/k/*.parquet',
    ]);
    expect(spec.tables[0]?.identifier).toEqual({ namespace: ['prod', 'sales'], name: 'orders' });
    expect(spec.tables[0]?.mode).toBe('append');
    expect(spec.tables[0]?.properties).toEqual({
      'write.target-file-size-bytes': '536870912',
      huge: '9007199254740993',
      ratio: '0.5',
      flag: 'true',
      text: 'x',
    });
    expect(spec.flows[0]?.sql).toBe('SELECT 1\nFROM raw_orders');
    expect(spec.flows[0]?.targetIdentifier).toEqual({ namespace: ['prod', 'sales'], name: 'orders' });
  });

  it('accepts overwrite mode', () => {
    expect(parsePipelineSpec(goodWith(8, '    mode: overwrite'), 'p.yaml').tables[0]?.mode).toBe('overwrite');
  });

  it('loads the quickstart example, whose input file exists', async () => {
    const specPath = path.join(REPO, 'examples/quickstart/pipeline.yaml');
    const spec = await loadPipelineSpec(specPath);
    expect(spec.name).toBe('quickstart');
    expect(spec.specPath).toBe(specPath);
    expect(spec.sources.map((s) => [s.name, s.paths])).toEqual([
      ['orders', [path.join(REPO, 'examples/quickstart/data/orders.parquet')]],
    ]);
    expect(spec.tables.map((t) => [t.identifier, t.mode])).toEqual([[{ namespace: ['lake'], name: 'orders' }, 'append']]);
    expect(spec.flows[0]?.target).toBe('lake.orders');
    expect(spec.flows[0]?.sql).toMatch(/FROM orders$/);
  });
});

describe('parsePipelineSpec: errors name file, line:column and field', () => {
  it('flow target that is not a declared table, with a suggestion', () => {
    const error = specError(goodWith(11, '    target: lake.ordrs'));
    expect(error.message).toBe(
      'pipeline.yaml:11:13: flows.load_orders.target: "lake.ordrs" is not a table declared under "tables" (did you mean lake.orders?)',
    );
    expect(error.context).toMatchObject({ file: 'pipeline.yaml', line: 11, column: 13, field: 'flows.load_orders.target' });
  });

  it('flow target far from every table: no suggestion', () => {
    const error = specError(goodWith(11, '    target: other.thing'));
    expect(error.message).toBe('pipeline.yaml:11:13: flows.load_orders.target: "other.thing" is not a table declared under "tables"');
  });

  it('unknown top-level key is an error, not ignored', () => {
    const error = specError(lines(...GOOD, 'expectations:', '  positive: amount > 0'));
    expect(error.message).toMatch(/^pipeline\.yaml:13:1: expectations: unknown field "expectations"/);
    expect(error.message).toContain('allowed: pipeline, sources, tables, flows');
  });

  it('misspelt top-level key suggests the right one and reports the missing one', () => {
    const text = lines(...GOOD.slice(0, 8), 'flow:', ...GOOD.slice(9));
    const error = specError(text);
    const messages = error.message.split('\n');
    expect(messages).toContain('pipeline.yaml:1:1: missing required field "flows"');
    expect(messages.some((m) => m.startsWith('pipeline.yaml:9:1: flow: unknown field "flow"') && m.includes('(did you mean flows?)'))).toBe(true);
  });

  it('misspelt field in a source', () => {
    const error = specError(goodWith(4, '    fromat: parquet'));
    const messages = error.message.split('\n');
    expect(messages[0]).toBe('pipeline.yaml:3:3: sources.orders: missing required field "format"');
    expect(messages[1]).toMatch(/^pipeline\.yaml:4:5: sources\.orders\.fromat: unknown field "fromat" in a source \(did you mean format\?\)/);
  });

  it('missing sql in a flow points at the flow', () => {
    const error = specError(lines(...GOOD.slice(0, 11)));
    expect(error.message).toBe('pipeline.yaml:10:3: flows.load_orders: missing required field "sql"');
  });

  it('empty sql', () => {
    expect(specError(goodWith(12, '    sql: "  "')).message).toMatch(/^pipeline\.yaml:12:10: flows\.load_orders\.sql: sql must not be empty/);
  });

  it('unsupported source format', () => {
    expect(specError(goodWith(4, '    format: csv')).message).toBe(
      'pipeline.yaml:4:13: sources.orders.format: format must be "parquet" (the only source format so far), got "csv"',
    );
  });

  it('empty path list and wrong path type', () => {
    expect(specError(goodWith(5, '    path: []')).message).toMatch(/^pipeline\.yaml:5:11: sources\.orders\.path: path list must not be empty/);
    expect(specError(goodWith(5, '    path: {a: 1}')).message).toMatch(/^pipeline\.yaml:5:11: sources\.orders\.path: path must be a path or glob/);
  });

  it('unknown write mode', () => {
    expect(specError(goodWith(8, '    mode: merge')).message).toBe(
      'pipeline.yaml:8:11: tables["lake.orders"].mode: mode must be one of: append, overwrite, upsert, got "merge"',
    );
  });

  it('null table property value', () => {
    const error = specError(goodWith(8, '    properties:', '      write.format.default:'));
    expect(error.message).toMatch(/^pipeline\.yaml:9:7: tables\["lake\.orders"\]\.properties\["write\.format\.default"\]: a table property value must be/);
  });

  it('more than one flow', () => {
    const error = specError(lines(...GOOD, '  load_more:', '    target: lake.orders', '    sql: SELECT 2'));
    expect(error.message).toBe(
      'pipeline.yaml:13:3: flows.load_more: only one flow per pipeline is supported so far; found 2 (load_orders, load_more)',
    );
  });

  it('more than one table', () => {
    const error = specError(goodWith(8, '    mode: append', '  lake.customers: {}'));
    expect(error.message).toMatch(/^pipeline\.yaml:9:3: tables\["lake\.customers"\]: only one table per pipeline is supported so far; found 2/);
  });

  it('no flows at all', () => {
    expect(specError(lines(...GOOD.slice(0, 8), 'flows: {}')).message).toBe('pipeline.yaml:9:8: flows: declare exactly one flow');
  });

  it('source name that is not a SQL identifier', () => {
    expect(specError(goodWith(3, '  raw-orders:')).message).toMatch(
      /^pipeline\.yaml:3:3: sources\.raw-orders: source name "raw-orders" must be a SQL identifier/,
    );
  });

  it('source names that differ only in case', () => {
    const text = goodWith(5, '    path: a.parquet', '  Orders:', '    format: parquet', '    path: b.parquet');
    expect(specError(text).message).toBe('pipeline.yaml:6:3: sources.Orders: source "Orders" clashes with "orders" (SQL names ignore case)');
  });

  it('table name without a namespace', () => {
    const text = lines(...GOOD.slice(0, 6), '  orders:', ...GOOD.slice(7, 10), '    target: orders', GOOD[11] ?? '');
    expect(specError(text).message).toMatch(/^pipeline\.yaml:7:3: tables\.orders: table name "orders" must be namespace\.table/);
  });

  it('bad pipeline name', () => {
    expect(specError(goodWith(1, 'pipeline: my pipeline')).message).toMatch(/^pipeline\.yaml:1:11: pipeline: pipeline name may contain only/);
  });

  it('YAML syntax error with its position', () => {
    const error = specError(goodWith(5, '    path: [data/*.parquet'));
    expect(error.message).toMatch(/^pipeline\.yaml:\d+:\d+: YAML syntax error: /);
    expect(error.context['line']).toBeGreaterThanOrEqual(5);
  });

  it('bad indentation is a syntax error on its line', () => {
    const error = specError(goodWith(12, '   sql: SELECT 1'));
    expect(error.message).toMatch(/^pipeline\.yaml:12:\d+: YAML syntax error: /);
  });

  it('duplicate keys are a syntax error at the second key', () => {
    const error = specError(goodWith(12, '    sql: SELECT 1', '    sql: SELECT 2'));
    expect(error.message).toMatch(/^pipeline\.yaml:13:5: YAML syntax error: Map keys must be unique/);
  });

  it('empty file and non-mapping document', () => {
    expect(specError('').message).toBe('pipeline.yaml:1:1: the spec is empty; expected the fields pipeline, sources, tables, flows');
    expect(specError('- a\n- b\n').message).toMatch(/^pipeline\.yaml:1:1: the spec must be a mapping/);
  });
});

describe('loadPipelineSpec', () => {
  it('missing file names the path', async () => {
    const missing = path.join(tmpdir(), 'thund-no-such-dir', 'pipeline.yaml');
    const error: unknown = await loadPipelineSpec(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe(`${missing}: file not found (pipeline spec at ${missing})`);
  });

  it('names the file as given in errors and resolves paths from its folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'thund-spec-'));
    const file = path.join(dir, 'p.yaml');
    await writeFile(file, lines(...GOOD));
    expect((await loadPipelineSpec(file)).sources[0]?.paths).toEqual([path.join(dir, 'data/*.parquet')]);
    await writeFile(file, goodWith(11, '    target: lake.ordrs'));
    await expect(loadPipelineSpec(file)).rejects.toThrow(`${file}:11:13: flows.load_orders.target:`);
  });
});
