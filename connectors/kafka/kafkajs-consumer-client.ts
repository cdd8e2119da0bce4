/**
 * ConsumerClient on kafkajs in this thread (kafkajs-consumer.ts has the consumer's settings and
 * events); the source re-seeks kept partitions after a rebalance.
 */
import type { Batch, Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { TopicPartition } from '../streaming-source.js';
import { byTopic, type ConsumerClient, type ConsumerHandlers, type FetchedBatch, type PartitionBounds } from './consumer-client.js';
import { fetchedOffsetOf, kafkaJs, kafkaJsPartitionBounds, kafkaJsConsumer, runKafkaJsConsumer, toHeaders, type KafkaJsClientOptions } from './kafkajs-consumer.js';
import type { RawRecord } from './raw-record.js';

export type { KafkaJsClientOptions } from './kafkajs-consumer.js';

export class KafkaJsConsumerClient implements ConsumerClient {
  private readonly kafka: Kafka;
  private consumer: Consumer | undefined;
  private stopping = false;

  constructor(private readonly options: KafkaJsClientOptions) {
    this.kafka = kafkaJs(options);
  }

  async start(topics: readonly string[], handlers: ConsumerHandlers): Promise<void> {
    const consumer = kafkaJsConsumer(this.kafka, this.options, {
      onGroupJoin: (assignment) => handlers.onAssignment(assignment),
      onCrash: (error) => {
        if (!this.stopping) handlers.onFailure(error);
      },
    });
    this.consumer = consumer;
    await runKafkaJsConsumer(consumer, topics, (batch, isStale) => handlers.onBatch(toFetchedBatch(batch), isStale));
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

  partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    return kafkaJsPartitionBounds(this.kafka, topic);
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
  return {
    topic,
    partition,
    fetchOffset: fetchedOffsetOf(batch),
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
