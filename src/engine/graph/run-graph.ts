/**
 * The native engine's graph runner: one DuckDB session per run with every Parquet source as a
 * view, every existing table as a view `"ns"."name"` over its current snapshot, and each view
 * created when its turn comes; then the flows in topological order. The session is opened at the
 * first flow with work to do: flows skipped before it (flow-skip.ts) are told from the catalog and
 * the sources' fingerprints alone, so a run with nothing to do builds no views (and may never open
 * DuckDB). A flow with a streaming read
 * or an apply-changes flow runs as micro-batches (runStreamingFlow); any other flow into a table
 * is a batch step, skipped when its result is up to date (or, for a once flow, when it already
 * ran). After each flow its target's relation is re-pointed at the new snapshot. A flow into a
 * sink publishes to it (sink/run-sink-flow.ts: Kafka, exactly once). The streaming and sink
 * runners (and Kafka's client through them) are imported when a flow of theirs runs, not before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Catalog } from '../../../catalog/catalog.js';
import type { OffsetStreamConnector, SourceConnector } from '../../../connectors/source.js';
import { emptyCounts, type FlowCounts, type FlowRunSummary, type FlowSkip, type RunError, type RunEvent, type RunResult } from '../run-events.js';
import { LazySession } from '../../duckdb/lazy-session.js';
import type { DuckDbSession, DuckDbSettings } from '../../duckdb/session.js';
import { ThundError } from '../../errors.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { scrubSecrets } from '../../secrets.js';
import { isTableDataset, type SinkDataset, type SourceDataset, type TableDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import { findDataset, nameKey, type PipelineGraph } from '../../pipeline/ir/graph.js';
import { topoOrder } from '../../pipeline/topo-order.js';
import type { FlowRunResult } from '../run-flow.js';
import { runBatchFlow } from './batch-flow-step.js';
import { flowDefinitionHash } from './definition-hash.js';
import { duckDbSettingsFor } from './kafka-duckdb-settings.js';
import { isStreamingFlow } from './flow-dispatch.js';
import type { FlowContext, FlowOutcome } from './flow-context.js';
import { flowSummary } from './flow-summary.js';
import type { ProducerClientFactory, Published } from './sink/sink-flow-context.js';
import { catalogMetadata, flowSkip } from './flow-skip.js';
import { TableRelations } from './table-relations.js';
import { upstreamOf, type UpstreamLookups } from './upstream-state.js';
import { createView } from './view-step.js';

export interface GraphRunRequest {
  /** Dependencies inferred and validated. */
  readonly graph: PipelineGraph;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly sources: SourceConnector;
  /**
   * Run the flows into these datasets (or all, with true) even when up to date; their streaming
   * flows ignore their checkpoints.
   */
  readonly fullRefresh?: boolean | readonly string[];
  readonly signal?: AbortSignal;
  /** Checked before each flow starts. */
  readonly isCancelled?: () => boolean;
  /** Where the run's temporary folder is made (default: the OS temp folder). */
  readonly tempRoot?: string;
  readonly duckdb?: DuckDbSettings;
  emit(event: RunEvent): void;
  /** Each batch write as the table writer reports it (created or not, schema changes). */
  onWrite?(flow: Flow, result: FlowRunResult): void;
  /** What a flow into a sink published (committed records and topic), once the flow finished. */
  onPublish?(flow: Flow, published: Published): void;
  /** Makes the Kafka producers of flows into sinks (default kafkajs). */
  readonly producerClient?: ProducerClientFactory;
  /** Opens the Kafka sources streaming flows read. */
  readonly streams?: OffsetStreamConnector;
}

