/**
 * Topics, producers and Kafka sources on the test stack's broker for the Kafka source tests.
 * Everything opened here is closed by closeAll().
 */
import { randomUUID } from 'node:crypto';
import { CompressionTypes, Kafka, logLevel, type Admin, type Message, type Producer } from 'kafkajs';
import { KafkaJsConsumerClient } from '../../../connectors/kafka/kafkajs-consumer-client.js';
import { WorkerConsumerClient } from '../../../connectors/kafka/worker-consumer-client.js';
import { KafkaSource } from '../../../connectors/kafka/kafka-source.js';
import type { RecordDecoder } from '../../../connectors/kafka/record-decoder.js';
import type { DeadLetterCandidate, PolledBatch, PositionRange, SourcePosition, SourceRecord } from '../../../connectors/streaming-source.js';
import { requireServiceEnv } from '../../stack/service.js';

export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Where the source's kafkajs consumer runs: in the test's thread, or in a worker thread as in `thund serve`. */
export type ClientKind = 'in-thread' | 'worker';

export class KafkaFixture {
  readonly brokers: string[];
  private readonly kafka: Kafka;
  private admin: Admin | undefined;
  private producer: Producer | undefined;
  private readonly sources: Array<KafkaSource<unknown>> = [];

  constructor(readonly clientKind: ClientKind = 'in-thread') {
    this.brokers = requireServiceEnv('THUND_TEST_KAFKA_BROKERS').split(',');
    this.kafka = new Kafka({ clientId: 'thund-it-source', brokers: this.brokers, logLevel: logLevel.NOTHING });
  }

  async createTopic(numPartitions: number): Promise<string> {
    const topic = uniqueName('thund-src');
    const created = await (await this.adminClient()).createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], waitForLeaders: true });
    if (!created) throw new Error(`topic ${topic} was not created`);
    return topic;
  }

  /** Sends messages in order; with explicit partitions, offsets within a partition follow the order. */
  async produce(topic: string, messages: Message[]): Promise<void> {
    if (this.producer === undefined) {
      this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
      await this.producer.connect();
    }
    await this.producer.send({ topic, messages, acks: -1 });
  }

  /** Sends each group of messages in a transaction of its own, committed or aborted as it says; gzip-compressed when asked. */
  async produceTransactions(topic: string, transactions: ReadonlyArray<{ readonly messages: Message[]; readonly commit: boolean }>, gzip = false): Promise<void> {
    const producer = this.kafka.producer({ transactionalId: uniqueName('thund-it-tx'), idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      for (const { messages, commit } of transactions) {
        const transaction = await producer.transaction();
        await transaction.send({ topic, messages, ...(gzip ? { compression: CompressionTypes.GZIP } : {}) });
        if (commit) await transaction.commit();
        else await transaction.abort();
      }
    } finally {
      await producer.disconnect();
    }
  }

  async commitGroupOffsets(groupId: string, topic: string, partitions: Array<{ partition: number; offset: string }>): Promise<void> {
    await (await this.adminClient()).setOffsets({ groupId, topic, partitions });
  }

  source<V>(topic: string, groupId: string, decoder: RecordDecoder<V>, limits: { bufferedBytes?: number; fetchBytes?: number } = {}): KafkaSource<V> {
    const options = {
      brokers: this.brokers,
      groupId,
      clientId: 'thund-it-source',
      sessionTimeoutMs: 10_000,
      ...(limits.fetchBytes === undefined ? {} : { maxBytesPerPartition: limits.fetchBytes }),
    };
    const client = this.clientKind === 'worker' ? new WorkerConsumerClient({ ...options, checkJson: decoder.format === 'json' }) : new KafkaJsConsumerClient(options);
    const source = new KafkaSource<V>({ topics: [topic], decoder, client, ...(limits.bufferedBytes === undefined ? {} : { maxBufferedBytesPerPartition: limits.bufferedBytes }) });
    this.sources.push(source as KafkaSource<unknown>);
    return source;
  }

  async closeAll(): Promise<void> {
    for (const source of this.sources) await source.close().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
  }

  private async adminClient(): Promise<Admin> {
    if (this.admin === undefined) {
      this.admin = this.kafka.admin();
      await this.admin.connect();
    }
    return this.admin;
  }
}

export interface Collected<V> {
  readonly records: SourceRecord<V>[];
  readonly deadLetters: DeadLetterCandidate[];
  readonly ranges: PositionRange[];
  readonly polls: number;
}

/** Polls until `enough` holds for what came in; fails with what it has after timeoutMs. */
export async function pollUntil<V>(
  source: { poll(maxRecords: number, maxWaitMs: number): Promise<PolledBatch<V>> },
  enough: (c: Collected<V>) => boolean,
  timeoutMs: number,
  into: Collected<V> = { records: [], deadLetters: [], ranges: [], polls: 0 },
): Promise<Collected<V>> {
  const deadline = Date.now() + timeoutMs;
  let collected = into;
  while (!enough(collected)) {
    if (Date.now() > deadline) {
      throw new Error(`polling timed out after ${timeoutMs} ms with ${collected.records.length} records and ${collected.deadLetters.length} dead letters`);
    }
    const batch = await source.poll(100, 250);
    collected = {
      records: [...collected.records, ...batch.records],
      deadLetters: [...collected.deadLetters, ...batch.deadLetters],
      ranges: [...collected.ranges, ...batch.ranges],
      polls: collected.polls + 1,
    };
  }
  return collected;
}

/** Polls for a while and returns everything that arrived: for checking that nothing more comes. */
export async function drainFor<V>(source: { poll(maxRecords: number, maxWaitMs: number): Promise<PolledBatch<V>> }, ms: number): Promise<Collected<V>> {
  const until = Date.now() + ms;
  return pollUntil(source, () => Date.now() > until, ms + 5_000);
}

export function positionsByPartition(positions: readonly SourcePosition[]): Record<number, bigint> {
  return Object.fromEntries([...positions].sort((a, b) => a.partition - b.partition).map((p) => [p.partition, p.nextOffset]));
}
