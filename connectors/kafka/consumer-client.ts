/**
 * The few things the Kafka source needs from a Kafka client, so kafkajs can be swapped (or faked
 * in tests) without touching position, buffering and rebalance logic. Handlers are called
 * synchronously by the client: onAssignment before anything is fetched for the new assignment,
 * so seeks and pauses made inside it apply to the first fetch.
 */
import type { TopicPartition } from '../streaming-source.js';
import type { RawRecord } from './raw-record.js';

export interface FetchedBatch extends TopicPartition {
  /** The offset the client fetched from. */
  readonly fetchOffset: bigint;
  /** The offset after the batch, including control records filtered out of `records`. */
  readonly nextOffset: bigint;
  readonly records: readonly RawRecord[];
}

export interface ConsumerHandlers {
  /** A batch for an assigned partition; `isStale` tells whether a seek made it obsolete. */
  onBatch(batch: FetchedBatch, isStale: () => boolean): void;
  /** The complete assignment after a rebalance. */
  onAssignment(current: readonly TopicPartition[]): void;
  /** The client stopped and will not recover by itself. */
  onFailure(error: Error): void;
}

export interface PartitionBounds {
  readonly partition: number;
  /** Log start offset: the earliest offset still stored. */
  readonly low: bigint;
  /** High watermark: the offset the next record will get. */
  readonly high: bigint;
}

export interface ConsumerClient {
  /** Connects, joins the group for these topics and starts fetching; positions come only from seek. */
  start(topics: readonly string[], handlers: ConsumerHandlers): Promise<void>;
  seek(tp: TopicPartition, offset: bigint): void;
  pause(partitions: readonly TopicPartition[]): void;
  resume(partitions: readonly TopicPartition[]): void;
  partitionBounds(topic: string): Promise<readonly PartitionBounds[]>;
  /** Leaves the group and disconnects; safe to call twice. */
  stop(): Promise<void>;
}

/** Groups partitions by topic, the shape Kafka clients take. */
export function byTopic(partitions: readonly TopicPartition[]): Array<{ topic: string; partitions: number[] }> {
  const grouped = new Map<string, number[]>();
  for (const tp of partitions) {
    const list = grouped.get(tp.topic) ?? [];
    list.push(tp.partition);
    grouped.set(tp.topic, list);
  }
  return [...grouped].map(([topic, list]) => ({ topic, partitions: list }));
}
