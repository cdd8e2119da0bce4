/**
 * The kafkajs consumer as both Kafka clients use it (in this thread, or in a worker thread): a
 * group member with auto-commit off whose every position comes from seek(). kafkajs emits
 * GROUP_JOIN synchronously after each join+sync and before fetching for the new assignment, so
 * pauses and seeks made in onGroupJoin apply to the first fetch. After a rebalance kafkajs would
 * otherwise fall back to the group's committed offsets (none: we never commit).
 */
import { Kafka, logLevel, type Batch, type Consumer, type IHeaders, type KafkaConfig } from 'kafkajs';
import type { RecordHeader, TopicPartition } from '../streaming-source.js';
import type { PartitionBounds } from './consumer-client.js';
import { NO_HEADERS } from './raw-record.js';
import { withSaslSecretsRegistered } from './sasl-secrets.js';

export interface KafkaJsClientOptions {
  readonly brokers: readonly string[];
  readonly groupId: string;
  readonly clientId?: string;
  /** TLS and SASL settings passed through to kafkajs. */
  readonly connection?: Pick<KafkaConfig, 'ssl' | 'sasl' | 'connectionTimeout' | 'requestTimeout'>;
  readonly sessionTimeoutMs?: number;
  readonly maxWaitTimeMs?: number;
  readonly maxBytesPerPartition?: number;
}

export interface KafkaJsEvents {
  onGroupJoin(assignment: readonly TopicPartition[]): void;
  /** kafkajs gave up and will not restart by itself. */
  onCrash(error: Error): void;
}

/** `bounded`: a client whose every request gives up after `timeoutMs`, without retries (a probe). */
export function kafkaJs(options: Pick<KafkaJsClientOptions, 'brokers' | 'clientId' | 'connection'>, bounded?: { readonly timeoutMs: number }): Kafka {
  const limits = bounded === undefined ? {} : { connectionTimeout: bounded.timeoutMs, requestTimeout: bounded.timeoutMs, retry: { retries: 0 } };
  return new Kafka({ clientId: options.clientId ?? 'thund', brokers: [...options.brokers], logLevel: logLevel.NOTHING, ...withSaslSecretsRegistered(options.connection), ...limits });
}

/** Resolves once the brokers answer a metadata request; rejects when they refuse it or do not answer within `timeoutMs`. */
export async function kafkaJsAnswers(options: Pick<KafkaJsClientOptions, 'brokers' | 'clientId' | 'connection'>, timeoutMs: number): Promise<void> {
  const admin = kafkaJs(options, { timeoutMs }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** The consumer with its events wired; it may emit them (and be paused or sought) before runKafkaJsConsumer returns. */
export function kafkaJsConsumer(kafka: Kafka, options: KafkaJsClientOptions, events: KafkaJsEvents): Consumer {
  const consumer = kafka.consumer({
    groupId: options.groupId,
    readUncommitted: false,
    allowAutoTopicCreation: false,
    ...(options.sessionTimeoutMs === undefined ? {} : { sessionTimeout: options.sessionTimeoutMs }),
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 250,
    ...(options.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: options.maxBytesPerPartition }),
  });
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    const assignment = event.payload.memberAssignment;
    events.onGroupJoin(Object.entries(assignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition }))));
  });
  consumer.on(consumer.events.CRASH, (event) => {
    if (!event.payload.restart) events.onCrash(event.payload.error);
  });
  return consumer;
}

/** Connects, joins the group for the topics and starts fetching. */
export async function runKafkaJsConsumer(
  consumer: Consumer,
  topics: readonly string[],
  onBatch: (batch: Batch, isStale: () => boolean, heartbeat: () => Promise<void>) => void | Promise<void>,
): Promise<void> {
  await consumer.connect();
  await consumer.subscribe({ topics: [...topics], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: true,
    partitionsConsumedConcurrently: 1,
    eachBatch: async ({ batch, isStale, heartbeat }) => {
      await onBatch(batch, isStale, heartbeat);
    },
  });
}

export async function kafkaJsPartitionBounds(kafka: Kafka, topic: string): Promise<readonly PartitionBounds[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.map((o) => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }));
  } finally {
    await admin.disconnect();
  }
}

/** The offset a kafkajs batch was fetched from (kept by kafkajs, not in its typings). */
export function fetchedOffsetOf(batch: Batch): bigint {
  return BigInt((batch as Batch & { fetchedOffset: string }).fetchedOffset);
}

/** Without the array Object.entries makes: most records have no headers. */
function hasOwnKeys(headers: IHeaders): boolean {
  for (const key in headers) if (Object.hasOwn(headers, key)) return true;
  return false;
}

export function toHeaders(headers: IHeaders | undefined): readonly RecordHeader[] {
  if (headers === undefined || !hasOwnKeys(headers)) return NO_HEADERS;
  const list: RecordHeader[] = [];
  for (const [key, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      list.push({ key, value: one === undefined || one === null ? null : Buffer.isBuffer(one) ? one : Buffer.from(one) });
    }
  }
  return list.length === 0 ? NO_HEADERS : list;
}
