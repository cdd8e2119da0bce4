/**
 * DuckDB's own parser as the pipeline's SqlParser: `json_serialize_sql` gives the statement tree
 * that src/pipeline walks for a flow's reads (src/pipeline itself opens no database).
 */
import type { SqlParser } from '../pipeline/infer-dependencies.js';
import { quoteLiteral, type DuckDbSession } from './session.js';

/** On a session the caller owns. */
export function duckDbSqlParser(session: DuckDbSession): SqlParser {
  return {
    async serialize(sql: string): Promise<unknown> {
      const rows = await session.queryJson(`SELECT json_serialize_sql(${quoteLiteral(sql)}) AS tree`);
      return JSON.parse(String(rows[0]?.['tree'] ?? 'null')) as unknown;
    },
    async aggregateFunctions(): Promise<ReadonlySet<string>> {
      const rows = await session.queryJson("SELECT DISTINCT lower(function_name) AS name FROM duckdb_functions() WHERE function_type = 'aggregate'");
      return new Set(rows.map((row) => String(row['name'])));
    },
  };
}
