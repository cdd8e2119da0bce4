/**
 * What the native engine's graph runner hands each flow it runs, and what a flow reports back.
 * The runner owns the DuckDB session (sources and tables registered as relations), the catalog
 * and the run's events; a flow step owns reading its input, its operators and its commits.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { OffsetStreamConnector } from '../../../connectors/source.js';
import type { FlowCounts } from '../run-events.js';
import type { DuckDbSession } from '../../duckdb/session.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { CommitNoticeSink } from '../../table/commit-notice.js';
import type { TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';

export interface FlowContext {
  readonly session: DuckDbSession;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly graph: PipelineGraph;
  readonly flow: Flow;
  /** The table the flow writes (a flow into a sink gets a SinkFlowContext: sink/sink-flow-context.ts). */
  readonly target: TableDataset;
  /** Recompute from scratch: ignore checkpoints and positions, replace the target's rows. */
  readonly fullRefresh: boolean;
  /**
   * Summary properties every snapshot this flow commits must carry: engine name and version,
   * pipeline, flow, and the staleness record (definition hash, upstream snapshots).
   */
  readonly summary: Readonly<Record<string, string>>;
  /** A local folder private to this flow for staging files; removed by the runner afterwards. */
  readonly tempDir: string;
  /** Reports a committed micro-batch (streaming flows) as a flow-progress event, with the snapshot it committed. */
  progress(batch: number, counts: FlowCounts, snapshotId?: bigint): void;
  /** Reports what a commit had to settle (a lost answer, a 409 retry, a fence) as a commit-warning event. */
  readonly commitNotice?: CommitNoticeSink;
  readonly signal?: AbortSignal;
  /** Opens the Kafka sources a streaming flow reads; absent, such a flow is refused. */
  readonly streams?: OffsetStreamConnector;
}

export interface FlowOutcome {
  readonly counts: FlowCounts;
  /** The last snapshot the flow committed; absent when it committed nothing. */
  readonly snapshotId?: bigint;
}
