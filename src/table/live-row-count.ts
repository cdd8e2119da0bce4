/**
 * How many rows a snapshot holds. Without delete files the data files' record counts say it;
 * with position deletes the rows are counted through the scan that applies them (only the
 * delete files and row positions are read).
 */
import type { DuckDbSession } from '../duckdb/session.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { planScan } from './delete-planning.js';
import { openTableRows } from './table-rows.js';

export async function liveRowCount(session: DuckDbSession, io: FileIO, metadata: TableMetadata): Promise<bigint> {
  const plan = await planScan(io, metadata);
  if (plan.tasks.every((task) => task.deletes.length === 0)) {
    return plan.tasks.reduce((total, task) => total + task.data.file.recordCount, 0n);
  }
  const rows = await openTableRows({ session, io, metadata });
  try {
    const [row] = await session.queryJson(`SELECT count(*) AS n FROM (${rows.sql})`);
    return BigInt(String(row?.['n'] ?? '0'));
  } finally {
    await rows.release();
  }
}