export async function runGraph(request: GraphRunRequest): Promise<RunResult> {
  const { graph } = request;
  const pipeline = graph.name;
  const flows: FlowRunSummary[] = [];
  const emit = (event: RunEvent): void => request.emit(event);
  const end = (status: RunResult['status'], error?: RunError, flow?: string): RunResult => {
    const result: RunResult = { pipeline, status, flows, ...(error === undefined ? {} : { error }) };
    if (status === 'failed') emit({ at: Date.now(), pipeline, phase: 'failed', error: error ?? unknownError(), ...(flow === undefined ? {} : { flow }) });
    else emit({ at: Date.now(), pipeline, phase: 'done', result });
    return result;
  };
  let order: readonly Flow[];
  try {
    order = topoOrder(graph).flows;
  } catch (error) {
    return end('failed', asRunError(error));
  }
  emit({ at: Date.now(), pipeline, phase: 'planning', flows: order.map((flow) => flow.name) });
  const session = new LazySession(duckDbSettingsFor(graph, request.duckdb));
  const sourceFingerprint = fingerprintLookup(request, session);
  let prepared: PreparedSession | undefined;
  const runTemp = await mkdtemp(path.join(request.tempRoot ?? tmpdir(), 'thund-run-'));
  let current: Flow | undefined;
  try {
    const metadataOf = catalogMetadata(request.catalog);
    const beforeSession: UpstreamLookups = { tableSnapshot: async (dataset) => (await metadataOf(dataset))?.currentSnapshotId, sourceFingerprint };
    const ready = async (): Promise<PreparedSession> => (prepared ??= await prepareSession(request, session, sourceFingerprint));
    for (const flow of order) {
      // Let consumers handle the events so far (and maybe cancel) before the next flow starts.
      await new Promise((resolve) => setImmediate(resolve));
      if (request.isCancelled?.() === true || request.signal?.aborted === true) return end('cancelled');
      const skip = prepared === undefined ? await skipBeforeSession(request, flow, beforeSession, metadataOf) : undefined;
      // Sources are registered (and checked) before the first flow with work starts: their failure is the run's.
      if (skip === undefined) await ready();
      current = flow;
      emit({ at: Date.now(), pipeline, phase: 'flow-started', flow: flow.name, target: flow.target });
      const ran = skip ?? (await runOne({ request, ...(await ready()), runTemp, flow }));
      const summary: FlowRunSummary = {
        flow: flow.name,
        target: flow.target,
        counts: ran.counts,
        ...(ran.snapshotId === undefined ? {} : { snapshotId: ran.snapshotId }),
        ...(ran.skipped === undefined ? {} : { skipped: ran.skipped }),
      };
      flows.push(summary);
      emit({ at: Date.now(), pipeline, phase: 'flow-completed', ...summary });
      current = undefined;
    }
    return end('completed');
  } catch (error) {
    return end('failed', asRunError(error), current?.name);
  } finally {
    await prepared?.relations.close();
    await session.close();
    await rm(runTemp, { recursive: true, force: true });
  }
}

interface PreparedSession {
  readonly session: DuckDbSession;
  readonly relations: TableRelations;
  readonly lookups: UpstreamLookups;
}

/** Opens the run's session: every Parquet source a view, every existing table read by a flow a view over its current snapshot. */
async function prepareSession(request: GraphRunRequest, lazy: LazySession, sourceFingerprint: UpstreamLookups['sourceFingerprint']): Promise<PreparedSession> {
  const session = await lazy.get();
  for (const dataset of request.graph.datasets) {
    if (dataset.kind === 'source' && dataset.source.format === 'parquet') await request.sources.register(session, dataset);
  }
  const relations = new TableRelations(session, request.catalog);
  await relations.registerExisting(request.graph);
  return { session, relations, lookups: { tableSnapshot: async (dataset) => relations.snapshotOf(dataset), sourceFingerprint } };
}

/** The flow's skip when it is a batch flow into a table that the catalog and its sources say is skipped. */
async function skipBeforeSession(
  request: GraphRunRequest,
  flow: Flow,
  lookups: UpstreamLookups,
  metadataOf: (dataset: TableDataset) => Promise<TableMetadata | undefined>,
): Promise<FlowRan | undefined> {
  const target = findDataset(request.graph, flow.target);
  if (target === undefined || !isTableDataset(target) || isStreamingFlow(flow)) return undefined;
  const metadata = await metadataOf(target);
  const skip = flowSkip(flow, target, metadata, await upstreamOf(request.graph, flow, lookups), refreshesFully(request.fullRefresh, target));
  if (skip === undefined) return undefined;
  return { counts: emptyCounts(), skipped: skip, ...(metadata?.currentSnapshotId === undefined ? {} : { snapshotId: metadata.currentSnapshotId }) };
}

interface FlowStep {
  readonly request: GraphRunRequest;
  readonly session: DuckDbSession;
  readonly relations: TableRelations;
  readonly lookups: UpstreamLookups;
  readonly runTemp: string;
  readonly flow: Flow;
}

interface FlowRan {
  readonly counts: FlowCounts;
  readonly snapshotId?: bigint;
  readonly skipped?: FlowSkip;
}

