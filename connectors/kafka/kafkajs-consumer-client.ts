/**
 * ConsumerClient on kafkajs: a group member with auto-commit off whose every position comes from
 * seek(). kafkajs emits GROUP_JOIN synchronously after each join+sync and before fetching for the
 * new assignment, which is where onAssignment runs. After a rebalance kafkajs would otherwise fall
 * back to the group's committed offsets (none: we never commit), so the source re-seeks there.
 */
import { Kafka, logLevel, type Batch, type Consumer, type IHeaders, type KafkaConfig, type KafkaMessage } from 'kafkajs';
import type { RecordHeader, TopicPartition } from '../streaming-source.js';
import { byTopic, type ConsumerClient, type ConsumerHandlers, type FetchedBatch, type PartitionBounds } from './consumer-client.js';
import type { RawRecord } from './raw-record.js';

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

export class KafkaJsConsumerClient implements ConsumerClient {
  private readonly kafka: Kafka;
  private consumer: Consumer | undefined;
  private stopping = false;

  constructor(private readonly options: KafkaJsClientOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'thund',
      brokers: [...options.brokers],
      logLevel: logLevel.NOTHING,
      ...options.connection,
    });
  }

  async start(topics: readonly string[], handlers: ConsumerHandlers): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      ...(this.options.sessionTimeoutMs === undefined ? {} : { sessionTimeout: this.options.sessionTimeoutMs }),
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 250,
      ...(this.options.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: this.options.maxBytesPerPartition }),
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const assignment = event.payload.memberAssignment;
      handlers.onAssignment(Object.entries(assignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition }))));
    });
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart && !this.stopping) handlers.onFailure(event.payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      partitionsConsumedConcurrently: 1,
      eachBatch: async ({ batch, isStale }) => {
        handlers.onBatch(toFetchedBatch(batch), isStale);
      },
    });
  }

  seek(tp: TopicPartition, offset: bigint): void {
    this.running().seek({ topic: tp.topic, partition: tp.partition, offset: offset.toString() });
  }

  pause(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.running().pause(byTopic(partitions));
  }

  resume(partitions: readonly TopicPartition[]): void {
    if (partitions.length > 0) this.running().resume(byTopic(partitions));
  }

  async partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.map((o) => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }));
    } finally {
      await admin.disconnect();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect();
  }

  private running(): Consumer {
    if (this.consumer === undefined) throw new Error('Kafka consumer is not started');
    return this.consumer;
  }
}

function toFetchedBatch(batch: Batch): FetchedBatch {
  const { topic, partition } = batch;
  const fetchedOffset = (batch as Batch & { fetchedOffset: string }).fetchedOffset;
  return {
    topic,
    partition,
    fetchOffset: BigInt(fetchedOffset),
    nextOffset: BigInt(batch.lastOffset()) + 1n,
    records: batch.messages.map((m) => toRawRecord(topic, partition, m)),
  };
}

function toRawRecord(topic: string, partition: number, message: KafkaMessage): RawRecord {
  return {
    topic,
    partition,
    offset: BigInt(message.offset),
    timestampMs: Number(message.timestamp),
    key: message.key ?? null,
    value: message.value ?? null,
    headers: toHeaders(message.headers),
  };
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

function toHeaders(headers: IHeaders | undefined): readonly RecordHeader[] {
  if (headers === undefined) return NO_HEADERS;
  const list: RecordHeader[] = [];
  for (const [key, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      list.push({ key, value: one === undefined || one === null ? null : Buffer.isBuffer(one) ? one : Buffer.from(one) });
    }
  }
  return list.length === 0 ? NO_HEADERS : list;
}
