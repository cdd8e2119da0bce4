/**
 * `thund serve`: one Kafka topic into one Iceberg table, exactly once, until SIGTERM or SIGINT
 * (then the batch in progress is finished and committed, and the process exits 0). Composition
 * only: the catalog from the pipeline file, the Kafka source, the DuckDB session, the
 * micro-batch loop, the HTTP endpoints and the logs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { WorkerConsumerClient } from '../../../connectors/kafka/worker-consumer-client.js';
import { KafkaSource } from '../../../connectors/kafka/kafka-source.js';
import { KafkaSourceError } from '../../../connectors/kafka/kafka-source-error.js';
import { DuckDbSession } from '../../duckdb/session.js';
import type { JsonRecord } from '../../engine/graph/streaming/batch-staging.js';
import { MicroBatchLoop } from '../../engine/graph/streaming/micro-batch-loop.js';
import { AUTO_EVOLVE_PROPERTY } from '../../engine/run-flow.js';
import { openCatalog, type CatalogOverrides } from '../open-catalog.js';
import { loadConnectionFile } from './connection-file.js';
import { startHttpServer } from './http-server.js';
import type { Logger } from './json-logger.js';
import type { ServeSettings } from './serve-config.js';
import { ServeMetrics, type PartitionEnd } from './serve-metrics.js';
import { valueDecoder } from './value-decoder.js';

export interface ServeRequest {
  readonly pipelinePath: string;
  readonly settings: ServeSettings;
  readonly overrides: CatalogOverrides;
  readonly logger: Logger;
  /** Resolves when the service should stop (signals, in the CLI). */
  readonly stopSignal: Promise<string>;
  /** Where the schema registry's URL and credentials are read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const READY_CACHE_MS = 2_000;
const LAG_CACHE_MS = 2_000;

export async function serve(request: ServeRequest): Promise<void> {
  const { settings, logger } = request;
  const decoder = valueDecoder(settings, request.env ?? process.env);
  const target = tableIdentifier(settings.table);
  const deadLetterTarget = tableIdentifier(settings.deadLetterTable ?? `${settings.table}_dead_letters`);
  const opened = await openCatalog(await loadConnectionFile(request.pipelinePath), request.overrides);
  const tempDir = await mkdtemp(join(settings.tempDir ?? tmpdir(), 'thund-serve-'));
  const session = await DuckDbSession.open({
    ...(settings.duckdbThreads === undefined ? {} : { threads: settings.duckdbThreads }),
    ...(settings.duckdbMemoryLimit === undefined ? {} : { memoryLimit: settings.duckdbMemoryLimit }),
  });
  // JSON values are checked for staging as they are by the consumer's worker thread.
  const client = new WorkerConsumerClient({ checkJson: settings.valueFormat === 'json', brokers: settings.brokers, groupId: settings.group, clientId: settings.clientId, sessionTimeoutMs: settings.sessionTimeoutMs });
  const source = new KafkaSource<Record<string, unknown>>({ topics: [settings.topic], decoder, client });
  const metrics = new ServeMetrics();
  const loop = new MicroBatchLoop({
    catalog: opened.catalog,
    io: opened.io,
    source,
    session,
    target,
    deadLetterTarget,
    ...(settings.schemaAutoEvolve === undefined ? {} : { tableProperties: { [AUTO_EVOLVE_PROPERTY]: String(settings.schemaAutoEvolve) } }),
    ...(settings.sql === undefined ? {} : { flowSql: settings.sql }),
    view: settings.view,
    tempDir,
    ...(decoder.columnTypes === undefined ? {} : { valueColumnTypes: (records: readonly JsonRecord[]) => decoder.columnTypes?.(records.map((r) => r.raw)) ?? new Map<string, string>() }),
    maxBatchRecords: settings.commitRecords,
    maxBatchMs: settings.commitIntervalMs,
    observer: {
      batch: (report) => {
        metrics.batch(report);
        logger.log(report.outcome === 'committed' ? 'info' : 'warn', `batch ${report.outcome}`, {
          records: report.records,
          rows: report.rows,
          deadLetters: report.deadLetters,
          files: report.files,
          attempts: report.attempts,
          pollMs: report.pollMs,
          writeMs: report.writeMs,
          commitMs: report.commitMs,
          batchMs: report.totalMs,
          ...(report.reason === undefined ? {} : { reason: report.reason }),
        });
      },
      log: (level, message, fields) => logger.log(level, message, fields),
    },
  });
  const admin = new Kafka({ clientId: `${settings.clientId}-lag`, brokers: settings.brokers, logLevel: logLevel.NOTHING }).admin();
  const ends = cached(LAG_CACHE_MS, async (): Promise<PartitionEnd[]> => {
    const offsets = await admin.fetchTopicOffsets(settings.topic);
    return offsets.map((o) => ({ topic: settings.topic, partition: o.partition, high: BigInt(o.high) }));
  });
  const catalogReachable = cached(READY_CACHE_MS, async () => opened.catalog.namespaceExists(target.namespace).then(() => true, () => false));
  const readiness = async (): Promise<{ ready: boolean; checks: Record<string, boolean> }> => {
    const checks = { catalog: await catalogReachable(), assigned: source.assignment().length > 0 };
    return { ready: checks.catalog && checks.assigned, checks };
  };
  const http = await startHttpServer(settings.httpHost, settings.httpPort, {
    ready: readiness,
    metrics: async () => metrics.render(loop.totals, loop.committedPositions(), await ends().catch(() => []), (await readiness()).ready),
  });
  logger.log('info', 'thund serve started', {
    topic: settings.topic,
    group: settings.group,
    valueFormat: decoder.format,
    table: formatIdentifier(target),
    deadLetterTable: formatIdentifier(deadLetterTarget),
    catalog: opened.description,
    http: `${settings.httpHost}:${http.port}`,
    commitRecords: settings.commitRecords,
    commitIntervalMs: settings.commitIntervalMs,
  });
  let stopReason: string | undefined;
  void request.stopSignal.then((reason) => {
    stopReason = reason;
    logger.log('info', 'stopping: finishing the batch in progress', { signal: reason });
    loop.stop();
  });
  try {
    await admin.connect();
    await requireTopic(admin, settings.topic);
    await loop.start();
    await loop.run();
    logger.log('info', 'thund serve stopped', { signal: stopReason, recordsIn: loop.totals.recordsIn, rows: loop.totals.recordsOut, deadLetters: loop.totals.deadLetters, commits: loop.totals.commits });
  } catch (error) {
    logger.log('error', 'thund serve failed', { error: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    await new Promise<void>((resolve) => http.server.close(() => resolve()));
    await source.close().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    session.close();
    await opened.close().catch(() => undefined);
    await rm(tempDir, { recursive: true, force: true });
  }
}

/** A missing topic would otherwise surface as a broker error naming no topic. */
async function requireTopic(admin: Admin, topic: string): Promise<void> {
  const topics = await admin.listTopics();
  if (!topics.includes(topic)) {
    throw new KafkaSourceError(`Kafka topic "${topic}" does not exist on the brokers; create it (thund serve does not create topics)`, { context: { topic } });
  }
}

function tableIdentifier(name: string): TableIdentifier {
  const parts = name.split('.');
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1] as string };
}

/** The last answer of `load` for `ms` milliseconds; concurrent callers share one call. */
function cached<T>(ms: number, load: () => Promise<T>): () => Promise<T> {
  let at = 0;
  let value: Promise<T> | undefined;
  return () => {
    if (value === undefined || Date.now() - at > ms) {
      at = Date.now();
      value = load();
      value.catch(() => {
        value = undefined;
      });
    }
    return value;
  };
}
