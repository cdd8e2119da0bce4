/**
 * The Spark backend: lowers the graph to an SDP project, runs it with `spark-pipelines run` (a
 * local in-process Spark Connect server, or `--remote sc://host:port`), and streams the flow
 * state lines back as RunEvents. It runs only graphs the lowering maps whole: anything RUN BY
 * NATIVE or REFUSED fails the run before Spark starts, element by element.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Capabilities, ExecBackend, RunHandle, RunOptions } from '../backend/exec-backend.js';
import { EventStream } from '../backend/event-stream.js';
import { emptyCounts, type FlowRunSummary, type RunError, type RunEvent, type RunResult } from '../backend/run-event.js';
import { ThundError } from '../errors.js';
import { findDataset, type PipelineGraph } from '../pipeline/ir/graph.js';
import { formatOrigin } from '../pipeline/ir/origin.js';
import type { SparkCatalogConfig } from './catalog-conf.js';
import { plainTableName } from './identifiers.js';
import { lowerPipeline, type LoweredProject } from './lower-pipeline.js';
import { flowNameResolver, parsePipelineLine } from './pipeline-event-lines.js';
import { writeProject } from './project-files.js';
import { startSparkPipelines } from './spark-pipelines-process.js';
import type { SparkRuntime } from './spark-runtime.js';
import { sdpFeatures, type SparkVersion } from './spark-version.js';

export interface SparkBackendOptions {
  readonly runtime: SparkRuntime;
  readonly sparkVersion: SparkVersion;
  readonly catalog: SparkCatalogConfig;
  /** Folder of the lowered project (and its checkpoints, under storage/ unless `storage` is given). */
  readonly projectDir: string;
  readonly storage?: string;
  /** Each output line of spark-pipelines, for logs. */
  readonly onOutput?: (line: string) => void;
}

export class SparkBackend implements ExecBackend {
  readonly name = 'spark';

  constructor(private readonly options: SparkBackendOptions) {}

  capabilities(): Capabilities {
    const cdc = sdpFeatures(this.options.sparkVersion).autoCdcScd1;
    return {
      datasetKinds: ['source', 'streaming-table', 'materialized-view', 'view', 'temporary-view', 'sink'],
      flowKinds: cdc ? ['append', 'apply-changes'] : ['append'],
      outputModes: ['append', 'complete'],
      triggers: ['once', 'available-now'],
      expectationActions: [],
      scdTypes: cdc ? [1] : [],
      sourceFormats: ['parquet', 'kafka'],
      watermarks: true,
      streamingReads: true,
      partitioning: true,
      incrementalRefresh: false,
    };
  }

  /** The project this backend would run for the graph, with its report. */
  lower(graph: PipelineGraph): LoweredProject {
    const projectDir = path.resolve(this.options.projectDir);
    return lowerPipeline(graph, {
      sparkVersion: this.options.sparkVersion,
      catalog: this.options.catalog,
      storage: this.options.storage ?? pathToFileURL(path.join(projectDir, 'storage')).href,
      sourceName: `pipeline ${graph.name}`,
    });
  }

  run(graph: PipelineGraph, options: RunOptions = {}): RunHandle {
    const events = new EventStream<RunEvent>();
    let cancel = (): void => {};
    let cancelled = false;
    const result = this.execute(graph, options, (event) => events.push(event), (kill) => {
      cancel = kill;
      if (cancelled) kill();
    }).finally(() => events.close());
    options.signal?.addEventListener('abort', () => cancel());
    return {
      events,
      result,
      cancel: () => {
        cancelled = true;
        cancel();
      },
    };
  }

