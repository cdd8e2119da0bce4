/**
 * What a commit tells its caller while it goes on, so an operator sees it (serve logs each as a
 * warning): an attempt whose answer was lost and how it was settled, a refusal (409) retried on
 * the moved table, a commit fenced off because another writer moved the table's positions, and
 * records committed to a dead-letter table. Each names our snapshot id and the table's current
 * snapshot at that moment.
 */
export type CommitNoticeKind =
  /** The answer was lost; our snapshot is in the table: the attempt landed. */
  | 'unknown-outcome-applied'
  /** The answer was lost; our snapshot is not in the table: tried again with the same snapshot id. */
  | 'unknown-outcome-not-applied'
  /** The answer was lost and the table could not be read to settle it: the caller starts again from the table. */
  | 'unknown-outcome-unresolved'
  /** The catalog refused the attempt (409, the table moved): tried again on the table as it is now. */
  | 'conflict-retry'
  /** Another writer moved what the commit was planned from: nothing of it is committed, the batch is planned again. */
  | 'fenced'
  /** Records that could not be decoded or checked were committed to the dead-letter table (the message says how many). */
  | 'dead-letters';

export interface CommitNotice {
  readonly kind: CommitNoticeKind;
  /** `namespace.table`. */
  readonly table: string;
  /** Our snapshot's id (the same on every attempt). */
  readonly snapshotId: bigint;
  /** The table's main snapshot when the notice was decided, when known. */
  readonly tableSnapshotId?: bigint;
  /** 1-based attempt the notice is about. */
  readonly attempt: number;
  readonly message: string;
}

export type CommitNoticeSink = (notice: CommitNotice) => void;
