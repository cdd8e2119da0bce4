/**
 * Expectations on sinks, declared as tables and views declare theirs: the YAML spec and the
 * builder give the same IR as a table's expectations, bad ones are problems at their file:line,
 * duplicate names are found by validate(), and the lowering to SDP reports each one (run by
 * native for a kafka sink, refused for a sink format the native engine does not publish to).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { pipeline } from '../../../src/pipeline/builder.js';
import { findDataset, type PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import type { Expectation } from '../../../src/pipeline/ir/expectation.js';
import { formatProblem, PROBLEM_CODES } from '../../../src/pipeline/problems.js';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { validate } from '../../../src/pipeline/validate.js';
import { lowerYaml } from '../sdp/lower-helpers.js';

const FILE = 'pipeline.yaml';

/** A spec with one sink `alerts` and one table `lake.copy`, both with `expectations` (lines as given). */
function spec(expectations: readonly string[], format = 'kafka'): string {
  return [
    'pipeline: shop', //                                         1
    'sources:', //                                               2
    '  orders: { format: parquet, path: /data/*.parquet }', //  3
    'tables:', //                                                4
    '  lake.copy:', //                                           5
    '    expectations:', //                                      6
    ...expectations.map((line) => `      ${line}`),
    '    sql: SELECT * FROM orders',
    'sinks:',
    '  alerts:',
    `    format: ${format}`,
    '    options: { topic: alerts }',
    '    expectations:',
    ...expectations.map((line) => `      ${line}`),
    'flows:',
    '  publish: { target: alerts, sql: "SELECT * FROM STREAM(orders)" }',
  ].join('\n');
}

/** The line (1-based) of the sink's n-th expectation in spec(expectations). */
const sinkExpectationLine = (expectations: readonly string[], n: number): number => 6 + expectations.length + 6 + n + 1;

function graphOf(text: string): PipelineGraph {
  const result = parsePipelineDefinition(text, FILE);
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.definition.graph;
}

function problemsOf(text: string): string[] {
  const result = parsePipelineDefinition(text, FILE);
  if (result.ok) throw new Error('expected the spec to be rejected');
  return result.problems.map(formatProblem);
}

function expectationsOf(graph: PipelineGraph, name: string): readonly Expectation[] {
  const dataset = findDataset(graph, name);
  if (dataset === undefined || dataset.kind === 'source') throw new Error(`no dataset ${name} with expectations`);
  return dataset.expectations;
}

const withoutOrigin = (expectations: readonly Expectation[]) => expectations.map(({ name, condition, action }) => ({ name, condition, action }));

const GOOD = ['positive: amount > 0', 'has_customer: { condition: customer IS NOT NULL, action: drop }', 'known_kind: { condition: "kind IN (\'a\', \'b\')", action: fail }'];

