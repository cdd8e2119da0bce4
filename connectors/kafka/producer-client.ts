/**
 * The few things the Kafka sink needs from a Kafka producer, so kafkajs can be swapped (or faked
 * in tests) without touching how rows become records. Every send resolves only once the brokers
 * acknowledged it with all in-sync replicas (acks=all).
 */
import type { RecordHeader } from '../streaming-source.js';

export interface OutgoingRecord {
  readonly key: Buffer | null;
  readonly value: Buffer;
  readonly headers: readonly RecordHeader[];
}

/** Records sent inside one Kafka transaction: visible to read_committed consumers only after commit. */
export interface ProducerTransaction {
  send(topic: string, records: readonly OutgoingRecord[]): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface ProducerClient {
  /** Brokers the client talks to, for messages (never credentials). */
  readonly brokers: readonly string[];
  connect(): Promise<void>;
  /** The topic's partition count, or undefined when the brokers do not know the topic. */
  partitionCount(topic: string): Promise<number | undefined>;
  send(topic: string, records: readonly OutgoingRecord[]): Promise<void>;
  /** Only for a client created with a transactional id. */
  beginTransaction(): Promise<ProducerTransaction>;
  /** Safe to call twice. */
  disconnect(): Promise<void>;
}
