/**
 * `thund serve pipeline.yaml` for a pipeline with flows: the graph `thund run` runs, run again and
 * again by a processing-time trigger (the smallest `trigger: processing-time` interval its flows
 * declare, else --trigger-interval-ms, default 10 s) until SIGTERM or SIGINT. Each trigger is one
 * available-now run: every streaming flow reads its sources up to the end they have when its turn
 * comes and commits exactly once (positions in its checkpoint, fenced), then materialized views
 * over what changed are refreshed, in the graph's order. The Kafka consumers stay connected
 * between triggers. On a signal the batch in progress is finished and committed, and the process
 * exits 0. A run that fails with a retryable error is logged and the next trigger starts again
 * from the committed positions; any other failure stops the service with the run's error (exit 1),
 * and a restart resumes from the committed positions. Between triggers the tables are maintained
 * by their policy, one action at a time (serve-maintenance.ts). /healthz, /readyz (catalog and
 * Kafka reachable, first trigger done) and /metrics (per flow, per source partition and per maintenance
 * action) are served.
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import type { TopicPartition } from '../../../connectors/streaming-source.js';
import type { DuckDbSettings } from '../../duckdb/session.js';
import { NativeBackend } from '../../backend/native/native-backend.js';
import type { RunEvent } from '../../backend/run-event.js';
import { ThundError } from '../../errors.js';
import { isTableDataset } from '../../pipeline/ir/dataset.js';
import { kafkaSources, type PipelineGraph } from '../../pipeline/ir/graph.js';
import type { ConnectionSource } from '../../pipeline/resolve-connection.js';
import type { CatalogOverrides } from '../open-catalog.js';
import { withPipelineResources } from '../pipeline-resources.js';
import { startHttpServer } from './http-server.js';
import type { Logger } from './json-logger.js';
import { MAINTENANCE_ACTIONS } from '../commands/maintenance-actions.js';
import { PipelineMetrics } from './pipeline-metrics.js';
import { ServeMaintenance } from './serve-maintenance.js';
import { ServedStreams } from './served-streams.js';
import { lagOf, ServeStatus } from './serve-status.js';
import { Readiness } from './readiness.js';
import { OutageTracker } from './outage.js';
import { kafkaProbe } from './kafka-probe.js';

export interface PipelineServeRequest {
  /** Where the tables live: the pipeline's catalog and storage blocks. */
  readonly connection: ConnectionSource;
  readonly graph: PipelineGraph;
  readonly overrides: CatalogOverrides;
  readonly httpHost: string;
  readonly httpPort: number;
  /** Used when no flow declares a processing-time trigger. */
  readonly triggerIntervalMs: number;
  /** How long an outage of Kafka, the catalog or storage is retried before the service stops (default: for ever). */
  readonly outageGiveUpMs?: number;
  readonly logger: Logger;
  readonly stopSignal: Promise<string>;
  /** DuckDB's threads and memory limit for each trigger's session. */
  readonly duckdb?: DuckDbSettings;
  /** Where each trigger's temporary folder is made (default: the OS temp folder). */
  readonly tempRoot?: string;
  /** Where Kafka sources read secrets and the schema registry's URL (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function servePipeline(request: PipelineServeRequest): Promise<void> {
  const { graph, logger } = request;
  const intervalMs = triggerInterval(graph, request.triggerIntervalMs);
  await withPipelineResources(request.connection, request.overrides, async (opened, sources) => {
    const streams = new ServedStreams(
      kafkaOffsetStreams(request.env ?? process.env, {
        onAssignment: (change, reader) =>
          logger.log('info', 'partitions assigned', { reader, generation: change.generation, held: names(change.current), assigned: names(change.assigned), revoked: names(change.revoked) }),
        onGroupWait: (wait, reader) =>
          wait.ended
            ? logger.log('info', 'consumer group assigned partitions after the wait', { reader, group: wait.group, waitedMs: wait.waitedMs })
            : logger.log('warn', 'waiting for the consumer group to assign partitions: a member that stopped without leaving it (killed) holds the assignment until its session times out', {
                reader,
                group: wait.group,
                sessionTimeoutMs: wait.sessionTimeoutMs,
                waitedMs: wait.waitedMs,
              }),
      }),
    );
    const metrics = new PipelineMetrics();
    const tables = graph.datasets.flatMap((d) => (isTableDataset(d) ? [d.table.identifier] : []));
    const status = new ServeStatus(graph, tables.map(formatIdentifier));
    const maintenance = new ServeMaintenance({
      catalog: opened.catalog,
      io: opened.io,
      tables,
      actions: MAINTENANCE_ACTIONS,
      logger,
      onRun: (run) => {
        metrics.maintenanceRun(run);
        status.maintenanceRun(run);
      },
      onTableLoaded: (table, metadata) => status.table(table, metadata),
      ...(request.duckdb === undefined ? {} : { duckdb: request.duckdb }),
    });
    const stop = new AbortController();
    const probeNamespace = graph.datasets.flatMap((d) => (isTableDataset(d) ? [d.table.identifier.namespace] : []))[0] ?? ['default'];
    const outages = new OutageTracker({ logger, ...(request.outageGiveUpMs === undefined ? {} : { giveUpAfterMs: request.outageGiveUpMs }) });
    const probeKafka = kafkaProbe(graph, request.env ?? process.env, PROBE_TIMEOUT_MS);
    const readiness = new Readiness({
      probeCatalog: () => opened.catalog.namespaceExists(probeNamespace),
      ...(probeKafka === undefined ? {} : { probeKafka }),
      timeoutMs: PROBE_TIMEOUT_MS,
      onProbeFailed: (dependency) => outages.probeFailed(dependency, PROBE_TIMEOUT_MS),
    });
    await readiness.probe();
    readiness.start();
    const http = await startHttpServer(request.httpHost, request.httpPort, {
      ready: () => readiness.state(),
      metrics: () => metrics.render(status.report(streams.partitions(), [], readiness.state())),
      status: () => status.report(streams.partitions(), streams.deadLetters(), readiness.state()),
    });
    logger.log('info', 'thund serve started', {
      pipeline: graph.name,
      flows: graph.flows.map((flow) => flow.name),
      sources: kafkaSources(graph).map((d) => ({ source: d.name, topics: d.source.topics, valueFormat: d.source.valueFormat })),
      catalog: opened.description,
      http: `${request.httpHost}:${http.port}`,
      triggerIntervalMs: intervalMs,
    });
    let stopReason: string | undefined;
    void request.stopSignal.then((reason) => {
      stopReason = reason;
      logger.log('info', 'stopping: finishing the batch in progress', { signal: reason });
      stop.abort();
    });
    try {
      while (!stop.signal.aborted) {
        const started = Date.now();
        const backend = new NativeBackend({
          catalog: opened.catalog,
          io: opened.io,
          sources,
          streams,
          ...(request.duckdb === undefined ? {} : { duckdb: request.duckdb }),
          ...(request.tempRoot === undefined ? {} : { tempRoot: request.tempRoot }),
        });
        const handle = backend.run(graph, { signal: stop.signal });
        for await (const event of handle.events) {
          status.event(event);
          logEvent(logger, event);
        }
        const result = await handle.result;
        status.trigger(result);
        let backoffMs = 0;
        if (result.status === 'failed') {
          const error = result.error ?? { code: 'INTERNAL', message: 'the run failed', retryable: false };
          // What a later trigger may get past (a commit race lost, Kafka, the catalog or storage
          // out for a while) is retried from the committed positions; anything else stops the service.
          if (LOST_RACE.has(error.code)) {
            // Another writer committed first: nothing is down, the next trigger re-plans at once.
            logger.log('warn', 'trigger failed; the next trigger starts again from the committed positions', { code: error.code, error: error.message });
          } else if (OutageTracker.isOutage(error)) {
            readiness.triggerFailed(error);
            backoffMs = outages.failed(error);
          } else throw new ThundError(error.code, `pipeline ${graph.name}: ${error.message}`, { retryable: false });
        } else {
          readiness.triggerCompleted();
          outages.recovered({ lagRecords: streams.partitions().reduce((sum, p) => sum + lagOf(p), 0) });
        }
        if (!stop.signal.aborted && backoffMs === 0) await maintenance.runDue();
        await sleep(Math.max(backoffMs, intervalMs - (Date.now() - started)), stop.signal);
      }
      logger.log('info', 'thund serve stopped', { signal: stopReason });
    } catch (error) {
      logger.log('error', 'thund serve failed', { error: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      readiness.stop();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
      await streams.closeAll();
    }
  });
}

/** How long a readiness probe of the catalog or of Kafka waits for its answer. */
const PROBE_TIMEOUT_MS = 2_000;

