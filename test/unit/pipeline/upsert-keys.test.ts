/**
 * Table keys: a batch flow in output mode update upserts by them (so it needs them), and keys on a
 * table whose flows do not update are THUND_E_UPSERT_KEYS, as `keys` without `mode: upsert` is in
 * the YAML spec.
 */
import { describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { parquet, pipeline } from '../../../src/pipeline/builder.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import type { PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { PROBLEM_CODES } from '../../../src/pipeline/problems.js';
import { validate } from '../../../src/pipeline/validate.js';

async function codes(graph: PipelineGraph): Promise<string[]> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const inferred = await inferDependencies(graph, duckDbSqlParser(session));
    return validate(inferred.graph).map((problem) => `${problem.code} ${problem.message}`);
  } finally {
    session.close();
  }
}

const base = () => pipeline('p').source('orders', parquet('/data/*.parquet'));

describe('upsert keys', () => {
  it('a batch update into a keyed table is valid', async () => {
    expect(await codes(base().materializedView('lake.latest', { keys: ['id'], outputMode: 'update', sql: 'SELECT id, v FROM orders' }).build())).toEqual([]);
  });

  it('a batch update into a table without keys is refused', async () => {
    expect(await codes(base().materializedView('lake.latest', { outputMode: 'update', sql: 'SELECT id, v FROM orders' }).build())).toEqual([
      `${PROBLEM_CODES.STREAMING_SETTING} flow "lake.latest" is a batch query: output mode update needs a streaming read`,
    ]);
  });

  it('keys on a table written in another output mode are THUND_E_UPSERT_KEYS', async () => {
    expect(await codes(base().materializedView('lake.latest', { keys: ['id'], outputMode: 'complete', sql: 'SELECT id, v FROM orders' }).build())).toEqual([
      `${PROBLEM_CODES.UPSERT_KEYS} flow "lake.latest" writes materialized view lake.latest in output mode complete, but the table's keys are used only by output mode update (mode: upsert)`,
    ]);
  });

  it('a key missing from the declared schema is an unknown column', async () => {
    const graph = base().materializedView('lake.latest', { keys: ['idd'], outputMode: 'update', schema: { id: 'long', v: 'string' }, sql: 'SELECT id, v FROM orders' }).build();
    expect(await codes(graph)).toEqual([
      `${PROBLEM_CODES.UNKNOWN_COLUMN} key of lake.latest names column "idd", which the declared schema does not have (did you mean id?)`,
    ]);
  });
});
