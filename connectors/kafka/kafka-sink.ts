/**
 * Publishes rows to one Kafka topic as JSON values, in batches bounded by records and bytes.
 *
 * Delivery: the producer is idempotent (the broker drops duplicates of the producer's own
 * retries, order per partition is kept), and every send waits for acks from all in-sync replicas,
 * so an acknowledged record is never lost. With a transactional id a publish is one Kafka
 * transaction: read_committed consumers see all of its records or none (a failure aborts it), and
 * a newer producer with the same id fences an older one. Without a transaction a failed publish
 * leaves the records acknowledged before the failure in the topic; publishing the same rows again
 * writes them twice (the error says how many were acknowledged). Exactly once across runs needs
 * the caller not to repeat a publish that committed.
 */
import { InvalidInputError } from '../../src/errors.js';
import { KafkaSinkError } from './kafka-sink-error.js';
import type { OutgoingRecord, ProducerClient, ProducerTransaction } from './producer-client.js';
import { DEFAULT_SEND_LIMITS, sendBatches, type RecordChunks } from './record-batches.js';

export interface KafkaSinkOptions {
  readonly topic: string;
  /** Send when a batch holds this many records (default 5000)… */
  readonly batchRecords?: number;
  /** …or this many key and value bytes (default 512 KiB, below the brokers' default 1 MiB record-batch limit). */
  readonly batchBytes?: number;
  /** Publish inside one Kafka transaction; the client must have been created with a transactional id. */
  readonly transactional?: boolean;
}

export interface PublishResult {
  readonly topic: string;
  readonly records: number;
  readonly sends: number;
  readonly transactional: boolean;
}

const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export class KafkaSink {
  private readonly batchRecords: number;
  private readonly batchBytes: number;

  constructor(
    private readonly client: ProducerClient,
    private readonly options: KafkaSinkOptions,
  ) {
    if (!TOPIC.test(options.topic)) throw new InvalidInputError(`"${options.topic}" is not a Kafka topic name (letters, digits, ".", "_", "-")`, { context: { topic: options.topic } });
    this.batchRecords = positive(options.batchRecords ?? DEFAULT_SEND_LIMITS.records, 'batchRecords');
    this.batchBytes = positive(options.batchBytes ?? DEFAULT_SEND_LIMITS.bytes, 'batchBytes');
  }

  /** Connects, checks the topic, sends every record, disconnects. */
  async publish(records: RecordChunks): Promise<PublishResult> {
    const { topic } = this.options;
    try {
      await this.client.connect();
    } catch (error) {
      throw this.failure(`cannot connect to the Kafka brokers`, error, 0);
    }
    try {
      let partitions: number | undefined;
      try {
        partitions = await this.client.partitionCount(topic);
      } catch (error) {
        throw this.failure('cannot read the topic\'s metadata', error, 0);
      }
      if (partitions === undefined) {
        throw new KafkaSinkError(`Kafka topic "${topic}" does not exist on ${this.where()}; create it first (the sink does not create topics)`, {
          context: { topic, brokers: this.client.brokers.join(',') },
        });
      }
      return this.options.transactional === true ? await this.publishInTransaction(records) : await this.publishEach(records);
    } finally {
      await this.client.disconnect().catch(() => undefined);
    }
  }

  private async publishEach(records: RecordChunks): Promise<PublishResult> {
    let acknowledged = 0;
    let sends = 0;
    for await (const batch of this.batches(records)) {
      try {
        await this.client.send(this.options.topic, batch);
      } catch (error) {
        throw this.failure(`a send of ${batch.length} records failed`, error, acknowledged);
      }
      acknowledged += batch.length;
      sends += 1;
    }
    return { topic: this.options.topic, records: acknowledged, sends, transactional: false };
  }

  private async publishInTransaction(records: RecordChunks): Promise<PublishResult> {
    let transaction: ProducerTransaction;
    try {
      transaction = await this.client.beginTransaction();
    } catch (error) {
      throw this.failure('cannot begin a Kafka transaction', error, 0);
    }
    let sent = 0;
    let sends = 0;
    try {
      for await (const batch of this.batches(records)) {
        await transaction.send(this.options.topic, batch);
        sent += batch.length;
        sends += 1;
      }
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      if (error instanceof InvalidInputError) throw error;
      throw this.failure(`the transaction was aborted after ${sent} records; none of them is visible to read_committed consumers`, error, 0);
    }
    return { topic: this.options.topic, records: sent, sends, transactional: true };
  }

  private batches(chunks: RecordChunks): AsyncGenerator<OutgoingRecord[]> {
    return sendBatches(chunks, { records: this.batchRecords, bytes: this.batchBytes });
  }

  private where(): string {
    return `brokers ${this.client.brokers.join(',')}`;
  }

  private failure(what: string, error: unknown, acknowledged: number): KafkaSinkError {
    const reason = error instanceof Error ? error.message : String(error);
    const kept = acknowledged === 0 ? '' : `; ${acknowledged} records were acknowledged before the failure and stay in the topic (publishing the same rows again duplicates them)`;
    return new KafkaSinkError(`Publishing to Kafka topic "${this.options.topic}" on ${this.where()} failed: ${what}: ${reason}${kept}`, {
      cause: error,
      retryable: isRetriable(error),
      context: { topic: this.options.topic, brokers: this.client.brokers.join(','), acknowledged },
    });
  }
}

function isRetriable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new InvalidInputError(`Kafka sink option ${name} must be a positive integer, got ${value}`, { context: { option: name } });
  return value;
}
