/**
 * The one definition reader with the skeleton's spec (sources, tables with a write mode, flows):
 * what it resolves to in the IR, and that each problem names file:line:column and the field.
 * (Formerly spec.test.ts, for the reader `thund run` used before it ran the IR.)
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { isTableDataset, type SourceDataset, type TableDataset } from '../../../src/pipeline/ir/dataset.js';
import { formatProblem } from '../../../src/pipeline/problems.js';
import { parsePipelineDefinition, type PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { loadPipelineDefinition } from '../../../src/pipeline/definition-file.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

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

function goodWith(n: number, ...replacement: string[]): string {
  return lines(...GOOD.slice(0, n - 1), ...replacement, ...GOOD.slice(n));
}

function definition(text: string, sourceName = 'pipeline.yaml'): PipelineDefinition {
  const result = parsePipelineDefinition(text, sourceName);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.definition;
}

/** The problems as `file:line:col CODE message` lines. */
function problems(text: string): string[] {
  const result = parsePipelineDefinition(text, 'pipeline.yaml');
  if (result.ok) throw new Error('expected the spec to be rejected');
  return result.problems.map(formatProblem);
}

const sources = (d: PipelineDefinition) => d.graph.datasets.filter((x): x is SourceDataset => x.kind === 'source');
const tables = (d: PipelineDefinition) => d.graph.datasets.filter(isTableDataset) as TableDataset[];

describe('the skeleton spec in the IR', () => {
  it('resolves the minimal spec: a parquet source, a materialized view, an append flow', () => {
    const d = definition(lines(...GOOD), '/project/pipes/pipeline.yaml');
    expect(d.graph.name).toBe('demo');
    expect(d.specPath).toBe('/project/pipes/pipeline.yaml');
    expect(sources(d)).toEqual([
      { kind: 'source', name: 'orders', source: { format: 'parquet', paths: ['/project/pipes/data/*.parquet'] }, origin: { file: '/project/pipes/pipeline.yaml', line: 3, column: 3 } },
    ]);
    expect(tables(d).map(({ kind, name, table, origin }) => ({ kind, name, table, origin }))).toEqual([
      {
        kind: 'materialized-view',
        name: 'lake.orders',
        table: { identifier: { namespace: ['lake'], name: 'orders' }, partitioning: [], properties: {} },
        origin: { file: '/project/pipes/pipeline.yaml', line: 7, column: 3 },
      },
    ]);
    expect(d.graph.flows.map(({ name, kind, target, outputMode, query, origin }) => ({ name, kind, target, outputMode, sql: query.text, origin }))).toEqual([
      { name: 'load_orders', kind: 'append', target: 'lake.orders', outputMode: 'append', sql: 'SELECT * FROM orders', origin: { file: '/project/pipes/pipeline.yaml', line: 10, column: 3 } },
    ]);
    expect(d.catalog).toEqual({ type: 'sql' });
  });

  it('accepts path lists, URIs, multi-level namespaces and coerces properties to text', () => {
    const d = definition(
      lines(
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
      ),
      'rel/spec.yaml',
    );
    expect(d.specPath).toBe(path.resolve('rel/spec.yaml'));
    expect(sources(d)[0]?.source).toEqual({ format: 'parquet', paths: [path.resolve('rel/a/one.parquet'), '/abs/two/*.parquet', 's3://bucket/k/*.parquet'] });
    expect(tables(d)[0]?.table.identifier).toEqual({ namespace: ['prod', 'sales'], name: 'orders' });
    expect(tables(d)[0]?.table.properties).toEqual({ 'write.target-file-size-bytes': '536870912', huge: '9007199254740993', ratio: '0.5', flag: 'true', text: 'x' });
    expect(d.graph.flows[0]?.query.text).toBe('SELECT 1\nFROM raw_orders');
  });

  it('maps the write modes to output modes: overwrite → complete, upsert with keys → update', () => {
    expect(definition(goodWith(8, '    mode: overwrite')).graph.flows[0]?.outputMode).toBe('complete');
    const upsert = definition(goodWith(8, '    mode: upsert', '    keys: [order_id, line]'));
    expect(upsert.graph.flows[0]?.outputMode).toBe('update');
    expect(tables(upsert)[0]?.table.keys).toEqual(['order_id', 'line']);
  });

  it('loads the quickstart example', async () => {
    const specPath = path.join(REPO, 'examples/quickstart/pipeline.yaml');
    const loaded = await loadPipelineDefinition(specPath);
    if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
    expect(loaded.definition.specPath).toBe(specPath);
    expect(sources(loaded.definition).map((s) => [s.name, s.source])).toEqual([
      ['orders', { format: 'parquet', paths: [path.join(REPO, 'examples/quickstart/data/orders.parquet')] }],
    ]);
    expect(loaded.definition.graph.flows.map((f) => [f.target, f.outputMode])).toEqual([['lake.orders', 'append']]);
  });
});

