/**
 * The analysis parser's cache answers exactly as DuckDB does: a second parser over the same cache
 * folder gives the same trees, counts and aggregate names without opening DuckDB; a changed text
 * is a miss that DuckDB answers; a corrupt or foreign entry is ignored (and rewritten), never fatal.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedSqlParser } from '../../../src/duckdb/cached-sql-parser.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { SqlParseCache } from '../../../src/duckdb/sql-parse-cache.js';
import type { SqlParser } from '../../../src/pipeline/infer-dependencies.js';

const TEXTS = ['SELECT a, sum(b) FROM lake.orders GROUP BY a', 'SELECT 1; SELECT 2', '-- only a comment', 'INSERT INTO t VALUES (1)', 'SELEC broken FROM'];

let session: DuckDbSession;
let duckDb: SqlParser;
let root: string;

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 1 });
  duckDb = duckDbSqlParser(session);
  root = mkdtempSync(join(tmpdir(), 'thund-sql-parse-cache-'));
});

afterAll(() => {
  session.close();
  rmSync(root, { recursive: true, force: true });
});

async function answers(parser: SqlParser, sql: string): Promise<{ count: number | undefined; tree: unknown }> {
  return { count: await parser.statementCount(sql), tree: await parser.serialize(sql) };
}

/** The folder's entry files (one per SQL text, plus the aggregate names). */
function entryFiles(cacheRoot: string): string[] {
  const [versionDir] = readdirSync(cacheRoot);
  return readdirSync(join(cacheRoot, versionDir as string)).map((file) => join(cacheRoot, versionDir as string, file));
}

describe('cachedSqlParser', () => {
  it('answers from the cache, without DuckDB, what DuckDB answered before', async () => {
    const dir = join(root, 'hit');
    const first = cachedSqlParser(new SqlParseCache(dir));
    for (const sql of TEXTS) expect(await answers(first, sql), sql).toEqual(await answers(duckDb, sql));
    expect(await first.aggregateFunctions()).toEqual(await duckDb.aggregateFunctions());
    expect(first.usedDuckDb).toBe(true);
    await first.close();

    const second = cachedSqlParser(new SqlParseCache(dir));
    for (const sql of TEXTS) expect(await answers(second, sql), sql).toEqual(await answers(duckDb, sql));
    expect(await second.aggregateFunctions()).toEqual(await duckDb.aggregateFunctions());
    expect(second.usedDuckDb).toBe(false);
    await second.close();
  });

  it('asks DuckDB again for a changed SQL text', async () => {
    const dir = join(root, 'changed');
    const first = cachedSqlParser(new SqlParseCache(dir));
    await answers(first, 'SELECT id FROM orders');
    await first.aggregateFunctions();
    await first.close();

    const second = cachedSqlParser(new SqlParseCache(dir));
    const changed = 'SELECT id FROM customers';
    expect(await answers(second, changed)).toEqual(await answers(duckDb, changed));
    expect(second.usedDuckDb).toBe(true);
    await second.close();
  });

  it('keeps entries of another DuckDB release apart', async () => {
    const dir = join(root, 'versions');
    const older = cachedSqlParser(new SqlParseCache(dir, '0.0.1'));
    await answers(older, TEXTS[0] as string);
    await older.close();
    const current = cachedSqlParser(new SqlParseCache(dir));
    await answers(current, TEXTS[0] as string);
    expect(current.usedDuckDb).toBe(true);
    await current.close();
  });

  it('ignores corrupt and foreign entries, answers as DuckDB does and rewrites them', async () => {
    const dir = join(root, 'corrupt');
    const first = cachedSqlParser(new SqlParseCache(dir));
    for (const sql of TEXTS) await answers(first, sql);
    await first.aggregateFunctions();
    await first.close();
    const files = entryFiles(dir);
    files.forEach((file, index) => writeFileSync(file, index % 2 === 0 ? '{"sql": "SELECT 1", "tree' : JSON.stringify({ sql: 42, tree: [] })));

    const second = cachedSqlParser(new SqlParseCache(dir));
    for (const sql of TEXTS) expect(await answers(second, sql), sql).toEqual(await answers(duckDb, sql));
    expect(await second.aggregateFunctions()).toEqual(await duckDb.aggregateFunctions());
    expect(second.usedDuckDb).toBe(true);
    await second.close();

    const third = cachedSqlParser(new SqlParseCache(dir));
    for (const sql of TEXTS) expect(await answers(third, sql), sql).toEqual(await answers(duckDb, sql));
    expect(third.usedDuckDb).toBe(false);
    await third.close();
  });

  it('answers when its folder cannot be written', async () => {
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, '');
    const parser = cachedSqlParser(new SqlParseCache(join(blocked, 'cache')));
    expect(await answers(parser, TEXTS[0] as string)).toEqual(await answers(duckDb, TEXTS[0] as string));
    await parser.close();
  });
});
