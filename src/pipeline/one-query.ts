/**
 * Whether SQL text is exactly one query (SELECT, WITH … SELECT, VALUES, FROM-first, set
 * operations), decided by DuckDB's parser: it counts the statements, and `json_serialize_sql`
 * serializes only queries. Flows, views and sink flows take one query; so does `thund serve --sql`.
 */

export interface QueryParser {
  /** The parse tree as `json_serialize_sql` returns it (parsed JSON); an error for a statement that is not a query. */
  serialize(sql: string): Promise<unknown>;
  /** How many statements the text holds (0: only comments and semicolons); undefined when it does not parse. */
  statementCount(sql: string): Promise<number | undefined>;
}

export const ONE_QUERY = 'one query (SELECT, WITH … SELECT, VALUES, FROM …, UNION …)';

/**
 * The parse tree of the one query, or why the text is not one. A syntax error is not judged
 * here: it comes back as the parse tree's error, with its position, for the caller to report.
 */
export async function parseOneQuery(parser: QueryParser, sql: string): Promise<{ readonly serialized: unknown } | { readonly problem: string }> {
  const count = await parser.statementCount(sql);
  if (count === 0) return { problem: 'has no query, only comments' };
  if (count !== undefined && count > 1) return { problem: `holds ${count} statements` };
  const serialized = await parser.serialize(sql);
  // The text parsed as one statement, so serializing fails only because it is no query.
  if (count === 1 && isParseError(serialized)) return { problem: 'is a statement that is not a query (INSERT, CREATE, COPY, ATTACH, PRAGMA, SET, … are not run)' };
  return { serialized };
}

function isParseError(serialized: unknown): boolean {
  return typeof serialized === 'object' && serialized !== null && (serialized as Record<string, unknown>)['error'] === true;
}
