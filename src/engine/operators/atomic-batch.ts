/**
 * Runs one batch of an operator inside a DuckDB transaction, so a batch that fails half-way
 * (a SQL error in a user expression, a rejected event) leaves the operator's state exactly as
 * the previous batch left it, and the caller may retry or stop without restoring a checkpoint.
 */
import type { DuckDbSession } from '../../duckdb/session.js';

export async function atomically<T>(session: DuckDbSession, batch: () => Promise<T>): Promise<T> {
  await session.run('BEGIN TRANSACTION');
  let result: T;
  try {
    result = await batch();
  } catch (error) {
    await session.run('ROLLBACK');
    throw error;
  }
  await session.run('COMMIT');
  return result;
}