  private async execute(graph: PipelineGraph, options: RunOptions, emit: (event: RunEvent) => void, onKill: (kill: () => void) => void): Promise<RunResult> {
    const pipeline = graph.name;
    const flows: FlowRunSummary[] = [];
    const fail = (error: RunError, flow?: string): RunResult => {
      emit({ at: Date.now(), pipeline, phase: 'failed', error, ...(flow === undefined ? {} : { flow }) });
      return { pipeline, status: 'failed', flows, error };
    };
    let project: LoweredProject;
    try {
      project = this.lower(graph);
    } catch (error) {
      return fail(asRunError(error));
    }
    const unmapped = project.report.entries.filter((entry) => entry.status !== 'MAPPED');
    if (unmapped.length > 0) {
      const list = unmapped.map((entry) => `${formatOrigin(entry.origin)}: ${entry.element} ${entry.name} is ${entry.status} (${entry.reason ?? ''})`);
      return fail({ code: 'UNSUPPORTED', message: `the Spark backend runs only pipelines the lowering maps whole: ${list.join('; ')}`, retryable: false });
    }
    const projectDir = path.resolve(this.options.projectDir);
    mkdirSync(projectDir, { recursive: true });
    writeProject(projectDir, project.files);
    const targets = new Map(graph.flows.map((flow) => [flow.name, flow.target]));
    const resolve = flowNameResolver(this.sdpFlowNames(graph));
    emit({ at: Date.now(), pipeline, phase: 'planning', flows: graph.flows.map((flow) => flow.name) });

    const started = new Set<string>();
    const failedFlows: { flow: string; message?: string }[] = [];
    let lastError: string | undefined;
    let runState: string | undefined;
    const spark = startSparkPipelines({
      runtime: this.options.runtime,
      command: options.dryRun === true ? 'dry-run' : 'run',
      projectDir,
      args: options.dryRun === true ? [] : refreshArgs(graph, options, this.options.catalog.name),
      secretConfs: this.options.catalog.secretConfs,
      onLine: (line) => {
        this.options.onOutput?.(line);
        const parsed = parsePipelineLine(line);
        if (parsed.type === 'error') {
          lastError = parsed.message;
          // spark-pipelines prints the error after the flow's FAILED line.
          const open = failedFlows.find((failure) => failure.message === undefined);
          if (open !== undefined) open.message = parsed.message;
        }
        if (parsed.type === 'run') runState = parsed.state;
        if (parsed.type !== 'flow') return;
        const flow = resolve(parsed.flow);
        if (flow === undefined) return;
        const target = targets.get(flow) ?? '';
        if ((parsed.state === 'STARTING' || parsed.state === 'RUNNING') && !started.has(flow)) {
          started.add(flow);
          emit({ at: Date.now(), pipeline, phase: 'flow-started', flow, target });
        } else if (parsed.state === 'COMPLETED') {
          const summary: FlowRunSummary = { flow, target, counts: emptyCounts() };
          flows.push(summary);
          emit({ at: Date.now(), pipeline, phase: 'flow-completed', ...summary });
        } else if (parsed.state === 'FAILED') {
          failedFlows.push({ flow });
        }
      },
    });
    onKill(spark.kill);
    const exit = await spark.exit;
    if (exit.signal !== null) {
      const result: RunResult = { pipeline, status: 'cancelled', flows };
      emit({ at: Date.now(), pipeline, phase: 'done', result });
      return result;
    }
    // spark-pipelines exits 0 even when a flow failed (measured with 4.1.4): the flow lines decide.
    const firstFailure = failedFlows[0];
    if (firstFailure !== undefined) {
      return fail({ code: 'SPARK_FLOW_FAILED', message: `flow ${firstFailure.flow} failed on Spark: ${firstFailure.message ?? lastError ?? 'no error line'}`, retryable: false }, firstFailure.flow);
    }
    if (exit.code !== 0 || runState !== 'COMPLETED') {
      return fail({ code: 'SPARK_RUN_FAILED', message: `spark-pipelines ${options.dryRun === true ? 'dry-run' : 'run'} exited ${exit.code ?? '?'}${lastError === undefined ? '' : `: ${lastError}`}`, retryable: false });
    }
    const result: RunResult = { pipeline, status: 'completed', flows };
    emit({ at: Date.now(), pipeline, phase: 'done', result });
    return result;
  }

  /** SDP's flow names (lower case) → the pipeline's flow names. */
  private sdpFlowNames(graph: PipelineGraph): Map<string, string> {
    const names = new Map<string, string>();
    for (const flow of graph.flows) {
      const target = findDataset(graph, flow.target);
      const table = target !== undefined && (target.kind === 'streaming-table' || target.kind === 'materialized-view') ? plainTableName(this.options.catalog.name, target.table.identifier) : flow.target;
      names.set((flow.implicit ? table : flow.name).toLowerCase(), flow.name);
    }
    return names;
  }
}

function refreshArgs(graph: PipelineGraph, options: RunOptions, catalog: string): string[] {
  const sdpName = (name: string): string => {
    const dataset = findDataset(graph, name);
    return dataset !== undefined && (dataset.kind === 'streaming-table' || dataset.kind === 'materialized-view') ? plainTableName(catalog, dataset.table.identifier) : name;
  };
  const args: string[] = [];
  if (options.fullRefresh === true) args.push('--full-refresh-all');
  else if (Array.isArray(options.fullRefresh) && options.fullRefresh.length > 0) args.push('--full-refresh', options.fullRefresh.map(sdpName).join(','));
  if (options.refresh !== undefined && options.refresh.length > 0) args.push('--refresh', options.refresh.map(sdpName).join(','));
  return args;
}

function asRunError(error: unknown): RunError {
  if (error instanceof ThundError) return { code: error.code, message: error.message, retryable: error.retryable };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), retryable: false };
}
