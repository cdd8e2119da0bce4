/**
 * ProducerClient on kafkajs: an idempotent producer (acks=all, one request in flight, so the
 * broker drops the duplicates of its own retries and keeps per-partition order), transactional
 * when given a transactional id. Keys are partitioned with Java's murmur2, as Kafka's own
 * clients do, so a key lands in the same partition whichever client wrote it.
 */
import { Kafka, logLevel, Partitioners, type Admin, type KafkaConfig, type Message, type Producer, type Transaction } from 'kafkajs';
import type { OutgoingRecord, ProducerClient, ProducerTransaction } from './producer-client.js';
import { withSaslSecretsRegistered } from './sasl-secrets.js';

export interface KafkaJsProducerOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** Makes every publish one Kafka transaction; unique per logical writer (it fences zombies). */
  readonly transactionalId?: string;
  readonly transactionTimeoutMs?: number;
  /** TLS and SASL settings passed through to kafkajs. */
  readonly connection?: Pick<KafkaConfig, 'ssl' | 'sasl' | 'connectionTimeout' | 'requestTimeout'>;
  /** Retries of connects and retriable sends (kafkajs default 5). */
  readonly retries?: number;
}

export class KafkaJsProducerClient implements ProducerClient {
  readonly brokers: readonly string[];
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private admin: Admin | undefined;

  constructor(private readonly options: KafkaJsProducerOptions) {
    this.brokers = [...options.brokers];
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'thund-sink',
      brokers: [...options.brokers],
      logLevel: logLevel.NOTHING,
      ...(options.retries === undefined ? {} : { retry: { retries: options.retries, initialRetryTime: 200, maxRetryTime: 5_000 } }),
      ...withSaslSecretsRegistered(options.connection),
    });
  }

  async connect(): Promise<void> {
    const producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      ...(this.options.transactionalId === undefined ? {} : { transactionalId: this.options.transactionalId }),
      ...(this.options.transactionTimeoutMs === undefined ? {} : { transactionTimeout: this.options.transactionTimeoutMs }),
    });
    const admin = this.kafka.admin();
    this.producer = producer;
    this.admin = admin;
    await admin.connect();
    await producer.connect();
  }

  async partitionCount(topic: string): Promise<number | undefined> {
    const admin = this.required(this.admin);
    // listTopics first: a metadata request naming an absent topic may create it on brokers with auto-create on.
    if (!(await admin.listTopics()).includes(topic)) return undefined;
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    return metadata.topics.find((t) => t.name === topic)?.partitions.length;
  }

  async send(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    await this.required(this.producer).send({ topic, acks: -1, messages: records.map(toMessage) });
  }

  async beginTransaction(): Promise<ProducerTransaction> {
    const transaction: Transaction = await this.required(this.producer).transaction();
    return {
      send: async (topic, records) => {
        await transaction.send({ topic, acks: -1, messages: records.map(toMessage) });
      },
      commit: () => transaction.commit(),
      abort: () => transaction.abort(),
    };
  }

  async disconnect(): Promise<void> {
    const producer = this.producer;
    const admin = this.admin;
    this.producer = undefined;
    this.admin = undefined;
    await Promise.all([producer?.disconnect().catch(() => undefined), admin?.disconnect().catch(() => undefined)]);
  }

  private required<T>(client: T | undefined): T {
    if (client === undefined) throw new Error('KafkaJsProducerClient used before connect()');
    return client;
  }
}

function toMessage(record: OutgoingRecord): Message {
  const headers: Record<string, Buffer[]> = {};
  for (const header of record.headers) if (header.value !== null) (headers[header.key] ??= []).push(header.value);
  return { key: record.key, value: record.value, headers };
}
