/**
 * Any SELECT run on Trino, its rows normalised as test/interop/trino.ts does for whole tables
 * (so verifyTableRows can compare them), and how many rows the query read from storage.
 */
import { ThundError } from '../../src/errors.js';
import { normalizeTrinoValue, runTrinoQuery, type TrinoValue } from '../interop/trino.js';

export interface TrinoRows {
  readonly queryId: string;
  readonly rows: Record<string, TrinoValue>[];
}

export async function queryTrinoRows(uri: string, sql: string): Promise<TrinoRows> {
  const result = await runTrinoQuery(sql, { uri });
  const rows = result.data.map((row) => {
    const out: Record<string, TrinoValue> = {};
    result.columns.forEach((column, i) => {
      out[column.name] = normalizeTrinoValue(row[i], column.typeSignature, column.name);
    });
    return out;
  });
  return { queryId: result.queryId, rows };
}

/**
 * Rows the finished query read from the connector (`physicalInputPositions` of its query info):
 * fewer than the table holds means Trino skipped files or row groups.
 */
export async function trinoPhysicalInputRows(uri: string, queryId: string): Promise<number> {
  const url = `${uri}/v1/query/${encodeURIComponent(queryId)}`;
  const response = await fetch(url, { headers: { 'X-Trino-User': 'thund' }, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (!response.ok) {
    throw new ThundError('INTEROP_READER', `trino answered ${response.status} to GET ${url}: ${text.slice(0, 300)}`, { context: { url } });
  }
  const info = JSON.parse(text) as { queryStats?: { physicalInputPositions?: unknown } };
  const positions = info.queryStats?.physicalInputPositions;
  if (typeof positions !== 'number') {
    throw new ThundError('INTEROP_READER', `trino query info for ${queryId} has no queryStats.physicalInputPositions`, { context: { url } });
  }
  return positions;
}
