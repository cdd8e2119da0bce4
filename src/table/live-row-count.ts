/**
 * How many rows a snapshot holds. When its summary says no delete file is live, the data files'
 * total says it; else the rows are counted through the scan that applies the position deletes
 * (only the delete files and row positions are read).
 */
import { DuckDbSession } from '../duckdb/session.js';
import type { FileIO } from '../iceberg/file-io.js';
import { currentSnapshot } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { planScan } from './delete-planning.js';
import { openTableRows } from './table-rows.js';

export async function liveRowCount(session: DuckDbSession, io: FileIO, metadata: TableMetadata): Promise<bigint> {
  const summary = currentSnapshot(metadata)?.summary;
  if (summary !== undefined && summary['total-delete-files'] === '0' && summary['total-records'] !== undefined) return BigInt(summary['total-records']);
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

/** liveRowCount in a session of its own, for callers without one (the CLI's reports). */
export async function liveRowCountOf(io: FileIO, metadata: TableMetadata): Promise<bigint> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return await liveRowCount(session, io, metadata);
  } finally {
    session.close();
  }
}
