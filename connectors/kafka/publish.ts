/**
 * The sink's entry points: publish a DuckDB table or view (a flow's output) or in-memory rows to
 * a Kafka topic through a kafkajs producer (or an injected ProducerClient). A transactional id
 * makes the publish one Kafka transaction.
 */
import type { DuckDbSession } from '../../src/duckdb/session.js';
import { KafkaSink, type KafkaSinkOptions, type PublishResult } from './kafka-sink.js';
import { KafkaJsProducerClient, type KafkaJsProducerOptions } from './kafkajs-producer-client.js';
import type { ProducerClient } from './producer-client.js';
import type { RecordLayout } from './record-layout.js';
import { relationRecords } from './relation-records.js';
import { rowRecords, type Row } from './row-records.js';

export interface KafkaPublishOptions extends RecordLayout, Omit<KafkaSinkOptions, 'transactional'>, Omit<KafkaJsProducerOptions, 'brokers'> {
  readonly brokers: readonly string[];
  /** Another client than kafkajs (or a fake); brokers, client id, transactional id and retries are then its own. */
  readonly client?: ProducerClient;
}

export async function publishRelation(session: DuckDbSession, relation: string, options: KafkaPublishOptions): Promise<PublishResult> {
  return sinkFor(options).publish(relationRecords(session, relation, options));
}

export async function publishRows(rows: AsyncIterable<Row> | Iterable<Row>, options: KafkaPublishOptions): Promise<PublishResult> {
  return sinkFor(options).publish(rowRecords(rows, options));
}

function sinkFor(options: KafkaPublishOptions): KafkaSink {
  const client = options.client ?? new KafkaJsProducerClient(options);
  return new KafkaSink(client, {
    topic: options.topic,
    transactional: options.transactionalId !== undefined,
    ...(options.batchRecords === undefined ? {} : { batchRecords: options.batchRecords }),
    ...(options.batchBytes === undefined ? {} : { batchBytes: options.batchBytes }),
  });
}