describe('skeleton spec problems name file, line:column and field', () => {
  it('upsert without keys, keys without upsert', () => {
    expect(problems(goodWith(8, '    mode: upsert'))).toEqual([
      'pipeline.yaml:8:11 THUND_E_SPEC tables["lake.orders"].mode: mode upsert needs keys: the columns that identify a row, e.g. keys: [order_id]',
    ]);
    expect(problems(goodWith(8, '    mode: append', '    keys: [id]'))).toEqual([
      'pipeline.yaml:9:11 THUND_E_SPEC tables["lake.orders"].keys: keys are used only with mode: upsert (this table\'s mode is append)',
    ]);
  });

  it('unknown top-level key is an error, not ignored', () => {
    const [first] = problems(lines(...GOOD, 'expectations:', '  positive: amount > 0'));
    expect(first).toMatch(/^pipeline\.yaml:13:1 THUND_E_SPEC expectations: unknown field "expectations"/);
  });

  it('a source without a format (misspelt) is reported at the source', () => {
    expect(problems(goodWith(4, '    fromat: parquet'))).toEqual(['pipeline.yaml:3:3 THUND_E_SPEC sources.orders.format: format must be "parquet" or "kafka"']);
  });

  it('a kafka source names a topic or topics; both are read together, each once', () => {
    expect(problems(lines('pipeline: demo', 'sources:', '  orders:', '    format: kafka', 'tables:', '  lake.t:', '    sql: SELECT 1'))).toEqual([
      'pipeline.yaml:3:3 THUND_E_SPEC sources.orders.topic: a kafka source names its topic (topic: name) or topics (topics: [a, b])',
    ]);
    const both = definition(lines('pipeline: demo', 'sources:', '  orders:', '    format: kafka', '    topic: a', '    topics: [b, a]', 'tables:', '  lake.t:', '    sql: SELECT * FROM orders'));
    expect(sources(both)[0]?.source).toMatchObject({ format: 'kafka', topic: 'a', topics: ['a', 'b'] });
  });

  it('a misspelt field in a table is refused, listing the allowed ones', () => {
    expect(problems(goodWith(8, '    mdoe: append'))[0]).toMatch(/^pipeline\.yaml:8:5 THUND_E_SPEC tables\["lake\.orders"\]\.mdoe: unknown field "mdoe" in a table; allowed: kind, mode, keys,/);
  });

  it('missing and empty sql in a flow', () => {
    expect(problems(lines(...GOOD.slice(0, 11)))).toEqual(['pipeline.yaml:10:3 THUND_E_SPEC flows.load_orders: missing required field "sql"']);
    expect(problems(goodWith(12, '    sql: "  "'))[0]).toMatch(/^pipeline\.yaml:12:10 THUND_E_SPEC flows\.load_orders\.sql: sql must not be empty/);
  });

  it('unknown source format and write mode', () => {
    expect(problems(goodWith(4, '    format: csv'))[0]).toMatch(/^pipeline\.yaml:4:13 THUND_E_SPEC sources\.orders\.format: /);
    expect(problems(goodWith(8, '    mode: merge'))).toEqual([
      'pipeline.yaml:8:11 THUND_E_SPEC tables["lake.orders"].mode: mode must be one of: append, overwrite, upsert, got "merge"',
    ]);
  });

  it('names that are not identifiers, tables without a namespace, a bad pipeline name', () => {
    expect(problems(goodWith(3, '  raw-orders:'))[0]).toMatch(/^pipeline\.yaml:3:3 THUND_E_SPEC sources\.raw-orders: name "raw-orders" must be a SQL identifier/);
    const noNamespace = lines(...GOOD.slice(0, 6), '  orders:', ...GOOD.slice(7, 10), '    target: orders', GOOD[11] ?? '');
    expect(problems(noNamespace)[0]).toMatch(/^pipeline\.yaml:7:3 THUND_E_SPEC tables\.orders: table name "orders" must be namespace\.table/);
    expect(problems(goodWith(1, 'pipeline: my pipeline'))[0]).toMatch(/^pipeline\.yaml:1:11 THUND_E_SPEC pipeline: pipeline name may contain only/);
  });

  it('YAML syntax errors, duplicate keys and empty files', () => {
    expect(problems(goodWith(5, '    path: [data/*.parquet'))[0]).toMatch(/^pipeline\.yaml:\d+:\d+ THUND_E_YAML_SYNTAX /);
    expect(problems(goodWith(12, '    sql: SELECT 1', '    sql: SELECT 2'))[0]).toMatch(/^pipeline\.yaml:13:5 THUND_E_YAML_SYNTAX .*Map keys must be unique/);
    expect(problems('')[0]).toMatch(/^pipeline\.yaml:1:1 THUND_E_SPEC the spec must be a mapping/);
  });
});

describe('loadPipelineDefinition', () => {
  it('a missing file names the path', async () => {
    const missing = path.join(tmpdir(), 'thund-no-such-dir', 'pipeline.yaml');
    const error: unknown = await loadPipelineDefinition(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe(`${missing}: file not found (pipeline spec at ${missing})`);
  });

  it('resolves paths from the file folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'thund-spec-'));
    const file = path.join(dir, 'p.yaml');
    await writeFile(file, lines(...GOOD));
    const loaded = await loadPipelineDefinition(file);
    if (!loaded.ok) throw new Error('must load');
    expect(sources(loaded.definition)[0]?.source).toEqual({ format: 'parquet', paths: [path.join(dir, 'data/*.parquet')] });
  });
});
