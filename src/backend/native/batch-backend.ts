/**
 * Today's batch engine (runPipeline) behind the ExecBackend surface: parquet sources, materialized
 * views written by append flows (output mode append adds rows, complete replaces them), one flow
 * at a time in topological order, each reading sources only. Anything else in the graph is refused
 * before anything runs, element by element. Streaming, expectations and CDC arrive with the
 * streaming engine; this adapter goes when that backend lands.
 */
import type { Catalog } from '../../../catalog/catalog.js';
import type { SourceConnector } from '../../../connectors/source.js';
import { runPipeline } from '../../engine/run-pipeline.js';
import { ThundError } from '../../errors.js';
import type { FileIO } from '../../iceberg/file-io.js';
import { DEFAULT_CATALOG } from '../../pipeline/connection-spec.js';
import { findDataset, type PipelineGraph } from '../../pipeline/ir/graph.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import type { PipelineSpec, SourceSpec } from '../../pipeline/spec.js';
import { topoOrder } from '../../pipeline/topo-order.js';
import { unsupportedElements } from '../capability-check.js';
import { EventStream } from '../event-stream.js';
import type { Capabilities, ExecBackend, RunHandle, RunOptions } from '../exec-backend.js';
import { emptyCounts, type FlowRunSummary, type RunError, type RunEvent, type RunResult } from '../run-event.js';

export interface NativeBatchBackendOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly sources: SourceConnector;
}

const CAPABILITIES: Capabilities = {
  datasetKinds: ['source', 'materialized-view'],
  flowKinds: ['append'],
  outputModes: ['append', 'complete'],
  triggers: [],
  expectationActions: [],
  scdTypes: [],
  sourceFormats: ['parquet'],
  watermarks: false,
  streamingReads: false,
  partitioning: true,
  incrementalRefresh: false,
};

export class NativeBatchBackend implements ExecBackend {
  readonly name = 'native-batch';

  constructor(private readonly options: NativeBatchBackendOptions) {}

  capabilities(): Capabilities {
    return CAPABILITIES;
  }

  run(graph: PipelineGraph, options: RunOptions = {}): RunHandle {
    const events = new EventStream<RunEvent>();
    let cancelled = false;
    const emit = (event: RunEvent): void => events.push(event);
    const result = this.execute(graph, options, emit, () => cancelled || options.signal?.aborted === true).finally(() => events.close());
    return {
      events,
      result,
      cancel: () => {
        cancelled = true;
      },
    };
  }

  private async execute(graph: PipelineGraph, options: RunOptions, emit: (event: RunEvent) => void, isCancelled: () => boolean): Promise<RunResult> {
    const pipeline = graph.name;
    const now = Date.now;
    const flows: FlowRunSummary[] = [];
    const finish = (status: RunResult['status'], error?: RunError): RunResult => {
      const result: RunResult = { pipeline, status, flows, ...(error === undefined ? {} : { error }) };
      emit(status === 'failed' ? { at: now(), pipeline, phase: 'failed', error: error ?? unknownError() } : { at: now(), pipeline, phase: 'done', result });
      return result;
    };
    let order: readonly Flow[];
    try {
      order = topoOrder(graph).flows;
      const refused = [...unsupportedElements(graph, CAPABILITIES), ...readsOfNonSources(graph)];
      if (refused.length > 0) {
        return finish('failed', { code: 'UNSUPPORTED', message: `the native batch backend cannot run: ${refused.join('; ')}`, retryable: false });
      }
    } catch (error) {
      return finish('failed', asRunError(error));
    }
    emit({ at: now(), pipeline, phase: 'planning', flows: order.map((flow) => flow.name) });
    if (options.dryRun === true) return finish('completed');
    for (const flow of order) {
      // Let consumers handle the events so far (and maybe cancel) before the next flow starts.
      await new Promise((resolve) => setImmediate(resolve));
      if (isCancelled()) return finish('cancelled');
      emit({ at: now(), pipeline, phase: 'flow-started', flow: flow.name, target: flow.target });
      try {
        const [ran] = await runPipeline({ ...this.options, spec: singleFlowSpec(graph, flow) });
        const written = Number(ran?.snapshot.summary['added-records'] ?? 0);
        const summary: FlowRunSummary = {
          flow: flow.name,
          target: flow.target,
          counts: { ...emptyCounts(), rowsWritten: written },
          ...(ran === undefined ? {} : { snapshotId: ran.snapshot.snapshotId }),
        };
        flows.push(summary);
        emit({ at: now(), pipeline, phase: 'flow-completed', ...summary });
      } catch (error) {
        const failure = asRunError(error);
        emit({ at: now(), pipeline, phase: 'failed', flow: flow.name, error: failure });
        return { pipeline, status: 'failed', flows, error: failure };
      }
    }
    return finish('completed');
  }
}

function unknownError(): RunError {
  return { code: 'UNKNOWN', message: 'the run failed', retryable: false };
}

function asRunError(error: unknown): RunError {
  if (error instanceof ThundError) return { code: error.code, message: error.message, retryable: error.retryable };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), retryable: false };
}

/** The batch engine exposes only sources to flow SQL. */
function readsOfNonSources(graph: PipelineGraph): string[] {
  return graph.flows.flatMap((flow) =>
    flow.dependencies === undefined
      ? [`flow ${flow.name}: its reads are not inferred yet (run inferDependencies first)`]
      : flow.dependencies.reads
      .filter((read) => findDataset(graph, read.name)?.kind !== 'source')
      .map((read) => `flow ${flow.name} reads ${read.name}, which is not a source`),
  );
}

/** The legacy run spec for one flow: every source, the flow, and its target table. */
function singleFlowSpec(graph: PipelineGraph, flow: Flow): PipelineSpec {
  const target = findDataset(graph, flow.target);
  if (target === undefined || target.kind !== 'materialized-view') throw new ThundError('UNSUPPORTED', `flow ${flow.name} must write a materialized view`);
  const sources: SourceSpec[] = graph.datasets.flatMap((dataset) =>
    dataset.kind === 'source' && dataset.source.format === 'parquet'
      ? [{ name: dataset.name, format: 'parquet' as const, paths: dataset.source.paths, origin: dataset.origin }]
      : [],
  );
  return {
    name: graph.name,
    specPath: flow.origin.file,
    sources,
    tables: [
      {
        key: target.name,
        identifier: target.table.identifier,
        mode: flow.outputMode === 'complete' ? 'overwrite' : 'append',
        properties: target.table.properties,
        ...(target.table.partitioning.length === 0 ? {} : { partitionedBy: target.table.partitioning }),
        origin: target.origin,
      },
    ],
    flows: [{ name: flow.name, target: target.name, targetIdentifier: target.table.identifier, sql: flow.query.text, origin: flow.origin }],
    catalog: DEFAULT_CATALOG,
    storage: {},
  };
}
