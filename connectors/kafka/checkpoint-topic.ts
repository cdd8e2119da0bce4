/**
 * A compacted Kafka topic holding one checkpoint record per writer key (the producer writes it in
 * the same transaction as the output it describes). `latest(key)` reads the topic read_committed
 * from the beginning up to its last stable offset, as listed at the call, and returns the last
 * value written for the key: a record of an aborted or still open transaction is never returned.
 * Call it after the writer fenced older producers with its transactional id (their open
 * transactions are aborted then), so nothing of the key can still be pending.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import { KafkaSinkError } from './kafka-sink-error.js';
import { withSaslSecretsRegistered } from './sasl-secrets.js';

export interface CheckpointTopicOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly connection?: Pick<KafkaConfig, 'ssl' | 'sasl' | 'connectionTimeout' | 'requestTimeout'>;
  /** How long latest() may take before it fails (default 60 s). */
  readonly readTimeoutMs?: number;
}

export class KafkaCheckpointTopic {
  private readonly kafka: Kafka;

  constructor(
    readonly topic: string,
    private readonly options: CheckpointTopicOptions,
  ) {
    this.kafka = new Kafka({ clientId: options.clientId ?? 'thund-checkpoints', brokers: [...options.brokers], logLevel: logLevel.NOTHING, ...withSaslSecretsRegistered(options.connection) });
  }

  /** Creates the topic (one partition, compacted) unless it exists. */
  async ensure(): Promise<void> {
    await this.withAdmin('cannot create the checkpoint topic', async (admin) => {
      if ((await admin.listTopics()).includes(this.topic)) return;
      // false means another writer created it meanwhile: fine either way.
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: this.topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
    });
  }

  /** The value last committed under `key`; undefined when there is none (or the last is a tombstone). */
  async latest(key: string): Promise<Buffer | undefined> {
    const targets = await this.withAdmin('cannot list the checkpoint topic\'s offsets', async (admin) => {
      const offsets = await admin.fetchTopicOffsets(this.topic);
      return new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high)]));
    });
    if (targets.size === 0) return undefined;
    const consumer = this.kafka.consumer({ groupId: `thund-checkpoint-reader-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
    let found: Buffer | undefined;
    const reached = new Set<number>();
    try {
      await new Promise<void>((resolve, reject) => {
        const timeoutMs = this.options.readTimeoutMs ?? 60_000;
        const timer = setTimeout(() => reject(new Error(`did not reach the end of the topic within ${timeoutMs} ms`)), timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        // Fired after every fetched batch, also one of only transaction markers or aborted records.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          const target = targets.get(payload.partition);
          if (target !== undefined && BigInt(payload.lastOffset) >= target - 1n) reached.add(payload.partition);
          if (reached.size === targets.size) done();
        });
        consumer.on(consumer.events.CRASH, ({ payload }) => {
          clearTimeout(timer);
          reject(payload.error);
        });
        const start = async (): Promise<void> => {
          await consumer.connect();
          await consumer.subscribe({ topic: this.topic, fromBeginning: true });
          await consumer.run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              const target = targets.get(partition);
              if (target === undefined || BigInt(message.offset) >= target) return;
              if (message.key?.toString('utf8') === key) found = message.value ?? undefined;
            },
          });
        };
        start().catch((error: unknown) => {
          clearTimeout(timer);
          reject(error);
        });
      });
    } catch (error) {
      throw this.failure('cannot read the checkpoint topic', error);
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
    return found;
  }

  private async withAdmin<T>(what: string, use: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      return await use(admin);
    } catch (error) {
      throw this.failure(what, error);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private failure(what: string, error: unknown): KafkaSinkError {
    const reason = error instanceof Error ? error.message : String(error);
    const brokers = this.options.brokers.join(',');
    return new KafkaSinkError(`Kafka checkpoint topic "${this.topic}" on brokers ${brokers}: ${what}: ${reason}`, {
      cause: error,
      context: { topic: this.topic, brokers },
    });
  }
}
