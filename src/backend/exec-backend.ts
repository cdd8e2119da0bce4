/**
 * The surface every execution backend implements (native DuckDB, Spark): what it can run, and a
 * run of an immutable pipeline graph that streams its events and settles with a result.
 */
import type { DatasetKind } from '../pipeline/ir/dataset.js';
import type { ExpectationAction } from '../pipeline/ir/expectation.js';
import type { FlowKind } from '../pipeline/ir/flow.js';
import type { PipelineGraph } from '../pipeline/ir/graph.js';
import type { OutputMode, TriggerKind } from '../pipeline/ir/streaming.js';
import type { RunEvent, RunResult } from './run-event.js';

export interface Capabilities {
  readonly datasetKinds: readonly DatasetKind[];
  readonly flowKinds: readonly FlowKind[];
  readonly outputModes: readonly OutputMode[];
  readonly triggers: readonly TriggerKind[];
  readonly expectationActions: readonly ExpectationAction[];
  readonly scdTypes: readonly (1 | 2)[];
  readonly sourceFormats: readonly string[];
  /** Event-time watermarks on streaming reads. */
  readonly watermarks: boolean;
  /** STREAM() reads (micro-batches from source positions). */
  readonly streamingReads: boolean;
  /** Partitioned target tables. */
  readonly partitioning: boolean;
  /** Recomputes only what is stale (and honours fullRefresh). */
  readonly incrementalRefresh: boolean;
}

export interface RunOptions {
  /** Recompute these datasets (or all) from scratch. */
  readonly fullRefresh?: boolean | readonly string[];
  /** Only these datasets (and what they need). */
  readonly refresh?: readonly string[];
  /** Analyse and plan, write nothing. */
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

export interface RunHandle {
  /** Every event of the run from its start, ending after `done` or `failed`. One consumer. */
  readonly events: AsyncIterable<RunEvent>;
  /** Settles when the run ends; a failure is a result with status failed, not a rejection. */
  readonly result: Promise<RunResult>;
  cancel(reason?: string): void;
}

export interface ExecBackend {
  readonly name: string;
  capabilities(): Capabilities;
  run(graph: PipelineGraph, options?: RunOptions): RunHandle;
}
