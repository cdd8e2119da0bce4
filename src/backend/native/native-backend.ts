/**
 * The native DuckDB engine behind the ExecBackend surface: every dataset kind (sinks of format
 * kafka only, their options checked up front), every flow kind and output mode, expectations,
 * CDC (SCD 1 and 2), Parquet and Kafka sources,
 * watermarks and streaming reads, partitioned tables, and recomputing only what is stale
 * (src/engine/graph/run-graph.ts). A graph with anything else is refused, element by element,
 * before anything runs.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { OffsetStreamConnector, SourceConnector } from '../../../connectors/source.js';
import { asRunError, runGraph } from '../../engine/graph/run-graph.js';
import type { FlowRunResult } from '../../engine/run-flow.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import { topoOrder } from '../../pipeline/topo-order.js';
import { InvalidInputError } from '../../errors.js';
import { KAFKA_SINK_FORMAT, kafkaSinkSettings } from '../../engine/graph/sink/kafka-sink-settings.js';
import type { ProducerClientFactory, Published } from '../../engine/graph/sink/sink-flow-context.js';
import { findDataset } from '../../pipeline/ir/graph.js';
import { unsupportedElements, unsupportedSinks } from '../capability-check.js';
import { EventStream } from '../event-stream.js';
import type { Capabilities, ExecBackend, RunHandle, RunOptions } from '../exec-backend.js';
import type { RunError, RunEvent, RunResult } from '../run-event.js';
import type { DuckDbSettings } from '../../duckdb/session.js';

export interface NativeBackendOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly sources: SourceConnector;
  /** Where each run's temporary folder is made (default: the OS temp folder). */
  readonly tempRoot?: string;
  /** DuckDB's threads and memory limit for each run's session (default: DuckDB's). */
  readonly duckdb?: DuckDbSettings;
  /** Each batch write as the table writer reports it (created or not, schema changes), for the CLI. */
  readonly onWrite?: (flow: Flow, result: FlowRunResult) => void;
  /** What each flow into a sink published (records and topic), for the CLI. */
  readonly onPublish?: (flow: Flow, published: Published) => void;
  /** Makes the Kafka producers of flows into sinks (default kafkajs). */
  readonly producerClient?: ProducerClientFactory;
  /** Opens the Kafka sources streaming flows read (the app gives the Kafka connector's). */
  readonly streams?: OffsetStreamConnector;
}

const CAPABILITIES: Capabilities = {
  datasetKinds: ['source', 'streaming-table', 'materialized-view', 'view', 'temporary-view', 'sink'],
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
      ...(this.options.duckdb === undefined ? {} : { duckdb: this.options.duckdb }),
      ...(this.options.onWrite === undefined ? {} : { onWrite: this.options.onWrite }),
      ...(this.options.onPublish === undefined ? {} : { onPublish: this.options.onPublish }),
      ...(this.options.producerClient === undefined ? {} : { producerClient: this.options.producerClient }),
      ...(this.options.streams === undefined ? {} : { streams: this.options.streams }),
    });
  }
}

function refusals(graph: PipelineGraph): RunError | undefined {
  try {
    topoOrder(graph);
    const found = [...unsupportedElements(graph, CAPABILITIES), ...unsupportedSinks(graph, [KAFKA_SINK_FORMAT]), ...uninferred(graph)];
    if (found.length > 0) return { code: 'UNSUPPORTED', message: `the native backend cannot run: ${found.join('; ')}`, retryable: false };
    const invalid = invalidSinkOptions(graph);
    return invalid.length === 0 ? undefined : { code: 'INVALID_INPUT', message: invalid.join('; '), retryable: false };
  } catch (error) {
    return asRunError(error);
  }
}

function uninferred(graph: PipelineGraph): string[] {
  return graph.flows.filter((flow) => flow.dependencies === undefined).map((flow) => `flow ${flow.name}: its reads are not inferred yet (run inferDependencies first)`);
}

/** Each flow into a Kafka sink gets its settings up front, so bad sink options fail before anything runs. */
function invalidSinkOptions(graph: PipelineGraph): string[] {
  const problems = new Set<string>();
  for (const flow of graph.flows) {
    const target = findDataset(graph, flow.target);
    if (target?.kind !== 'sink') continue;
    try {
      kafkaSinkSettings(graph.name, flow.name, target);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      problems.add(error.message);
    }
  }
  return [...problems];
}
