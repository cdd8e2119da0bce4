/** Small tables in, rows out as plain arrays, so expected tables read like the semantics. */
import { DuckDbSession, quoteIdentifier } from '../../../src/duckdb/session.js';

export type Cell = string | number | boolean | null;

function literal(value: Cell): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return String(value);
}

/** Creates (or replaces) `name` with the given column definitions and rows. */
export async function createTable(session: DuckDbSession, name: string, columns: string, rows: readonly (readonly Cell[])[]): Promise<void> {
  await session.run(`CREATE OR REPLACE TABLE ${quoteIdentifier(name)} (${columns})`);
  if (rows.length > 0) {
    await session.run(`INSERT INTO ${quoteIdentifier(name)} VALUES ${rows.map((r) => `(${r.map(literal).join(', ')})`).join(', ')}`);
  }
}

/** Rows of a query as arrays of JSON values, in the query's order. */
export async function rowsOf(session: DuckDbSession, sql: string): Promise<Cell[][]> {
  return (await session.queryJson(sql)).map((row) => Object.values(row) as Cell[]);
}

/** Event times are seconds after 2024-01-01 00:00:00 in the inputs: `at(75)` is 00:01:15. */
export function at(seconds: number): string {
  const base = Date.UTC(2024, 0, 1);
  return new Date(base + seconds * 1000).toISOString().replace('T', ' ').replace('Z', '').replace(/\.000$/, '');
}

/** The window output of an aggregation as [keys…, start second, end second, aggregates…], sorted. */
export async function windowRows(session: DuckDbSession, table: string, keys: readonly string[], aggregates: readonly string[]): Promise<Cell[][]> {
  const seconds = (col: string): string => `(epoch(${col}) - epoch(TIMESTAMP '2024-01-01 00:00:00'))::INTEGER`;
  const keyList = keys.map((k) => `${quoteIdentifier(k)}, `).join('');
  const aggs = aggregates.map((a) => `, ${quoteIdentifier(a)}`).join('');
  return rowsOf(session, `SELECT ${keyList}${seconds('window_start')} AS s, ${seconds('window_end')} AS e${aggs} FROM ${quoteIdentifier(table)} ORDER BY ALL`);
}

export async function openSession(): Promise<DuckDbSession> {
  return DuckDbSession.open({ threads: 1 });
}
