/**
 * A long-lived transactional producer for one topic: each publish is one Kafka transaction that
 * carries the rows and, in the same transaction, any extra records for other topics (a flow's
 * checkpoint record), so read_committed consumers see all of them or none.
 *
 * open() fences: the first transaction of a producer registers its transactional id with the
 * coordinator, which bumps the id's epoch and aborts whatever transaction an older producer with
 * that id left open (a crashed run). After open() no zombie can commit anymore, and the topic's
 * committed contents are final until this producer writes.
 */
import { InvalidInputError } from '../../src/errors.js';
import { KafkaSinkError } from './kafka-sink-error.js';
import type { OutgoingRecord, ProducerClient, ProducerTransaction } from './producer-client.js';
import { DEFAULT_SEND_LIMITS, sendBatches, type RecordChunks, type SendLimits } from './record-batches.js';

export interface TopicRecords {
  readonly topic: string;
  readonly records: readonly OutgoingRecord[];
}

export interface TransactionOutcome {
  /** Records of the main topic committed. */
  readonly records: number;
  readonly sends: number;
}

export class TransactionalPublisher {
  private opened = false;

  constructor(
    private readonly client: ProducerClient,
    private readonly topic: string,
    private readonly limits: SendLimits = DEFAULT_SEND_LIMITS,
  ) {}

  /** Connects, checks the topic exists and fences older producers with the same transactional id. */
  async open(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      throw this.failure('cannot connect to the Kafka brokers', error);
    }
    this.opened = true;
    let partitions: number | undefined;
    try {
      partitions = await this.client.partitionCount(this.topic);
    } catch (error) {
      throw this.failure("cannot read the topic's metadata", error);
    }
    if (partitions === undefined) {
      throw new KafkaSinkError(`Kafka topic "${this.topic}" does not exist on brokers ${this.client.brokers.join(',')}; create it first (the sink does not create topics)`, {
        context: { topic: this.topic, brokers: this.client.brokers.join(',') },
      });
    }
    try {
      const fence = await this.client.beginTransaction();
      await fence.abort();
    } catch (error) {
      throw this.failure('cannot register the transactional id (fencing older producers)', error);
    }
  }

  /**
   * Sends `chunks` to the topic and `extra` to their topics in one transaction and commits it.
   * On failure the transaction is aborted: none of its records becomes visible.
   */
  async publish(chunks: RecordChunks, extra: readonly TopicRecords[] = []): Promise<TransactionOutcome> {
    if (!this.opened) throw new KafkaSinkError(`the publisher of topic "${this.topic}" was used before open()`, { context: { topic: this.topic } });
    let transaction: ProducerTransaction;
    try {
      transaction = await this.client.beginTransaction();
    } catch (error) {
      throw this.failure('cannot begin a Kafka transaction', error);
    }
    let records = 0;
    let sends = 0;
    try {
      for await (const batch of sendBatches(chunks, this.limits)) {
        await transaction.send(this.topic, batch);
        records += batch.length;
        sends += 1;
      }
      for (const other of extra) if (other.records.length > 0) await transaction.send(other.topic, other.records);
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      if (error instanceof InvalidInputError) throw error;
      throw this.failure(`the transaction was aborted after ${records} records; none of them is visible to read_committed consumers`, error);
    }
    return { records, sends };
  }

  async close(): Promise<void> {
    this.opened = false;
    await this.client.disconnect().catch(() => undefined);
  }

  private failure(what: string, error: unknown): KafkaSinkError {
    if (error instanceof KafkaSinkError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    const brokers = this.client.brokers.join(',');
    return new KafkaSinkError(`Publishing to Kafka topic "${this.topic}" on brokers ${brokers} failed: ${what}: ${reason}`, {
      cause: error,
      retryable: typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true,
      context: { topic: this.topic, brokers },
    });
  }
}
