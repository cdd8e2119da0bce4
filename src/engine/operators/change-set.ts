/**
 * What a batch of change events does to a CDC target, in the form an Iceberg row-level upsert
 * consumes: rows to delete (SCD1: by key; SCD2: by key + __START_AT) and rows to insert.
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { identList, equalValues } from './sql.js';

export interface ChangeSet {
  /** Table of the delete keys: the key columns (SCD1) or key columns and __START_AT (SCD2). */
  readonly deletes: string;
  /** Table of complete target rows to insert. */
  readonly inserts: string;
  readonly deleteKeyColumns: readonly string[];
}

export interface ChangeStats {
  /** Events in the batch (after row kinds -U are skipped). */
  readonly events: number;
  /** Events not applied: older than what the target already holds for the key, or a redelivery. */
  readonly ignoredEvents: number;
  readonly deletedRows: number;
  readonly insertedRows: number;
}

/** Applies a change set to a state table in place: deletes by the delete key, then inserts. */
export async function applyChangeSet(session: DuckDbSession, stateTable: string, changes: ChangeSet, stateColumns: readonly string[]): Promise<void> {
  const state = quoteIdentifier(stateTable);
  // A join rather than EXISTS: DuckDB plans EXISTS over a view of a UNION (SCD2's change rows) as a scan per state row.
  await session.run(`DELETE FROM ${state} USING ${quoteIdentifier(changes.deletes)} d WHERE ${equalValues(changes.deleteKeyColumns, 'd', state)}`);
  await session.run(`INSERT INTO ${state} (${identList(stateColumns)}) SELECT ${identList(stateColumns)} FROM ${quoteIdentifier(changes.inserts)}`);
}
