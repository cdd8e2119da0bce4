/** The execution-backend surface: stable and additive (new members may appear, none change meaning). */
export type { Capabilities, ExecBackend, RunHandle, RunOptions } from './exec-backend.js';
export type {
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
export { RUN_PHASES, emptyCounts } from './run-event.js';
export { EventStream } from './event-stream.js';
export { unsupportedElements } from './capability-check.js';
