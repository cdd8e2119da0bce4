/**
 * What the streaming loop reports: running totals (read by /metrics) and one event per batch.
 */
import type { SourcePosition } from '../../../../connectors/streaming-source.js';

export interface StreamingTotals {
  recordsIn: number;
  recordsOut: number;
  deadLetters: number;
  skipped: number;
  filesWritten: number;
  bytesWritten: number;
  commits: number;
  conflicts: number;
  /** Batches not committed because the table had moved under them (re-read from the table's positions). */
  staleBatches: number;
  /** Output columns not in the table (not written), by name. */
  ignoredColumns: Record<string, number>;
}

export function emptyTotals(): StreamingTotals {
  return { recordsIn: 0, recordsOut: 0, deadLetters: 0, skipped: 0, filesWritten: 0, bytesWritten: 0, commits: 0, conflicts: 0, staleBatches: 0, ignoredColumns: {} };
}

export interface BatchReport {
  readonly outcome: 'committed' | 'covered' | 'stale' | 'empty';
  readonly records: number;
  readonly rows: number;
  readonly deadLetters: number;
  readonly files: number;
  /** Time spent polling the source for the batch. */
  readonly pollMs: number;
  /** Time from the end of polling to the start of the commit: staging, flow, data files, dead letters. */
  readonly writeMs: number;
  readonly commitMs: number;
  readonly totalMs: number;
  readonly attempts: number;
  readonly positions: readonly SourcePosition[];
  readonly reason?: string;
}

export interface StreamingObserver {
  batch?(report: BatchReport): void;
  /** One line for the log (never record contents). */
  log?(level: 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, unknown>>): void;
}
