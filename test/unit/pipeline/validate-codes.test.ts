/**
 * Every validation code, each reported with the origin (file:line:column) of the element at
 * fault, from YAML definitions parsed, analysed by DuckDB's parser and validated as `thund validate` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import { formatProblem, PROBLEM_CODES, sortProblems } from '../../../src/pipeline/problems.js';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { validate } from '../../../src/pipeline/validate.js';

let session: DuckDbSession;

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
});

afterAll(() => session.close());

/** Line N of the spec is element N-1. */
async function problems(...lines: string[]): Promise<string[]> {
  const parsed = parsePipelineDefinition(`${lines.join('\n')}\n`, 'p.yaml');
  if (!parsed.ok) return parsed.problems.map(formatProblem);
  const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session));
  return sortProblems([...inferred.problems, ...validate(inferred.graph)]).map(formatProblem);
}

const SOURCE = [
  'pipeline: p', //                                   1
  'sources:', //                                      2
  '  events:', //                                     3
  '    format: parquet', //                           4
  '    path: /data/e.parquet', //                     5
];

describe('a valid pipeline', () => {
  it('has no problems', async () => {
    expect(
      await problems(
        ...SOURCE,
        '    schema: { ts: timestamp, k: string }',
        '    watermark: { column: ts, delay: 1 minute }',
        'tables:',
        '  lake.counts:',
        '    kind: streaming_table',
        '    partitioned_by: ["day(ts)"]',
        '    schema: { ts: timestamp, k: string, n: long }',
        '    sql: SELECT ts, k, count(*) AS n FROM STREAM(events) GROUP BY ALL',
      ),
    ).toEqual([]);
  });
});