describe('expectations on a sink in the YAML spec', () => {
  it('parse into the IR exactly as the same expectations on a table, each with its own line', () => {
    const graph = graphOf(spec(GOOD));
    const onSink = expectationsOf(graph, 'alerts');
    expect(onSink.map((e) => e.action)).toEqual(['warn', 'drop', 'fail']);
    expect(withoutOrigin(onSink)).toEqual(withoutOrigin(expectationsOf(graph, 'lake.copy')));
    expect(onSink.map((e) => e.condition)).toEqual(['amount > 0', 'customer IS NOT NULL', "kind IN ('a', 'b')"]);
    expect(onSink.map((e) => [e.origin.file, e.origin.line])).toEqual(GOOD.map((_, n) => [FILE, sinkExpectationLine(GOOD, n)]));
    expect(validate(graph)).toEqual([]);
  });

  it('a sink without expectations has none', () => {
    const graph = graphOf(spec(['positive: amount > 0']).replace(/ {4}expectations:\n {6}positive: amount > 0\nflows:/, 'flows:'));
    expect(expectationsOf(graph, 'alerts')).toEqual([]);
    expect(expectationsOf(graph, 'lake.copy')).toHaveLength(1);
  });

  it('the builder gives the same sink expectations as the spec', () => {
    const built = pipeline('shop')
      .source('orders', { format: 'parquet', paths: ['/data/*.parquet'] })
      .sink('alerts', {
        format: 'kafka',
        options: { topic: 'alerts' },
        expectations: {
          positive: 'amount > 0',
          has_customer: { condition: 'customer IS NOT NULL', action: 'drop' },
          known_kind: { condition: "kind IN ('a', 'b')", action: 'fail' },
        },
      })
      .build();
    const fromBuilder = expectationsOf(built, 'alerts');
    expect(withoutOrigin(fromBuilder)).toEqual(withoutOrigin(expectationsOf(graphOf(spec(GOOD)), 'alerts')));
    expect(fromBuilder.every((e) => e.origin.file.endsWith('sink-expectations.test.ts'))).toBe(true);
  });

  it('an unknown action is a problem at the sink expectation\'s line, naming the field', () => {
    const bad = ['positive: { condition: amount > 0, action: explode }'];
    const problems = problemsOf(spec(bad)).filter((p) => p.includes('sinks.alerts'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${FILE}:${sinkExpectationLine(bad, 0)}:\\d+ ${PROBLEM_CODES.SPEC} sinks\\.alerts\\.expectations\\.positive`));
    expect(problems[0]).toContain('warn | drop | fail');
  });

  it('an empty condition, an unknown field and a list instead of a mapping are located problems', () => {
    const empty = ['positive: ""'];
    expect(problemsOf(spec(empty)).filter((p) => p.includes('sinks.alerts'))).toEqual([
      expect.stringMatching(new RegExp(`^${FILE}:${sinkExpectationLine(empty, 0)}:\\d+ ${PROBLEM_CODES.SPEC} sinks\\.alerts\\.expectations\\.positive: .*must not be empty`)),
    ]);
    const unknown = ['positive: { condition: amount > 0, severity: high }'];
    expect(problemsOf(spec(unknown)).filter((p) => p.includes('sinks.alerts'))).toEqual([
      expect.stringMatching(new RegExp(`^${FILE}:${sinkExpectationLine(unknown, 0)}:\\d+ ${PROBLEM_CODES.SPEC} sinks\\.alerts\\.expectations\\.positive`)),
    ]);
    const listed = spec([]).replace(/ {4}expectations:\nflows:/, '    expectations: [amount > 0]\nflows:');
    const sinkProblems = problemsOf(listed).filter((p) => p.includes('sinks.alerts'));
    expect(sinkProblems).toHaveLength(1);
    expect(sinkProblems[0]).toMatch(new RegExp(`^${FILE}:${listed.split('\n').indexOf('    expectations: [amount > 0]') + 1}:\\d+ ${PROBLEM_CODES.SPEC} sinks\\.alerts\\.expectations`));
  });

  it('two sink expectations whose names differ only in case are a duplicate at the second one', () => {
    const twice = ['positive: amount > 0', 'Positive: amount >= 1'];
    const problems = validate(graphOf(spec(twice))).map(formatProblem);
    const ofSink = problems.filter((p) => p.includes('expectation of alerts'));
    expect(ofSink).toEqual([expect.stringMatching(new RegExp(`^${FILE}:${sinkExpectationLine(twice, 1)}:\\d+ ${PROBLEM_CODES.DUPLICATE_NAME} `))]);
    expect(problems.filter((p) => p.includes('expectation of lake.copy'))).toHaveLength(1);
  });
});

describe('expectations on a sink in the lowering to SDP', () => {
  let session: DuckDbSession;
  beforeAll(async () => {
    session = await DuckDbSession.open({ threads: 1 });
  });
  afterAll(() => session.close());

  it('a kafka sink with expectations, its flow and each expectation are run by native; no create_sink is emitted', async () => {
    const lowered = await lowerYaml(session, spec(GOOD), '4.1', FILE);
    expect(lowered.entry('dataset', 'alerts')).toMatchObject({ status: 'RUN BY NATIVE', reason: expect.stringContaining('3 expectations') });
    expect(lowered.entry('flow', 'publish')).toMatchObject({ status: 'RUN BY NATIVE', reason: 'its target alerts is run by native' });
    for (const [n, name] of ['positive', 'has_customer', 'known_kind'].entries()) {
      const entry = lowered.entry('expectation', `alerts.${name}`);
      expect(entry.status).toBe('RUN BY NATIVE');
      expect(entry.reason).toContain('OSS SDP has no expectations');
      expect(entry.origin.line).toBe(sinkExpectationLine(GOOD, n));
    }
    expect(lowered.allText).not.toContain('create_sink("alerts"');
    expect(lowered.allText).not.toContain('name="publish"');
  });

  it('a batch flow into a kafka sink is run by native (one Kafka transaction); into another format it is refused', async () => {
    const batch = (format: string): string => spec([], format).replace(/ {4}expectations:\n(?= {4}sql| {4}options|flows)/g, '').replace('SELECT * FROM STREAM(orders)', 'SELECT * FROM orders');
    const kafka = await lowerYaml(session, batch('kafka'), '4.1', FILE);
    expect(kafka.entry('flow', 'publish')).toMatchObject({ status: 'RUN BY NATIVE', reason: expect.stringContaining('one Kafka transaction') });
    const delta = await lowerYaml(session, batch('delta'), '4.1', FILE);
    expect(delta.entry('flow', 'publish')).toMatchObject({ status: 'REFUSED', reason: expect.stringContaining('publishes only to kafka sinks') });
  });

  it('a sink of another format with expectations is refused, with its flow and expectations', async () => {
    const lowered = await lowerYaml(session, spec(['positive: amount > 0'], 'delta'), '4.1', FILE);
    expect(lowered.entry('dataset', 'alerts')).toMatchObject({ status: 'REFUSED', reason: expect.stringContaining('format kafka sinks only') });
    expect(lowered.entry('flow', 'publish').status).toBe('REFUSED');
    expect(lowered.entry('expectation', 'alerts.positive')).toMatchObject({ status: 'REFUSED', reason: expect.stringContaining('sink alerts is refused') });
    expect(lowered.allText).not.toContain('create_sink("alerts"');
  });

  it('a sink without expectations is still mapped to dp.create_sink', async () => {
    const text = spec(['positive: amount > 0']).replace(/ {4}expectations:\n {6}positive: amount > 0\nflows:/, 'flows:');
    const lowered = await lowerYaml(session, text, '4.1', FILE);
    expect(lowered.entry('dataset', 'alerts').status).toBe('MAPPED');
    expect(lowered.entry('flow', 'publish').status).toBe('MAPPED');
    expect(lowered.allText).toContain('dp.create_sink("alerts", format="kafka"');
  });
});
