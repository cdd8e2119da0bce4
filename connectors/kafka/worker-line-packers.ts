/**
 * Which staged lines the consumer's worker writes while it packs a fetched batch (packed-batch.ts):
 * checked JSON values, Avro values decoded with their writer schemas (avro-line-packer.ts),
 * Debezium JSON envelopes (debezium-line-packer.ts), or none.
 */
import type { Batch } from 'kafkajs';
import { AvroLineStager } from './avro-line-packer.js';
import { debeziumEnvelopeLines } from './debezium-line-packer.js';
import type { WorkerConsumerOptions } from './kafka-worker-messages.js';
import { checkedJsonLines, type LinePackerFactory } from './packed-batch.js';

export type BatchLines = (batch: Batch) => Promise<LinePackerFactory | undefined> | LinePackerFactory | undefined;

export function batchLines(options: WorkerConsumerOptions): BatchLines {
  if (options.checkJson === true) return () => checkedJsonLines;
  if (options.debeziumJson === true) return () => debeziumEnvelopeLines;
  if (options.avroRegistry !== undefined) {
    const avro = new AvroLineStager(options.avroRegistry);
    return (batch) => avro.linesOf(batch);
  }
  return () => undefined;
}
