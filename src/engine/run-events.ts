/**
 * What a run reports while it runs a pipeline: one event per phase change, in order —
 * planning, then per flow started / progress / completed, committing, and finally done or failed.
 * Defined here, beside the engine that produces them; the backend room's run-event.ts hands them
 * on as its public surface. Additive only: new phases and new optional fields may appear;
 * existing ones never change meaning.
 */
import type { ExpectationAction } from '../pipeline/ir/expectation.js';
import type { CommitNoticeKind } from '../table/commit-notice.js';

export type { CommitNoticeKind } from '../table/commit-notice.js';

export type RunPhase = 'planning' | 'flow-started' | 'flow-progress' | 'flow-completed' | 'committing' | 'commit-warning' | 'done' | 'failed';

export const RUN_PHASES: readonly RunPhase[] = ['planning', 'flow-started', 'flow-progress', 'flow-completed', 'committing', 'commit-warning', 'done', 'failed'];


export interface ExpectationCounts {
  readonly dataset: string;
  readonly expectation: string;
  readonly action: ExpectationAction;
  /** Rows that satisfied the condition. */
  readonly passed: number;
  /** Rows that did not (kept for warn, left out for drop; a fail stops the run). */
  readonly failed: number;
}

export interface FlowCounts {
  readonly rowsRead: number;
  readonly rowsWritten: number;
  /** Rows behind the watermark, left out of stateful operators. */
  readonly lateRows: number;
  readonly expectations: readonly ExpectationCounts[];
}

export interface RunError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

interface EventBase {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly pipeline: string;
}

export type RunEvent =
  | (EventBase & { readonly phase: 'planning'; readonly flows: readonly string[] })
  | (EventBase & { readonly phase: 'flow-started'; readonly flow: string; readonly target: string })
  | (EventBase & {
      readonly phase: 'flow-progress';
      readonly flow: string;
      readonly batch: number;
      readonly counts: FlowCounts;
      /** The snapshot the micro-batch committed, when it committed one to a table. */
      readonly snapshotId?: bigint;
    })
  | (EventBase & {
      readonly phase: 'flow-completed';
      readonly flow: string;
      readonly target: string;
      readonly counts: FlowCounts;
      readonly snapshotId?: bigint;
      /** Present when the flow did not run: its result is up to date, or a once flow already ran. */
      readonly skipped?: FlowSkip;
    })
  | (EventBase & { readonly phase: 'committing'; readonly flow: string; readonly target: string })
  | (EventBase & {
      readonly phase: 'commit-warning';
      readonly flow: string;
      readonly target: string;
      /** What the commit had to settle (table/commit-notice.ts). */
      readonly kind: CommitNoticeKind;
      /** The commit's own snapshot id (the same on every attempt). */
      readonly snapshotId: bigint;
      /** The table's main snapshot when the warning was decided, when known. */
      readonly tableSnapshotId?: bigint;
      /** The 1-based attempt the warning is about. */
      readonly attempt: number;
      readonly message: string;
    })
  | (EventBase & { readonly phase: 'done'; readonly result: RunResult })
  | (EventBase & { readonly phase: 'failed'; readonly error: RunError; readonly flow?: string });

/** Why a flow did not run. up-to-date: nothing it reads changed; once-done: a once flow that ran; upstream-empty: a pipeline table it reads has no data yet. */
export type FlowSkip = 'up-to-date' | 'once-done' | 'upstream-empty';

export interface FlowRunSummary {
  readonly flow: string;
  readonly target: string;
  readonly counts: FlowCounts;
  readonly snapshotId?: bigint;
  readonly skipped?: FlowSkip;
}

export type RunStatus = 'completed' | 'failed' | 'cancelled';

export interface RunResult {
  readonly pipeline: string;
  readonly status: RunStatus;
  readonly flows: readonly FlowRunSummary[];
  readonly error?: RunError;
}

export const emptyCounts = (): FlowCounts => ({ rowsRead: 0, rowsWritten: 0, lateRows: 0, expectations: [] });
