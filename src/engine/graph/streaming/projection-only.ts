/**
 * Whether a flow's SQL only picks columns of one streamed read: `SELECT *` (EXCLUDE and RENAME
 * allowed) or plain column references, from a single STREAM(), with no filter, grouping,
 * modifier or CTE. Such a query cannot fail on a row, so a stateless flow's output can stay a
 * view the sink reads once, instead of a copy of the batch materialised to catch row errors.
 */
import type { DuckDbSession } from '../../../duckdb/session.js';
import { duckDbSqlParser } from '../../../duckdb/sql-parser.js';

type Node = Record<string, unknown>;

export async function isProjectionOnly(session: DuckDbSession, sql: string): Promise<boolean> {
  const tree = (await duckDbSqlParser(session).serialize(sql)) as Node | null;
  const statements = tree?.['statements'];
  if (!Array.isArray(statements) || statements.length !== 1) return false;
  const node = (statements[0] as Node)['node'] as Node | undefined;
  if (node?.['type'] !== 'SELECT_NODE') return false;
  const empty = (value: unknown): boolean => value === null || value === undefined || (Array.isArray(value) && value.length === 0);
  const cteMap = (node['cte_map'] as Node | undefined)?.['map'];
  if (!empty(node['modifiers']) || !empty(cteMap) || !empty(node['where_clause']) || !empty(node['group_expressions'])) return false;
  if (!empty(node['group_sets']) || !empty(node['having']) || !empty(node['qualify']) || !empty(node['sample'])) return false;
  const from = node['from_table'] as Node | undefined;
  const fn = from?.['function'] as Node | undefined;
  if (from?.['type'] !== 'TABLE_FUNCTION' || String(fn?.['function_name']).toLowerCase() !== 'stream' || !empty(from['sample'])) return false;
  const list = node['select_list'];
  return Array.isArray(list) && list.length > 0 && list.every((item) => pickedColumn(item as Node));
}

function pickedColumn(item: Node): boolean {
  if (item['class'] === 'COLUMN_REF') return true;
  return item['class'] === 'STAR' && item['columns'] === false && item['expr'] === null && Array.isArray(item['replace_list']) && item['replace_list'].length === 0;
}
