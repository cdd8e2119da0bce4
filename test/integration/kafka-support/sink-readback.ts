/**
 * For the tests of flows into Kafka sinks: topics on the test stack's broker, a pipeline spec run
 * by the native backend (its events and what it published), Parquet input files with a plain
 * DuckDB query over them as the oracle, and an independent kafkajs consumer (read_committed unless
 * asked otherwise) that reads a topic back.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { expect } from 'vitest';
import { createParquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import type { OffsetStreamConnector } from '../../../connectors/source.js';
import type { OpenedCatalog } from '../../../src/app/open-catalog.js';
import { NativeBackend } from '../../../src/backend/native/native-backend.js';
import type { RunEvent, RunResult } from '../../../src/backend/run-event.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import type { ProducerClientFactory, Published } from '../../../src/engine/graph/sink/sink-flow-context.js';
import { parseJson } from '../../../src/iceberg/json.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { requireServiceEnv } from '../../stack/service.js';

export const brokers = requireServiceEnv('THUND_TEST_KAFKA_BROKERS').split(',');
const kafka = new Kafka({ clientId: 'thund-it-sink-readback', brokers, logLevel: logLevel.NOTHING });

export const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface ReadRecord {
  readonly key: string | null;
  readonly value: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly rawKey: string | null;
  readonly rawValue: string;
}

/** A new topic on the test stack's broker, or on the broker of `via`. */
export async function createTopic(prefix: string, partitions: number, via: Kafka = kafka): Promise<string> {
  const topic = unique(prefix);
  const admin = via.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return topic;
}

/** Every record a fresh consumer reads within `quietMs` after the last one (and after at least `expected`). */
export async function readTopic(topic: string, expected: number, options: { readUncommitted?: boolean; quietMs?: number } = {}): Promise<ReadRecord[]> {
  const consumer = kafka.consumer({ groupId: unique('sink-readback'), readUncommitted: options.readUncommitted === true, maxWaitTimeInMs: 200 });
  const read: ReadRecord[] = [];
  let last = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      read.push(decoded(message));
      last = Date.now();
    },
  });
  const deadline = Date.now() + 45_000;
  while ((read.length < expected || Date.now() - last < (options.quietMs ?? 2_000)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  return read;
}

function decoded(message: KafkaMessage): ReadRecord {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.headers ?? {})) headers[key] = String(Array.isArray(value) ? value.join('|') : value?.toString('utf8'));
  const rawValue = message.value?.toString('utf8') ?? 'null';
  const rawKey = message.key?.toString('utf8') ?? null;
  return { key: rawKey, rawKey, rawValue, value: parseJson(rawValue, 'record') as Record<string, unknown>, headers };
}

/** The records by key, asserting that no key was read twice. */
export function byKeyOnce(read: readonly ReadRecord[]): Map<string, Record<string, unknown>> {
  const map = new Map<string, Record<string, unknown>>();
  for (const record of read) {
    expect(map.has(String(record.key)), `key ${record.key} read twice`).toBe(false);
    map.set(String(record.key), record.value);
  }
  return map;
}

/** The last checkpoint record under `key` in `checkpointTopic`, as JSON (undefined when there is none). */
export async function checkpointValue(checkpointTopic: string, key: string): Promise<Record<string, unknown> | undefined> {
  const read = await readTopic(checkpointTopic, 1, { quietMs: 1_500 });
  const last = read.filter((record) => record.rawKey === key).at(-1);
  return last === undefined ? undefined : (JSON.parse(last.rawValue) as Record<string, unknown>);
}

export interface SinkRun {
  readonly result: RunResult;
  readonly events: RunEvent[];
  readonly published: Published[];
}

/** A test's folder (spec written to `pipeline.yaml` there) and the catalog its tables land in. */
export interface SinkRunPlace {
  readonly work: string;
  readonly opened: OpenedCatalog;
}

export async function runSinkSpec(
  place: SinkRunPlace,
  spec: string,
  options: { fullRefresh?: boolean; producerClient?: ProducerClientFactory; streams?: OffsetStreamConnector } = {},
): Promise<SinkRun> {
  const specPath = join(place.work, 'pipeline.yaml');
  writeFileSync(specPath, spec);
  const parsed = parsePipelineDefinition(spec, specPath);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  const session = await DuckDbSession.open({ threads: 1 });
  const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session)).finally(() => session.close());
  if (inferred.problems.length > 0) throw new Error(inferred.problems.map((p) => p.message).join('\n'));
  const sources = createParquetSourceConnector();
  const published: Published[] = [];
  try {
    const backend = new NativeBackend({
      catalog: place.opened.catalog,
      io: place.opened.io,
      sources,
      onPublish: (_flow, what) => published.push(what),
      ...(options.producerClient === undefined ? {} : { producerClient: options.producerClient }),
      ...(options.streams === undefined ? {} : { streams: options.streams }),
    });
    const handle = backend.run(inferred.graph, { fullRefresh: options.fullRefresh === true });
    const events: RunEvent[] = [];
    for await (const event of handle.events) events.push(event);
    return { result: await handle.result, events, published };
  } finally {
    await sources.close();
  }
}

/** Writes the rows of `select` as Parquet file `path`. */
export async function writeParquet(path: string, select: string): Promise<void> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    await session.run(`COPY (${select}) TO ${quoteLiteral(path)} (FORMAT parquet)`);
  } finally {
    session.close();
  }
}

/** The independent oracle: a plain DuckDB query, `{all}` standing for every Parquet file matching `glob`. */
export async function oracle(glob: string, select: string): Promise<Record<string, unknown>[]> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return await session.queryJson(select.replaceAll('{all}', `read_parquet(${quoteLiteral(glob)})`));
  } finally {
    session.close();
  }
}
