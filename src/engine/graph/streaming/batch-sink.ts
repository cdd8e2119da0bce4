/**
 * Where a streaming flow's micro-batch output goes: the target-specific write (append, windowed
 * aggregation, apply-changes) committed as one snapshot that also carries the batch's positions
 * and the checkpoint of the sink's operator state, so the three can never disagree.
 */
import type { CommitFence } from '../../../table/commit-snapshot.js';
import type { StatefulOperator } from '../../operators/state-checkpoint.js';

export interface BatchWrite {
  /** Absent only when the sink committed nothing (it must commit whenever `summary` moves positions). */
  readonly snapshotId?: bigint;
  readonly rowsWritten: number;
  /** Rows behind the watermark, left out. */
  readonly lateRows: number;
}

export interface BatchSink extends StatefulOperator {
  /**
   * Processes one micro-batch: `relation` is a DuckDB table holding the flow's output for the
   * batch (after expectations). Commits one snapshot of the target whose summary includes every
   * entry of `summary`, even when the batch produced no rows. On failure the operator state is
   * as before the call and nothing was committed.
   *
   * `beforeCommit` (the runner's checkpoint): the sink calls it exactly once, after its state
   * tables hold this batch and before its commit, and adds the entries it returns (the
   * checkpoint pointer) to the commit's summary. A checkpoint taken before the sink processed the
   * batch would restore its state without the batch's changes while the table has them.
   *
   * `fence` goes with every commit attempt: it refuses the commit (StalePositionsError) when the
   * positions the batch started from are no longer the table's.
   */
  write(
    relation: string,
    summary: Readonly<Record<string, string>>,
    beforeCommit?: () => Promise<Readonly<Record<string, string>>>,
    fence?: CommitFence,
  ): Promise<BatchWrite>;
}
