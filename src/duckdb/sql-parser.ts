/**
 * DuckDB's own parser as the pipeline's SqlParser: `json_serialize_sql` gives the statement tree
 * that src/pipeline walks for a flow's reads, and the client's statement extraction counts the
 * statements (src/pipeline itself opens no database).
 */
import type { SqlParser } from '../pipeline/infer-dependencies.js';
import { quoteLiteral, type DuckDbSession } from './session.js';

/** On a session the caller owns. */
export function duckDbSqlParser(session: DuckDbSession): SqlParser {
  const serialize = async (sql: string): Promise<unknown> => {
    const rows = await session.queryJson(`SELECT json_serialize_sql(${quoteLiteral(sql)}) AS tree`);
    return JSON.parse(String(rows[0]?.['tree'] ?? 'null')) as unknown;
  };
  return {
    serialize,
    async statementCount(sql: string): Promise<number | undefined> {
      try {
        return (await session.connection.extractStatements(sql)).count;
      } catch {
        // The client throws for zero statements as for a syntax error: the parse tree tells them apart.
        const tree = await serialize(sql);
        const statements = typeof tree === 'object' && tree !== null ? (tree as Record<string, unknown>)['statements'] : undefined;
        return Array.isArray(statements) && statements.length === 0 ? 0 : undefined;
      }
    },
    async aggregateFunctions(): Promise<ReadonlySet<string>> {
      const rows = await session.queryJson("SELECT DISTINCT lower(function_name) AS name FROM duckdb_functions() WHERE function_type = 'aggregate'");
      return new Set(rows.map((row) => String(row['name'])));
    },
  };
}
