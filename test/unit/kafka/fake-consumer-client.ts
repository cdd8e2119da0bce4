/**
 * A ConsumerClient the test drives by hand: it records seeks and which partitions are paused,
 * and lets the test deliver assignments and fetched batches as a broker would.
 */
import type { ConsumerClient, ConsumerHandlers, FetchedBatch, PartitionBounds } from '../../../connectors/kafka/consumer-client.js';
import type { RawRecord } from '../../../connectors/kafka/raw-record.js';
import type { TopicPartition } from '../../../connectors/streaming-source.js';

export class FakeConsumerClient implements ConsumerClient {
  readonly seeks: string[] = [];
  readonly paused = new Set<string>();
  readonly bounds = new Map<string, PartitionBounds[]>();
  stale = false;
  stopped = false;
  private handlers: ConsumerHandlers | undefined;

  async start(_topics: readonly string[], handlers: ConsumerHandlers): Promise<void> {
    this.handlers = handlers;
  }

  seek(tp: TopicPartition, offset: bigint): void {
    this.seeks.push(`${tp.topic}/${tp.partition}@${offset}`);
  }

  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.paused.add(`${tp.topic}/${tp.partition}`);
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.paused.delete(`${tp.topic}/${tp.partition}`);
  }

  async partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    return this.bounds.get(topic) ?? [];
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  assign(current: readonly TopicPartition[]): void {
    this.on().onAssignment(current);
  }

  deliver(tp: TopicPartition, fetchOffset: bigint, values: readonly string[], nextOffset?: bigint): RawRecord[] {
    const records = values.map((v, i): RawRecord => ({ ...tp, offset: fetchOffset + BigInt(i), timestampMs: 0, key: null, value: Buffer.from(v), headers: [] }));
    const batch: FetchedBatch = { ...tp, fetchOffset, nextOffset: nextOffset ?? fetchOffset + BigInt(values.length), records };
    this.deliverFetched(batch);
    return records;
  }

  /** A batch as the client hands it over (e.g. unpacked from the consumer's worker). */
  deliverFetched(batch: FetchedBatch): void {
    this.on().onBatch(batch, () => this.stale);
  }

  fail(error: Error): void {
    this.on().onFailure(error);
  }

  isPaused(tp: TopicPartition): boolean {
    return this.paused.has(`${tp.topic}/${tp.partition}`);
  }

  private on(): ConsumerHandlers {
    if (this.handlers === undefined) throw new Error('not started');
    return this.handlers;
  }
}
