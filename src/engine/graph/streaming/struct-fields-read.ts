/**
 * The fields of a streamed input's struct columns that a flow's SQL can read, from DuckDB's parse
 * tree (`json_serialize_sql`), so staging reads only those (a Debezium envelope's `source` block
 * is a third of its bytes, and a flow usually reads `source.lsn` alone). A struct column counts as
 * read by field only when every reference to it names a field (`source.lsn`, `c.source.lsn`); a
 * bare reference (`source`, `c.source`, `struct_extract(source, 'lsn')`) reads it whole. Anything
 * the tree cannot settle without binding reads everything: a star or COLUMNS(), or a reference
 * naming no column of the input (a table alias alone is the whole row; a lambda's parameter).
 */
import { duckDbSqlParser } from '../../../duckdb/sql-parser.js';
import { quoteIdentifier, type DuckDbSession } from '../../../duckdb/session.js';
import { isParseNode, isStreamCall } from './parse-tree.js';

/**
 * Per struct column read by field alone, the fields named (lower case); undefined when the query
 * may read every column whole.
 */
export async function structFieldsRead(session: DuckDbSession, sql: string, columns: readonly string[]): Promise<ReadonlyMap<string, ReadonlySet<string>> | undefined> {
  let tree: unknown;
  try {
    tree = await duckDbSqlParser(session).serialize(sql);
  } catch {
    return undefined;
  }
  const known = new Set(columns.map((c) => c.toLowerCase()));
  const fields = new Map<string, Set<string>>();
  const whole = new Set<string>();
  let settled = true;
  const visit = (node: unknown): void => {
    if (!settled) return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isParseNode(node)) return;
    // STREAM(changes) names the input, not a column.
    if (isStreamCall(node)) return;
    if (node['class'] === 'STAR') {
      settled = false;
      return;
    }
    if (node['class'] === 'COLUMN_REF' && Array.isArray(node['column_names'])) {
      const names = node['column_names'].map((name) => String(name).toLowerCase());
      if (!names.some((name) => known.has(name))) settled = false;
      names.forEach((name, i) => {
        if (!known.has(name)) return;
        const field = names[i + 1];
        if (field === undefined) whole.add(name);
        else fields.set(name, (fields.get(name) ?? new Set()).add(field));
      });
    }
    for (const child of Object.values(node)) visit(child);
  };
  // A query DuckDB cannot parse comes back as an error object, and fails where it runs.
  if (!isParseNode(tree) || !Array.isArray(tree['statements'])) return undefined;
  visit(tree['statements']);
  if (!settled) return undefined;
  for (const name of whole) fields.delete(name);
  return fields;
}

/**
 * `columns` with each struct column the flow reads by field alone narrowed to those fields (in
 * their order; names the type lacks are left out, as they name no field). Other columns as given,
 * and a column none of whose named fields the type has (the query fails on it either way).
 */
export async function narrowedColumns(session: DuckDbSession, columns: ReadonlyMap<string, string>, read: ReadonlyMap<string, ReadonlySet<string>>): Promise<ReadonlyMap<string, string>> {
  const narrowed = new Map(columns);
  for (const [name, type] of columns) {
    const wanted = read.get(name.toLowerCase());
    // A struct, not a list or map of them.
    if (wanted === undefined || !/^STRUCT\(.*\)$/is.test(type)) continue;
    const described = (await session.queryJson(`DESCRIBE SELECT unnest(NULL::${type})`)) as Array<{ column_name: string; column_type: string }>;
    const kept = described.filter((field) => wanted.has(field.column_name.toLowerCase()));
    if (kept.length === 0 || kept.length === described.length) continue;
    narrowed.set(name, `STRUCT(${kept.map((field) => `${quoteIdentifier(field.column_name)} ${field.column_type}`).join(', ')})`);
  }
  return narrowed;
}
