/**
 * A dataset's expectations applied to one flow output (a batch flow's result or one micro-batch),
 * reported in the run's vocabulary and as snapshot summary properties, so every snapshot says how
 * many of the rows it was computed from met each expectation.
 */
import type { ExpectationCounts } from '../run-events.js';
import type { DuckDbSession } from '../../duckdb/session.js';
import type { SinkDataset, TableDataset, ViewDataset } from '../../pipeline/ir/dataset.js';
import { applyExpectations } from '../operators/expectations.js';
import { countRows } from '../operators/sql.js';
import { quoteIdentifier } from '../../duckdb/session.js';

export interface CheckedOutput {
  /** The rows that go on: `output` when the dataset has expectations, else `input` itself. */
  readonly relation: string;
  readonly counts: readonly ExpectationCounts[];
  /** Rows of `input` (counted only when the dataset has expectations). */
  readonly inputRows?: number;
}

/**
 * Checks the rows of table `input` against `dataset`'s expectations, writing the rows that pass
 * on to a new table `output`. A `fail` expectation with a failing row throws
 * ExpectationFailedError (naming it and one row); the caller then commits (or publishes) nothing
 * of the batch.
 */
export async function checkExpectations(session: DuckDbSession, dataset: TableDataset | ViewDataset | SinkDataset, input: string, output: string): Promise<CheckedOutput> {
  if (dataset.expectations.length === 0) return { relation: input, counts: [] };
  const rows = await countRows(session, quoteIdentifier(input));
  const result = await applyExpectations(
    session,
    input,
    dataset.expectations.map(({ name, condition, action }) => ({ name, condition, action })),
    output,
  );
  return {
    relation: result.output,
    inputRows: rows,
    counts: result.counts.map((count) => ({
      dataset: dataset.name,
      expectation: count.name,
      action: count.action,
      passed: rows - count.failedRows,
      failed: count.failedRows,
    })),
  };
}

/** `thund.expectation.<name>.passed` / `.failed` (rows of this snapshot's input) per expectation. */
export function expectationSummary(counts: readonly ExpectationCounts[]): Record<string, string> {
  const summary: Record<string, string> = {};
  for (const count of counts) {
    summary[`thund.expectation.${count.expectation}.action`] = count.action;
    summary[`thund.expectation.${count.expectation}.passed`] = String(count.passed);
    summary[`thund.expectation.${count.expectation}.failed`] = String(count.failed);
  }
  return summary;
}

/** Sums the counts of several batches per expectation (for a streaming flow's completion event). */
export function addExpectationCounts(total: readonly ExpectationCounts[], batch: readonly ExpectationCounts[]): ExpectationCounts[] {
  const merged = new Map(total.map((count) => [`${count.dataset}\u0000${count.expectation}`, { ...count }]));
  for (const count of batch) {
    const key = `${count.dataset}\u0000${count.expectation}`;
    const earlier = merged.get(key);
    merged.set(key, earlier === undefined ? { ...count } : { ...earlier, passed: earlier.passed + count.passed, failed: earlier.failed + count.failed });
  }
  return [...merged.values()];
}