describe('each code with its origin', () => {
  it(PROBLEM_CODES.SPEC, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.t:', '    kind: view', '    sql: SELECT 1')).toEqual([
      'p.yaml:8:11 THUND_E_SPEC tables["lake.t"].kind: kind must be materialized_view or streaming_table, got "view"',
    ]);
  });

  it(PROBLEM_CODES.YAML_SYNTAX, async () => {
    const [line] = await problems(...SOURCE, 'tables: [unclosed');
    expect(line).toMatch(/^p\.yaml:\d+:\d+ THUND_E_YAML_SYNTAX YAML syntax error: /);
  });

  it(PROBLEM_CODES.DUPLICATE_NAME, async () => {
    expect(
      await problems(
        ...SOURCE,
        '  Events:', //                                     6
        '    format: parquet', //                           7
        '    path: /data/e2.parquet', //                    8
        'tables:', //                                       9
        '  lake.st:', //                                    10
        '    kind: streaming_table', //                     11
        '    expectations: { ok: k > 0, OK: k < 9 }', //    12
        'flows:', //                                        13
        '  f:', //                                          14
        '    target: lake.st', //                           15
        '    sql: SELECT * FROM STREAM(events)', //         16
        '  F:', //                                          17
        '    target: lake.st', //                           18
        '    sql: SELECT * FROM STREAM(events)', //         19
      ),
    ).toEqual([
      'p.yaml:6:3 THUND_E_DUPLICATE_NAME source "Events" is already declared as "events" (names ignore case)',
      'p.yaml:12:32 THUND_E_DUPLICATE_NAME expectation of lake.st "OK" is already declared as "ok" (names ignore case)',
      'p.yaml:17:3 THUND_E_DUPLICATE_NAME flow "F" is already declared as "f" (names ignore case)',
    ]);
  });

  it(`${PROBLEM_CODES.UNKNOWN_REF}: a target and a read, with suggestions`, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.t:', '    sql: SELECT * FROM evnts', 'flows:', '  f:', '    target: lake.tt', '    sql: SELECT 1')).toEqual([
      'p.yaml:8:10 THUND_E_UNKNOWN_REF flow "lake.t" reads "evnts", which is not a declared dataset (did you mean events?)',
      'p.yaml:10:3 THUND_E_UNKNOWN_REF flow "f" writes "lake.tt", which is not a declared table, view or sink (did you mean lake.t?)',
    ]);
  });

  it(PROBLEM_CODES.CYCLE, async () => {
    expect(await problems(...SOURCE, 'views:', '  a:', '    sql: SELECT * FROM b', '  b:', '    sql: SELECT * FROM a JOIN events USING (k)')).toEqual([
      'p.yaml:7:3 THUND_E_CYCLE datasets depend on each other in a cycle: a → b → a',
    ]);
  });

  it(PROBLEM_CODES.STREAM_FROM_BATCH, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.mv:', '    sql: SELECT * FROM events', '  lake.st:', '    kind: streaming_table', '    sql: SELECT * FROM STREAM(lake.mv)')).toEqual([
      'p.yaml:11:10 THUND_E_STREAM_FROM_BATCH flow "lake.st" reads STREAM(lake.mv), but materialized view lake.mv is not append-only; read it without STREAM()',
    ]);
  });

  it(PROBLEM_CODES.AGG_APPEND_NO_WATERMARK, async () => {
    const lines = [...SOURCE, 'tables:', '  lake.c:', '    kind: streaming_table', '    sql: SELECT k, count(*) FROM STREAM(events) GROUP BY k'];
    expect(await problems(...lines)).toEqual([
      'p.yaml:7:3 THUND_E_AGG_APPEND_NO_WATERMARK flow "lake.c" aggregates a stream in append output mode without a watermark, so no group could ever be final: add a watermark (on the flow or its source) or use output mode update or complete',
    ]);
    expect(await problems(...lines, '    output_mode: update')).toEqual([]);
    expect(await problems(...lines, '    watermark: { column: ts, delay: 5 seconds }')).toEqual([]);
  });

  it(`${PROBLEM_CODES.TYPE_MISMATCH}: watermark on text, day() of a long, unordered sequence`, async () => {
    expect(
      await problems(
        ...SOURCE,
        '    schema: { ts: string, k: long }', //                       6
        '    watermark: { column: ts, delay: 1 minute }', //            7
        'tables:', //                                                   8
        '  lake.t:', //                                                 9
        '    partitioned_by: ["day(k)"]', //                            10
        '    schema: { k: long }', //                                   11
        '    sql: SELECT k FROM events', //                             12
        '  lake.cdc:', //                                               13
        '    kind: streaming_table', //                                 14
        '    schema: { k: long, seq: boolean }', //                     15
        '    apply_changes: { keys: [k], sequence_by: seq }', //        16
        '    sql: SELECT * FROM STREAM(events)', //                     17
      ),
    ).toEqual([
      'p.yaml:3:3 THUND_E_TYPE_MISMATCH watermark of source "events": column "ts" has type Utf8; an event-time watermark needs a timestamp or date',
      'p.yaml:9:3 THUND_E_TYPE_MISMATCH partition term day(k) of lake.t: day does not apply to column "k" of type Int64',
      'p.yaml:13:3 THUND_E_TYPE_MISMATCH apply-changes flow "lake.cdc": sequence_by column "seq" has type Bool, which has no order',
    ]);
  });

  it(PROBLEM_CODES.UNKNOWN_COLUMN, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.t:', '    partitioned_by: [tss]', '    schema: { ts: timestamp }', '    sql: SELECT ts FROM events')).toEqual([
      'p.yaml:7:3 THUND_E_UNKNOWN_COLUMN partition term tss of lake.t names column "tss", which the declared schema does not have (did you mean ts?)',
    ]);
  });

  it(PROBLEM_CODES.WRITE_TO_SOURCE, async () => {
    expect(await problems(...SOURCE, 'flows:', '  back:', '    target: events', '    sql: SELECT 1')).toEqual([
      'p.yaml:7:3 THUND_E_WRITE_TO_SOURCE flow "back" writes source "events"; sources are read, never written',
    ]);
  });

  it(PROBLEM_CODES.READ_FROM_SINK, async () => {
    expect(await problems(...SOURCE, 'sinks:', '  out:', '    format: kafka', 'tables:', '  lake.t:', '    sql: SELECT * FROM out', 'flows:', '  to_out:', '    target: out', '    sql: SELECT * FROM events')).toEqual([
      'p.yaml:11:10 THUND_E_READ_FROM_SINK flow "lake.t" reads sink "out"; a sink can only be written',
    ]);
  });

  it(PROBLEM_CODES.NO_FLOW, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.empty: {}')).toEqual([
      'p.yaml:7:3 THUND_E_NO_FLOW materialized view lake.empty has no flow writing it: give it sql, or add a flow with target lake.empty',
    ]);
  });

  it(PROBLEM_CODES.MULTIPLE_FLOWS, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.mv:', '    sql: SELECT * FROM events', 'flows:', '  more:', '    target: lake.mv', '    sql: SELECT * FROM events')).toEqual([
      'p.yaml:10:3 THUND_E_MULTIPLE_FLOWS materialized view lake.mv is written by 2 flows (lake.mv, more); it is defined by exactly one query — use a streaming table for several flows',
    ]);
  });

  it(`${PROBLEM_CODES.APPLY_CHANGES_TARGET} and ${PROBLEM_CODES.SCD_OPTION}`, async () => {
    expect(
      await problems(
        ...SOURCE,
        'tables:',
        '  lake.mv:',
        '    apply_changes: { keys: [k], sequence_by: s, apply_as_truncates: "op = \'t\'", stored_as_scd_type: 2 }',
        '    sql: SELECT * FROM STREAM(events)',
        '  lake.st:',
        '    kind: streaming_table',
        '    apply_changes: { keys: [k], sequence_by: s, track_history_column_list: [v] }',
        '    sql: SELECT * FROM STREAM(events)',
      ),
    ).toEqual([
      'p.yaml:7:3 THUND_E_APPLY_CHANGES_TARGET apply-changes flow "lake.mv" writes materialized view lake.mv; its target must be a streaming table',
      'p.yaml:7:3 THUND_E_SCD_OPTION apply-changes flow "lake.mv": apply_as_truncates works only with SCD type 1',
      'p.yaml:10:3 THUND_E_SCD_OPTION apply-changes flow "lake.st": track-history columns need SCD type 2',
    ]);
  });

  it(PROBLEM_CODES.BATCH_INTO_STREAMING_TABLE, async () => {
    const lines = [...SOURCE, 'tables:', '  lake.st:', '    kind: streaming_table', '    sql: SELECT * FROM events'];
    expect(await problems(...lines)).toEqual([
      'p.yaml:7:3 THUND_E_BATCH_INTO_STREAMING_TABLE flow "lake.st" writes streaming table lake.st but reads no stream: read its input with STREAM(…), or make it a once flow',
    ]);
    expect(await problems(...lines, '    once: true')).toEqual([]);
  });

  it(PROBLEM_CODES.STREAMING_SETTING, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.mv:', '    output_mode: update', '    trigger: { processing_time: 10 seconds }', '    sql: SELECT * FROM events')).toEqual([
      'p.yaml:7:3 THUND_E_STREAMING_SETTING flow "lake.mv" is a batch query: a trigger or watermark needs a streaming read',
      'p.yaml:7:3 THUND_E_STREAMING_SETTING flow "lake.mv" is a batch query: output mode update needs a streaming read',
    ]);
  });

  it(PROBLEM_CODES.SQL_SYNTAX, async () => {
    expect(await problems(...SOURCE, 'tables:', '  lake.t:', '    sql: |', '      SELECT *', '      FROM events WHERE')).toEqual([
      'p.yaml:8:10 THUND_E_SQL_SYNTAX table "lake.t": syntax error at end of input (at line 2, column 18 of its SQL)',
    ]);
  });
});

describe('all problems at once', () => {
  it('reports problems of different elements together, in file order', async () => {
    const found = await problems(...SOURCE, 'tables:', '  lake.a: {}', '  lake.b:', '    sql: SELECT * FROM nowhere', 'flows:', '  f:', '    target: events', '    sql: SELECT 1');
    expect(found.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'p.yaml:7:3 THUND_E_NO_FLOW',
      'p.yaml:9:10 THUND_E_UNKNOWN_REF',
      'p.yaml:11:3 THUND_E_WRITE_TO_SOURCE',
    ]);
  });
});