/** Failures that only mean another writer committed first. */
const LOST_RACE: ReadonlySet<string> = new Set(['COMMIT_CONFLICT']);

function logEvent(logger: Logger, event: RunEvent): void {
  if (event.phase === 'flow-progress') {
    const { rowsRead, rowsWritten, lateRows } = event.counts;
    logger.log('info', 'batch committed', { flow: event.flow, batch: event.batch, rowsRead, rowsWritten, lateRows });
  } else if (event.phase === 'flow-completed' && event.skipped === undefined && event.snapshotId !== undefined) {
    logger.log('info', 'flow committed', { flow: event.flow, rowsWritten: event.counts.rowsWritten, snapshotId: String(event.snapshotId) });
  } else if (event.phase === 'commit-warning') {
    logger.log('warn', `commit: ${event.message}`, {
      flow: event.flow,
      table: event.target,
      kind: event.kind,
      snapshotId: String(event.snapshotId),
      ...(event.tableSnapshotId === undefined ? {} : { tableSnapshotId: String(event.tableSnapshotId) }),
      attempt: event.attempt,
    });
  } else if (event.phase === 'failed') {
    logger.log('error', 'run failed', { ...(event.flow === undefined ? {} : { flow: event.flow }), code: event.error.code, error: event.error.message });
  }
}

/** The smallest processing-time interval the flows declare, else the service's. */
function triggerInterval(graph: PipelineGraph, fallbackMs: number): number {
  const declared = graph.flows.flatMap((flow) => (flow.streaming.trigger?.kind === 'processing-time' ? [Number(flow.streaming.trigger.interval.micros / 1000n)] : []));
  return declared.length === 0 ? fallbackMs : Math.max(1, Math.min(...declared));
}

const names = (tps: readonly TopicPartition[]): string[] => tps.map((tp) => `${tp.topic}/${tp.partition}`);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
