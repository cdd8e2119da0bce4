/**
 * The native DuckDB engine behind the ExecBackend surface: every dataset kind but sinks, every
 * flow kind and output mode, expectations, CDC (SCD 1 and 2), Parquet and Kafka sources,
 * watermarks and streaming reads, partitioned tables, and recomputing only what is stale
 * (src/engine/graph/run-graph.ts). A graph with anything else is refused, element by element,
 * before anything runs.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { SourceConnector } from '../../../connectors/source.js';
import { asRunError, runGraph } from '../../engine/graph/run-graph.js';
import type { FlowRunResult } from '../../engine/run-flow.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import { topoOrder } from '../../pipeline/topo-order.js';
import { unsupportedElements } from '../capability-check.js';
import { EventStream } from '../event-stream.js';
import type { Capabilities, ExecBackend, RunHandle, RunOptions } from '../exec-backend.js';
import type { RunError, RunEvent, RunResult } from '../run-event.js';

export interface NativeBackendOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly sources: SourceConnector;
  /** Where each run's temporary folder is made (default: the OS temp folder). */
  readonly tempRoot?: string;
  /** Each batch write as the table writer reports it (created or not, schema changes), for the CLI. */
  readonly onWrite?: (flow: Flow, result: FlowRunResult) => void;
}

const CAPABILITIES: Capabilities = {
  datasetKinds: ['source', 'streaming-table', 'materialized-view', 'view', 'temporary-view'],
  flowKinds: ['append', 'apply-changes', 'once'],
  outputModes: ['append', 'update', 'complete'],
  triggers: ['once', 'available-now', 'processing-time'],
  expectationActions: ['warn', 'drop', 'fail'],
  scdTypes: [1, 2],
  sourceFormats: ['parquet', 'kafka'],
  watermarks: true,
  streamingReads: true,
  partitioning: true,
  incrementalRefresh: true,
};

export class NativeBackend implements ExecBackend {
  readonly name = 'native';

  constructor(private readonly options: NativeBackendOptions) {}

  capabilities(): Capabilities {
    return CAPABILITIES;
  }

  run(graph: PipelineGraph, options: RunOptions = {}): RunHandle {
    const events = new EventStream<RunEvent>();
    let cancelled = false;
    const result = this.execute(graph, options, (event) => events.push(event), () => cancelled).finally(() => events.close());
    return {
      events,
      result,
      cancel: () => {
        cancelled = true;
      },
    };
  }

  private async execute(graph: PipelineGraph, options: RunOptions, emit: (event: RunEvent) => void, isCancelled: () => boolean): Promise<RunResult> {
    const refused = refusals(graph);
    if (refused !== undefined) {
      emit({ at: Date.now(), pipeline: graph.name, phase: 'failed', error: refused });
      return { pipeline: graph.name, status: 'failed', flows: [], error: refused };
    }
    if (options.dryRun === true) {
      emit({ at: Date.now(), pipeline: graph.name, phase: 'planning', flows: topoOrder(graph).flows.map((flow) => flow.name) });
      const result: RunResult = { pipeline: graph.name, status: 'completed', flows: [] };
      emit({ at: Date.now(), pipeline: graph.name, phase: 'done', result });
      return result;
    }
    return runGraph({
      graph,
      catalog: this.options.catalog,
      io: this.options.io,
      sources: this.options.sources,
      ...(options.fullRefresh === undefined ? {} : { fullRefresh: options.fullRefresh }),
      isCancelled,
      emit,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(this.options.tempRoot === undefined ? {} : { tempRoot: this.options.tempRoot }),
      ...(this.options.onWrite === undefined ? {} : { onWrite: this.options.onWrite }),
    });
  }
}

function refusals(graph: PipelineGraph): RunError | undefined {
  try {
    topoOrder(graph);
    const found = [...unsupportedElements(graph, CAPABILITIES), ...uninferred(graph)];
    if (found.length === 0) return undefined;
    return { code: 'UNSUPPORTED', message: `the native backend cannot run: ${found.join('; ')}`, retryable: false };
  } catch (error) {
    return asRunError(error);
  }
}

function uninferred(graph: PipelineGraph): string[] {
  return graph.flows.filter((flow) => flow.dependencies === undefined).map((flow) => `flow ${flow.name}: its reads are not inferred yet (run inferDependencies first)`);
}
