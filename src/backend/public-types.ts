/**
 * The execution-backend types other tools read: re-exported whole by the backend room's index
 * and by the package entry (src/index.ts), so the list is written once. Additive only.
 */
export type { Capabilities, ExecBackend, RunHandle, RunOptions } from './exec-backend.js';
export type {
  CommitNoticeKind,
  ExpectationCounts,
  FlowCounts,
  FlowRunSummary,
  FlowSkip,
  RunError,
  RunEvent,
  RunPhase,
  RunResult,
  RunStatus,
} from './run-event.js';
