/** Small SQL helpers shared by the operators: quoting lists, describing relations, one sample row. */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';

export interface ColumnInfo {
  readonly name: string;
  readonly type: string;
}

export function identList(names: readonly string[], prefix = ''): string {
  return names.map((n) => `${prefix}${quoteIdentifier(n)}`).join(', ');
}

/** `a.k1 IS NOT DISTINCT FROM b.k1 AND …`, so null-safe joins read the same everywhere. */
export function sameValues(names: readonly string[], left: string, right: string): string {
  if (names.length === 0) return 'TRUE';
  return names.map((n) => `${left}.${quoteIdentifier(n)} IS NOT DISTINCT FROM ${right}.${quoteIdentifier(n)}`).join(' AND ');
}

/** `a.k1 = b.k1 AND …` for columns known to hold no nulls (CDC keys), which DuckDB joins by hash. */
export function equalValues(names: readonly string[], left: string, right: string): string {
  return names.map((n) => `${left}.${quoteIdentifier(n)} = ${right}.${quoteIdentifier(n)}`).join(' AND ');
}

export async function describeRelation(session: DuckDbSession, relation: string): Promise<ColumnInfo[]> {
  const rows = (await session.queryJson(`DESCRIBE SELECT * FROM ${relation}`)) as { column_name: string; column_type: string }[];
  return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
}

export async function countRows(session: DuckDbSession, relation: string, where = 'TRUE'): Promise<number> {
  const [row] = await session.queryJson(`SELECT count(*)::INTEGER AS n FROM ${relation} WHERE ${where}`);
  return Number(row?.['n'] ?? 0);
}

/** One row matching `where`, as JSON text, for error messages. */
export async function sampleRow(session: DuckDbSession, relation: string, where: string): Promise<string | undefined> {
  const [row] = await session.queryJson(`SELECT * FROM ${relation} WHERE ${where} LIMIT 1`);
  return row === undefined ? undefined : JSON.stringify(row);
}
