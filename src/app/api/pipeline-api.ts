/**
 * A pipeline graph (from the builder) validated, planned, run, served and lowered from code, by
 * the code the `thund validate | plan | run | serve | lower` commands run on a spec's graph. Each
 * function infers the flows' reads and validates first; a graph with problems is an
 * InvalidInputError listing them (`file:line:col CODE message`, the caller's line for the builder).
 */
import type { RunHandle, RunOptions } from '../../backend/exec-backend.js';
import { InvalidInputError } from '../../errors.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import type { ConnectionSource } from '../../pipeline/resolve-connection.js';
import { formatProblem, type PipelineProblem } from '../../pipeline/problems.js';
import type { PlanFormat } from '../../pipeline/render-graph.js';
import type { LoweringReport } from '../../sdp/lowering-report.js';
import type { ProjectFile } from '../../sdp/lower-pipeline.js';
import type { ConnectionConfig } from '../connection-config.js';

export interface ValidatedPipeline {
  /** The graph with each flow's reads inferred (what run, plan and lower take). */
  readonly graph: PipelineGraph;
  /** Empty when the pipeline is valid. */
  readonly problems: readonly PipelineProblem[];
}

export async function validatePipeline(graph: PipelineGraph): Promise<ValidatedPipeline> {
  const { analyseGraph } = await import('../commands/validate.js');
  return analyseGraph(graph);
}

/** The DAG in run order, as `thund plan` prints it. */
export async function planPipeline(graph: PipelineGraph, format: PlanFormat = 'text'): Promise<string> {
  const { renderGraph } = await import('../../pipeline/render-graph.js');
  return renderGraph(await validGraph(graph), format);
}

export interface RunPipelineOptions extends ConnectionConfig {
  /** Run every flow, also those whose result is up to date. */
  readonly fullRefresh?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Starts a run on the native backend into the configured catalog (the embedded one by default);
 * the catalog is closed when the run's result settles. Read `events` for its RunEvents and await
 * `result` (a failed run is a result with status `failed`, not a rejection).
 */
export async function runPipeline(graph: PipelineGraph, options: RunPipelineOptions = {}): Promise<RunHandle> {
  const valid = await validGraph(graph);
  const [{ openPipelineResources }, { nativeBackendFor }] = await Promise.all([import('../pipeline-resources.js'), import('../native-run.js')]);
  const resources = await openPipelineResources(await connectionOf(options), {});
  const runOptions: RunOptions = {
    fullRefresh: options.fullRefresh === true,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const handle = nativeBackendFor(resources.opened, resources.sources).run(valid, runOptions);
  const result = handle.result.finally(() => resources.close());
  return { events: handle.events, result, cancel: (reason) => handle.cancel(reason) };
}

export interface ServePipelineOptions extends ConnectionConfig {
  /** Default 127.0.0.1 and 9464, as `thund serve` (0: any free port). */
  readonly httpHost?: string;
  readonly httpPort?: number;
  /** Used when no flow declares a processing-time trigger (default 10 s). */
  readonly triggerIntervalMs?: number;
  /** Aborting it finishes the batch in progress, commits it and resolves. */
  readonly signal: AbortSignal;
  /** One call per log entry (default: JSON lines on stdout, as `thund serve` logs). */
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, unknown>>) => void;
}

/** Runs the pipeline again and again by its trigger, with /healthz, /readyz and /metrics, as `thund serve` does, until the signal. */
export async function servePipeline(graph: PipelineGraph, options: ServePipelineOptions): Promise<void> {
  const valid = await validGraph(graph);
  const [{ servePipeline: serve }, { JsonLogger }, { pipelineServeSettings }] = await Promise.all([
    import('../serve/pipeline-serve.js'),
    import('../serve/json-logger.js'),
    import('../serve/serve-config.js'),
  ]);
  // The settings as the command's flags: the same schema checks them and gives the same defaults.
  const settings = pipelineServeSettings(
    {
      ...(options.httpHost === undefined ? {} : { 'http-host': options.httpHost }),
      ...(options.httpPort === undefined ? {} : { 'http-port': String(options.httpPort) }),
      ...(options.triggerIntervalMs === undefined ? {} : { 'trigger-interval-ms': String(options.triggerIntervalMs) }),
    },
    {},
  );
  const stopSignal = new Promise<string>((resolve) => {
    if (options.signal.aborted) resolve('abort');
    else options.signal.addEventListener('abort', () => resolve('abort'), { once: true });
  });
  await serve({
    connection: await connectionOf(options),
    graph: valid,
    overrides: {},
    ...settings,
    logger: options.log === undefined ? new JsonLogger() : { log: options.log },
    stopSignal,
  });
}

export interface LowerPipelineOptions extends ConnectionConfig {
  /** The SDP project's folder (its run's checkpoints go to `<out>/storage`); the files are returned, not written. */
  readonly out: string;
  /** Default 4.1. */
  readonly sparkVersion?: string;
}

export interface LoweredPipeline {
  /** spark-pipeline.yml and the SQL and Python definition files, paths relative to `out`. */
  readonly files: readonly ProjectFile[];
  /** What became of every dataset, flow and expectation: MAPPED, RUN BY NATIVE or REFUSED. */
  readonly report: LoweringReport;
}

/** The pipeline as a Spark Declarative Pipelines project, as `thund lower --target sdp` writes it. */
export async function lowerPipeline(graph: PipelineGraph, options: LowerPipelineOptions): Promise<LoweredPipeline> {
  const valid = await validGraph(graph);
  const { lowerGraph } = await import('../lower-graph.js');
  const { project } = lowerGraph(valid, await connectionOf(options), {
    out: options.out,
    ...(options.sparkVersion === undefined ? {} : { sparkVersion: options.sparkVersion }),
    sourceName: `pipeline ${graph.name}`,
  });
  return { files: project.files, report: project.report };
}

async function validGraph(graph: PipelineGraph): Promise<PipelineGraph> {
  const analysed = await validatePipeline(graph);
  if (analysed.problems.length > 0) {
    throw new InvalidInputError(`pipeline ${graph.name} has problems:\n${analysed.problems.map(formatProblem).join('\n')}`, { context: { pipeline: graph.name } });
  }
  return analysed.graph;
}

/** The config checked by the spec's schemas (zod and the spec modules load here, not on import). */
async function connectionOf(config: ConnectionConfig): Promise<ConnectionSource> {
  const { connectionFromConfig } = await import('../connection-config.js');
  return connectionFromConfig(config);
}