async function runOne(step: FlowStep): Promise<FlowRan> {
  const { request, session, relations, flow } = step;
  const { graph } = request;
  const target = findDataset(graph, flow.target);
  if (target?.kind === 'view' || target?.kind === 'temporary-view') {
    // A view over a stream is read through its streaming readers (they rewrite STREAM()).
    if (isStreamingFlow(flow)) return { counts: emptyCounts() };
    const view = await createView(session, target, flow);
    return { counts: { ...emptyCounts(), rowsRead: view.rows ?? 0, rowsWritten: view.rows ?? 0, expectations: view.expectations } };
  }
  if (target?.kind === 'sink') return runSinkStep(step, target);
  if (target === undefined || !isTableDataset(target)) {
    throw new ThundError('UNSUPPORTED', `flow ${flow.name} writes ${target === undefined ? `undeclared ${flow.target}` : `${target.kind} ${target.name}`}, which the native engine cannot write`, {
      context: { flow: flow.name },
    });
  }
  const definitionHash = flowDefinitionHash(flow, target);
  const upstream = await upstreamOf(graph, flow, step.lookups);
  const fullRefresh = refreshesFully(request.fullRefresh, target);
  const skip = flowSkip(flow, target, relations.metadataOf(target), upstream, fullRefresh);
  if (skip !== undefined) return skipped(relations, target, skip);
  const tempDir = await mkdtemp(path.join(step.runTemp, `${flow.name.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
  try {
    const context: FlowContext = {
      session,
      catalog: request.catalog,
      io: request.io,
      graph,
      flow,
      target,
      fullRefresh,
      summary: flowSummary(graph, flow, definitionHash, upstream),
      tempDir,
      progress: (batch, counts, snapshotId) =>
        request.emit({ at: Date.now(), pipeline: graph.name, phase: 'flow-progress', flow: flow.name, batch, counts, ...(snapshotId === undefined ? {} : { snapshotId }) }),
      commitNotice: ({ kind, table, snapshotId, tableSnapshotId, attempt, message }) =>
        request.emit({ at: Date.now(), pipeline: graph.name, phase: 'commit-warning', flow: flow.name, target: table, kind, snapshotId, ...(tableSnapshotId === undefined ? {} : { tableSnapshotId }), attempt, message }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.streams === undefined ? {} : { streams: request.streams }),
    };
    let outcome: FlowOutcome;
    if (isStreamingFlow(flow)) {
      outcome = await (await import('./streaming/run-streaming-flow.js')).runStreamingFlow(context);
    } else {
      const batch = await runBatchFlow(context);
      request.onWrite?.(flow, batch.written);
      outcome = batch.outcome;
    }
    await relations.refresh(target);
    return outcome;
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

async function runSinkStep(step: FlowStep, target: SinkDataset): Promise<FlowRan> {
  const { request, flow } = step;
  const tempDir = await mkdtemp(path.join(step.runTemp, `${flow.name.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
  try {
    const { runSinkFlow } = await import('./sink/run-sink-flow.js');
    const outcome = await runSinkFlow({
      session: step.session,
      catalog: request.catalog,
      io: request.io,
      graph: request.graph,
      flow,
      target,
      fullRefresh: refreshesFully(request.fullRefresh, target),
      tempDir,
      progress: (batch, counts) => request.emit({ at: Date.now(), pipeline: request.graph.name, phase: 'flow-progress', flow: flow.name, batch, counts }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.producerClient === undefined ? {} : { producerClient: request.producerClient }),
    });
    if (outcome.skipped === undefined) request.onPublish?.(flow, outcome.published);
    return { counts: outcome.counts, ...(outcome.skipped === undefined ? {} : { skipped: outcome.skipped }) };
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

function refreshesFully(fullRefresh: GraphRunRequest['fullRefresh'], target: TableDataset | SinkDataset): boolean {
  if (fullRefresh === undefined || typeof fullRefresh === 'boolean') return fullRefresh === true;
  return fullRefresh.some((name) => nameKey(name) === nameKey(target.name));
}

function skipped(relations: TableRelations, target: TableDataset, why: FlowSkip): FlowRan {
  const snapshotId = relations.snapshotOf(target);
  return { counts: emptyCounts(), skipped: why, ...(snapshotId === undefined ? {} : { snapshotId }) };
}

/** Each source's fingerprint, taken once per run. */
function fingerprintLookup(request: GraphRunRequest, session: LazySession): UpstreamLookups['sourceFingerprint'] {
  const fingerprints = new Map<string, Promise<string | undefined>>();
  return (dataset: SourceDataset) => {
    let found = fingerprints.get(dataset.name);
    if (found === undefined) {
      found = dataset.source.format === 'parquet' && request.sources.fingerprint !== undefined ? request.sources.fingerprint(session.get, dataset) : Promise.resolve(undefined);
      fingerprints.set(dataset.name, found);
    }
    return found;
  };
}

function unknownError(): RunError {
  return { code: 'UNKNOWN', message: 'the run failed', retryable: false };
}

export function asRunError(error: unknown): RunError {
  if (error instanceof ThundError) return { code: error.code, message: error.message, retryable: error.retryable };
  // Not a ThundError, so not scrubbed when it was made: run events reach logs and the CLI.
  return { code: 'INTERNAL', message: scrubSecrets(error instanceof Error ? error.message : String(error)), retryable: false };
}
