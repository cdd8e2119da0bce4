/**
 * Whether a flow's SQL joins two streamed reads with each other. Micro-batches of two streams
 * joined batch by batch would miss every pair of rows that arrive in different batches, so such a
 * flow is refused rather than run (a stream joined with a table, or a UNION ALL of streams, is fine).
 */
import { duckDbSqlParser } from '../../../duckdb/sql-parser.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import { isParseNode, isStreamCall } from './parse-tree.js';

export async function joinsStreams(session: DuckDbSession, sql: string): Promise<boolean> {
  return joined(await duckDbSqlParser(session).serialize(sql));
}

function joined(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(joined);
  if (!isParseNode(value)) return false;
  if (value['type'] === 'JOIN' && readsStream(value['left']) && readsStream(value['right'])) return true;
  return Object.values(value).some(joined);
}

function readsStream(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsStream);
  if (!isParseNode(value)) return false;
  if (isStreamCall(value)) return true;
  return Object.values(value).some(readsStream);
}
