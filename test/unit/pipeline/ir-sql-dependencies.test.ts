/**
 * Dependencies inferred from flow SQL by DuckDB's own parser (json_serialize_sql): what a query
 * reads, whether through STREAM(), and whether it aggregates a stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import type { SqlParser } from '../../../src/pipeline/infer-dependencies.js';
import { analyseSerializedSql, type SqlAnalysis } from '../../../src/pipeline/sql-dependencies.js';

let session: DuckDbSession;
let parser: SqlParser;
let aggregates: ReadonlySet<string>;

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  parser = duckDbSqlParser(session);
  aggregates = await parser.aggregateFunctions();
});

afterAll(() => session.close());

const analyse = async (sql: string): Promise<SqlAnalysis> => analyseSerializedSql(await parser.serialize(sql), aggregates);

async function reads(sql: string): Promise<string[]> {
  const analysis = await analyse(sql);
  if (!analysis.ok) throw new Error(`expected ${sql} to parse: ${analysis.message}`);
  return analysis.dependencies.reads.map((read) => (read.streaming ? `STREAM ${read.name}` : read.name));
}

describe('reads', () => {
  it('a plain table and a qualified one', async () => {
    expect(await reads('SELECT * FROM orders')).toEqual(['orders']);
    expect(await reads('SELECT * FROM prod.sales.orders')).toEqual(['prod.sales.orders']);
  });

  it('joins read both sides, in query order', async () => {
    expect(await reads('SELECT * FROM orders o LEFT JOIN lake.customers c ON o.c = c.id CROSS JOIN dim')).toEqual(['orders', 'lake.customers', 'dim']);
  });

  it('quoted names keep their spelling', async () => {
    expect(await reads('SELECT * FROM "Lake"."Order Items"')).toEqual(['Lake.Order Items']);
  });

  it('a CTE name is not a dependency, its body is', async () => {
    expect(await reads('WITH recent AS (SELECT * FROM orders WHERE ts > now()) SELECT * FROM recent JOIN dim USING (k)')).toEqual(['orders', 'dim']);
  });

  it('a later CTE may read an earlier one; a CTE shadows a dataset of the same name only after it is defined', async () => {
    expect(await reads('WITH a AS (SELECT * FROM src), b AS (SELECT * FROM a) SELECT * FROM b')).toEqual(['src']);
    expect(await reads('WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y, z)')).toEqual(['z']);
  });

  it('subqueries in FROM, IN, EXISTS and scalar positions', async () => {
    const sql =
      'SELECT (SELECT max(v) FROM s1) AS m FROM (SELECT * FROM s2) t WHERE k IN (SELECT k FROM s3) AND EXISTS (SELECT 1 FROM s4 WHERE s4.k = t.k)';
    expect((await reads(sql)).sort()).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('set operations read every branch', async () => {
    expect(await reads('SELECT * FROM a UNION ALL SELECT * FROM b EXCEPT SELECT * FROM c')).toEqual(['a', 'b', 'c']);
  });

  it('STREAM(x) is a streaming read, qualified or quoted', async () => {
    expect(await reads('SELECT * FROM STREAM(events) e JOIN dim d ON e.k = d.k')).toEqual(['STREAM events', 'dim']);
    expect(await reads('SELECT * FROM stream(lake.events)')).toEqual(['STREAM lake.events']);
    expect(await reads('SELECT * FROM STREAM("Raw Events")')).toEqual(['STREAM Raw Events']);
  });

  it('table functions such as read_parquet are not datasets', async () => {
    expect(await reads("SELECT * FROM read_parquet('x.parquet') JOIN dim USING (k)")).toEqual(['dim']);
  });
});

describe('stateful aggregation over a stream', () => {
  const aggregatesStream = async (sql: string): Promise<boolean> => {
    const analysis = await analyse(sql);
    if (!analysis.ok) throw new Error(analysis.message);
    return analysis.dependencies.aggregatesStream;
  };

  it('GROUP BY, GROUP BY ALL and a bare aggregate over STREAM() aggregate the stream', async () => {
    expect(await aggregatesStream('SELECT k, sum(v) FROM STREAM(ev) GROUP BY k')).toBe(true);
    expect(await aggregatesStream('SELECT k, sum(v) FROM STREAM(ev) GROUP BY ALL')).toBe(true);
    expect(await aggregatesStream('SELECT count(*) FROM STREAM(ev)')).toBe(true);
    expect(await aggregatesStream('WITH s AS (SELECT * FROM STREAM(ev)) SELECT k, count(*) FROM s GROUP BY k')).toBe(true);
  });

  it('a batch aggregation, a window function or a scalar function over a stream does not', async () => {
    expect(await aggregatesStream('SELECT k, sum(v) FROM ev GROUP BY k')).toBe(false);
    expect(await aggregatesStream('SELECT k, sum(v) OVER (PARTITION BY k) FROM STREAM(ev)')).toBe(false);
    expect(await aggregatesStream('SELECT upper(k) FROM STREAM(ev) WHERE v > (SELECT avg(v) FROM dim)')).toBe(false);
  });
});

describe('queries that are not one SELECT', () => {
  it('a syntax error carries DuckDB message and position', async () => {
    const analysis = await analyse('SELECT FROM WHERE');
    expect(analysis).toMatchObject({ ok: false, position: 12 });
    expect(analysis.ok ? '' : analysis.message).toMatch(/syntax error at or near "WHERE"/);
  });

  it("Spark's STREAM x without parentheses is refused with the fix, not read as a table named STREAM", async () => {
    expect(await analyse('SELECT * FROM STREAM events')).toEqual({
      ok: false,
      message: 'write STREAM(events) with parentheses: "STREAM events" reads a table named STREAM',
      position: 14,
    });
  });

  it('two statements, or a statement that is not a query', async () => {
    expect(await analyse('SELECT 1; SELECT 2')).toEqual({ ok: false, message: 'a flow is one SELECT query; found 2 statements' });
    const insert = await analyse('INSERT INTO t SELECT 1');
    expect(insert.ok).toBe(false);
  });
});
