/** Messages between WorkerConsumerClient (main thread) and its kafkajs worker (kafka-consumer-worker.ts). */
import type { TopicPartition } from '../streaming-source.js';
import type { PartitionBounds } from './consumer-client.js';
import type { KafkaJsClientOptions } from './kafkajs-consumer.js';
import type { PackedBatch } from './packed-batch.js';
import type { SchemaRegistryOptions } from './schema-registry-client.js';

export interface WorkerConsumerOptions extends KafkaJsClientOptions {
  /** Run the JSON decoder's byte check on every value in the worker (RawRecord.stageableJson). */
  readonly checkJson?: boolean;
  /** Decode Confluent Avro values into their staged lines in the worker, with writer schemas from this registry (avro-line-packer.ts). */
  readonly avroRegistry?: SchemaRegistryOptions;
  /** Write the staged lines of Debezium JSON envelopes in the worker (debezium-line-packer.ts). */
  readonly debeziumJson?: boolean;
}

export interface WorkerError {
  readonly name: string;
  readonly message: string;
}

export type ToWorker =
  | { readonly kind: 'start'; readonly topics: readonly string[]; readonly options: WorkerConsumerOptions }
  | { readonly kind: 'seek'; readonly tp: TopicPartition; readonly offset: bigint; readonly epoch: number }
  | { readonly kind: 'pause' | 'resume'; readonly partitions: readonly TopicPartition[] }
  /** The main thread has run its assignment handler for this generation: its pauses now apply. */
  | { readonly kind: 'assignment-handled'; readonly generation: number }
  | { readonly kind: 'bounds'; readonly id: number; readonly topic: string }
  /** The main thread has taken a posted batch of this many bytes off the channel. */
  | { readonly kind: 'received'; readonly bytes: number }
  | { readonly kind: 'stop' };

export type FromWorker =
  | { readonly kind: 'started' }
  | { readonly kind: 'failed'; readonly during: 'start' | 'run'; readonly error: WorkerError }
  | { readonly kind: 'assignment'; readonly generation: number; readonly partitions: readonly TopicPartition[] }
  | { readonly kind: 'batch'; readonly batch: PackedBatch }
  | { readonly kind: 'bounds'; readonly id: number; readonly bounds?: readonly PartitionBounds[]; readonly error?: WorkerError }
  | { readonly kind: 'stopped' };

export function workerError(error: unknown): WorkerError {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

export function fromWorkerError(error: WorkerError): Error {
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
