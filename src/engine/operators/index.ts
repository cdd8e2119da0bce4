/**
 * The native engine's stateful operators, as DuckDB building blocks that process one micro-batch
 * at a time and keep their state in DuckDB tables (checkpointed as Parquet with state-checkpoint).
 */
export { EventTimeWatermark, type LateSplit, type WatermarkOptions } from './watermark.js';
export { type WindowSpec } from './window-spec.js';
export {
  WindowAggregation,
  type Aggregate,
  type AggregationQuery,
  type OutputMode,
  type WindowAggregationOptions,
  type WindowBatchResult,
} from './window-aggregation.js';
export { applyExpectations, EXPECTATION, type Expectation, type ExpectationCount, type ExpectationResult } from './expectations.js';
export {
  APPLY_CHANGES_OPTIONS,
  END_AT,
  START_AT,
  parseApplyChangesOptions,
  type ApplyChangesOptions,
  type ApplyChangesOptionsInput,
  type ChangeFormat,
} from './cdc-options.js';
export { ApplyChanges, applyChangesOnce, computeChanges, type ChangeBatchResult, type ComputedChanges } from './apply-changes.js';
export { applyChangeSet, type ChangeSet, type ChangeStats } from './change-set.js';
export { exportChanges, exportState, importChanges, importState, type StatefulOperator } from './state-checkpoint.js';
export { ChangeEventError, ExpectationFailedError } from './operator-errors.js';
