/**
 * The SqlParser that analyses a pipeline: DuckDB's parser behind a SqlParseCache. DuckDB is
 * loaded and a session opened only when the cache lacks an answer, so a pipeline analysed before
 * (same SQL texts, same DuckDB) is analysed without DuckDB. Close the parser when done.
 */
import type { SqlParser } from '../pipeline/infer-dependencies.js';
import type { ParsedSql, SqlParseCache } from './sql-parse-cache.js';
import type { DuckDbSession } from './session.js';

export interface CachedSqlParser extends SqlParser {
  /** Whether some answer had to come from DuckDB (the cache did not hold it). */
  readonly usedDuckDb: boolean;
  close(): Promise<void>;
}

export function cachedSqlParser(cache: SqlParseCache): CachedSqlParser {
  let session: Promise<DuckDbSession> | undefined;
  const duckDbParser = async (): Promise<SqlParser> => {
    session ??= import('./session.js').then(({ DuckDbSession }) => DuckDbSession.open({ threads: 1 }));
    const { duckDbSqlParser } = await import('./sql-parser.js');
    return duckDbSqlParser(await session);
  };
  const parsed = async (sql: string): Promise<ParsedSql> => {
    const known = cache.parsed(sql);
    if (known !== undefined) return known;
    const parser = await duckDbParser();
    const found: ParsedSql = { statementCount: await parser.statementCount(sql), tree: await parser.serialize(sql) };
    cache.storeParsed(sql, found);
    return found;
  };
  return {
    get usedDuckDb() {
      return session !== undefined;
    },
    serialize: async (sql) => (await parsed(sql)).tree,
    statementCount: async (sql) => (await parsed(sql)).statementCount,
    async aggregateFunctions() {
      const known = cache.aggregateFunctions();
      if (known !== undefined) return known;
      const found = await (await duckDbParser()).aggregateFunctions();
      cache.storeAggregateFunctions(found);
      return found;
    },
    async close() {
      if (session !== undefined) (await session).close();
    },
  };
}
