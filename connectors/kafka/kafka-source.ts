/**
 * StreamingSource over a ConsumerClient. Positions come from the caller (the table), never from
 * the consumer group: every newly assigned partition stays paused until the assignment listener
 * (or the start positions) says where to begin, partitions kept across a rebalance are re-sought
 * to where fetching stopped, and revoked partitions lose their buffered records. A partition's
 * fetching pauses while its buffered bytes exceed a bound, so memory stays bounded whatever the
 * backlog.
 */
import {
  topicPartitionKey,
  type AssignmentChange,
  type AssignmentListener,
  type PolledBatch,
  type PositionRange,
  type SourcePosition,
  type StreamingSource,
  type TopicPartition,
} from '../streaming-source.js';
import type { ConsumerClient, FetchedBatch, PartitionBounds } from './consumer-client.js';
import { KafkaSourceError } from './kafka-source-error.js';
import type { RawRecord } from './raw-record.js';
import { RecordBuffer } from './record-buffer.js';
import { decodeRecords } from './decode-records.js';
import type { RecordDecoder } from './record-decoder.js';

export interface KafkaSourceOptions<V> {
  readonly topics: readonly string[];
  readonly decoder: RecordDecoder<V>;
  readonly client: ConsumerClient;
  /** Fetching of a partition pauses once this many bytes wait for poll, and resumes below half of it. */
  readonly maxBufferedBytesPerPartition?: number;
}

export interface KafkaSourceCounts {
  readonly records: number;
  readonly deadLetters: number;
  readonly skipped: number;
}

interface PartitionState {
  readonly tp: TopicPartition;
  /** resolving: waiting for its start position, paused; fetching: positions known. */
  phase: 'resolving' | 'fetching';
  /** The offset the next fetched batch must start at or after. */
  fetched: bigint;
  /** The offset after the last record poll returned. */
  delivered: bigint;
  clientPaused: boolean;
}

const DEFAULT_MAX_BUFFERED_BYTES = 2 * 1024 * 1024;

export class KafkaSource<V> implements StreamingSource<V> {
  private readonly buffer = new RecordBuffer();
  private readonly owned = new Map<string, PartitionState>();
  private readonly start = new Map<string, bigint>();
  private readonly enginePaused = new Set<string>();
  private pausedAll = false;
  private generation = 0;
  private listener: AssignmentListener | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private closed = false;
  private counts = { records: 0, deadLetters: 0, skipped: 0 };
  private maxBufferedBytes: number;

  constructor(private readonly options: KafkaSourceOptions<V>) {
    this.maxBufferedBytes = options.maxBufferedBytesPerPartition ?? DEFAULT_MAX_BUFFERED_BYTES;
  }

  async open(start: readonly SourcePosition[]): Promise<void> {
    for (const p of start) this.start.set(topicPartitionKey(p), p.nextOffset);
    await this.options.client.start(this.options.topics, {
      onAssignment: (current) => this.assign(current),
      onBatch: (batch, isStale) => this.accept(batch, isStale),
      onFailure: (error) => this.fail(new KafkaSourceError(`Kafka consumer stopped: ${error.message}`, { cause: error, retryable: true })),
    });
  }

  async poll(maxRecords: number, maxWaitMs: number): Promise<PolledBatch<V>> {
    this.throwIfFailed();
    if (this.buffer.size === 0) await this.waitForRecords(maxWaitMs);
    this.throwIfFailed();
    const prepared = new Set<RawRecord>();
    let head = this.buffer.peek(maxRecords);
    // Awaiting prepare lets rebalances and seeks change the buffer: look again until nothing new is at its head.
    for (let missing = head; missing.length > 0; missing = head.filter((r) => !prepared.has(r))) {
      await this.options.decoder.prepare?.(missing);
      this.throwIfFailed();
      for (const r of missing) prepared.add(r);
      head = this.buffer.peek(maxRecords);
    }
    const taken = this.buffer.take(head.length);
    const ranges = this.advance(taken);
    const decoded = decodeRecords(this.options.decoder, taken);
    this.counts.records += decoded.records.length;
    this.counts.deadLetters += decoded.deadLetters.length;
    for (const n of Object.values(decoded.skipped)) this.counts.skipped += n;
    return { ...decoded, ranges };
  }

  seek(positions: readonly SourcePosition[]): void {
    for (const p of positions) {
      const key = topicPartitionKey(p);
      this.start.set(key, p.nextOffset);
      const state = this.owned.get(key);
      if (state?.phase !== 'fetching') continue;
      this.buffer.drop(key);
      this.options.client.seek(p, p.nextOffset);
      state.fetched = p.nextOffset;
      state.delivered = p.nextOffset;
      this.syncPause(state);
    }
  }

  /** A new bound of each partition's fetched bytes waiting for poll: partitions it frees resume, ones it fills pause. */
  setMaxBufferedBytesPerPartition(bytes: number): void {
    if (bytes === this.maxBufferedBytes) return;
    this.maxBufferedBytes = bytes;
    for (const state of this.owned.values()) this.syncPause(state);
  }

  pause(partitions?: readonly TopicPartition[]): void {
    if (partitions === undefined) this.pausedAll = true;
    else for (const tp of partitions) this.enginePaused.add(topicPartitionKey(tp));
    for (const state of this.owned.values()) this.syncPause(state);
  }

  resume(partitions?: readonly TopicPartition[]): void {
    if (partitions === undefined) {
      this.pausedAll = false;
      this.enginePaused.clear();
    } else {
      if (this.pausedAll) {
        this.pausedAll = false;
        for (const key of this.owned.keys()) this.enginePaused.add(key);
      }
      for (const tp of partitions) this.enginePaused.delete(topicPartitionKey(tp));
    }
    for (const state of this.owned.values()) this.syncPause(state);
  }

  onAssignmentChange(listener: AssignmentListener): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }

  /** Whether the group has assigned this source partitions (possibly none) at least once. */
  assignmentKnown(): boolean {
    return this.generation > 0;
  }

  /** The client stopped and will not recover by itself: every later poll throws. */
  failed(): boolean {
    return this.failure !== undefined;
  }

  assignment(): readonly TopicPartition[] {
    return [...this.owned.values()].map((s) => s.tp);
  }

  positions(): readonly SourcePosition[] {
    return [...this.owned.values()].filter((s) => s.phase === 'fetching').map((s) => ({ ...s.tp, nextOffset: s.delivered }));
  }

  /**
   * Where fetching of a partition has got to when nothing of it waits for poll: past control
   * records (transaction markers) that poll never returns. Undefined while records wait or the
   * partition's start is not resolved yet.
   */
  fetchedPosition(tp: TopicPartition): bigint | undefined {
    const key = topicPartitionKey(tp);
    const state = this.owned.get(key);
    return state?.phase === 'fetching' && !this.buffer.has(key) ? state.fetched : undefined;
  }

  /** Records fetched and waiting for poll (bounded per partition by maxBufferedBytesPerPartition). */
  bufferedRecords(): number {
    return this.buffer.size;
  }

  /** Totals since open: decoded records, dead-letter candidates, skipped records. */
  totals(): KafkaSourceCounts {
    return { ...this.counts };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.options.client.stop();
  }

  private assign(current: readonly TopicPartition[]): void {
    const generation = ++this.generation;
    const currentKeys = new Set(current.map(topicPartitionKey));
    const revoked: TopicPartition[] = [];
    for (const [key, state] of this.owned) {
      if (currentKeys.has(key)) continue;
      revoked.push(state.tp);
      this.owned.delete(key);
      this.buffer.drop(key);
    }
    const assigned: TopicPartition[] = [];
    for (const tp of current) {
      const key = topicPartitionKey(tp);
      let state = this.owned.get(key);
      if (state?.phase === 'fetching') {
        // kafkajs forgets positions on rebalance; continue where fetching stopped (the buffer is kept).
        this.options.client.seek(tp, state.fetched);
        continue;
      }
      if (state === undefined) {
        state = { tp: { topic: tp.topic, partition: tp.partition }, phase: 'resolving', fetched: 0n, delivered: 0n, clientPaused: false };
        this.owned.set(key, state);
      }
      assigned.push(state.tp);
      this.syncPause(state);
    }
    const change: AssignmentChange = { generation, assigned, revoked, current: [...this.owned.values()].map((s) => s.tp) };
    this.resolve(change).catch((error: unknown) =>
      this.fail(error instanceof KafkaSourceError ? error : new KafkaSourceError(`Assignment of generation ${generation} failed: ${String(error)}`, { cause: error })),
    );
  }

  /** Finds where each newly assigned partition starts, checks it against the log, seeks and unpauses. */
  private async resolve(change: AssignmentChange): Promise<void> {
    const fromListener = this.listener === undefined ? undefined : await this.listener(change);
    if (change.generation !== this.generation || change.assigned.length === 0) return;
    const bounds = new Map<string, PartitionBounds>();
    for (const topic of new Set(change.assigned.map((tp) => tp.topic))) {
      for (const b of await this.options.client.partitionBounds(topic)) bounds.set(topicPartitionKey({ topic, partition: b.partition }), b);
    }
    // A newer rebalance superseded this one; it resolves whatever is still unresolved.
    if (change.generation !== this.generation) return;
    const given = new Map((fromListener ?? []).map((p) => [topicPartitionKey(p), p.nextOffset]));
    for (const tp of change.assigned) {
      const key = topicPartitionKey(tp);
      const state = this.owned.get(key);
      const bound = bounds.get(key);
      if (state?.phase !== 'resolving') continue;
      if (bound === undefined) throw new KafkaSourceError(`Partition ${tp.topic}/${tp.partition} is assigned but has no offsets`, { context: { ...tp } });
      const offset = given.get(key) ?? this.start.get(key) ?? bound.low;
      checkInLog(tp, offset, bound);
      this.options.client.seek(tp, offset);
      state.phase = 'fetching';
      state.fetched = offset;
      state.delivered = offset;
      this.syncPause(state);
    }
  }

  private accept(batch: FetchedBatch, isStale: () => boolean): void {
    const key = topicPartitionKey(batch);
    const state = this.owned.get(key);
    if (state?.phase !== 'fetching' || isStale()) return;
    if (batch.fetchOffset < state.fetched) {
      this.fail(
        new KafkaSourceError(
          `Partition ${batch.topic}/${batch.partition} went back from offset ${state.fetched} to ${batch.fetchOffset}: the topic was recreated or its records deleted; refusing to re-read or skip silently`,
          { context: { topic: batch.topic, partition: batch.partition, expected: state.fetched, fetched: batch.fetchOffset } },
        ),
      );
      return;
    }
    this.buffer.push(key, batch.records.filter((r) => r.offset >= state.fetched));
    if (batch.nextOffset > state.fetched) state.fetched = batch.nextOffset;
    this.syncPause(state);
    this.wake?.();
  }

  private advance(taken: readonly RawRecord[]): PositionRange[] {
    const ranges = new Map<string, { tp: TopicPartition; first: bigint; next: bigint }>();
    let current: { tp: TopicPartition; first: bigint; next: bigint } | undefined;
    for (const r of taken) {
      // Records come in runs of one partition: look the range up only when the partition changes.
      if (current === undefined || current.tp.partition !== r.partition || current.tp.topic !== r.topic) {
        const key = topicPartitionKey(r);
        current = ranges.get(key);
        if (current === undefined) ranges.set(key, (current = { tp: r, first: r.offset, next: r.offset }));
      }
      current.next = r.offset + 1n;
    }
    for (const [key, range] of ranges) {
      const state = this.owned.get(key);
      if (state !== undefined) {
        state.delivered = range.next;
        this.syncPause(state);
      }
    }
    return [...ranges.values()].map((r) => ({ topic: r.tp.topic, partition: r.tp.partition, firstOffset: r.first, nextOffset: r.next }));
  }

  private syncPause(state: PartitionState): void {
    const key = topicPartitionKey(state.tp);
    // A full partition resumes only once half its bound is free: each resume then fetches a
    // good share of the bound instead of pausing again after one fetch.
    const buffered = this.buffer.bytesOf(key);
    const full = buffered >= this.maxBufferedBytes || (state.clientPaused && buffered > this.maxBufferedBytes / 2);
    const pause = state.phase === 'resolving' || this.pausedAll || this.enginePaused.has(key) || full;
    if (pause === state.clientPaused) return;
    state.clientPaused = pause;
    if (pause) this.options.client.pause([state.tp]);
    else this.options.client.resume([state.tp]);
  }

  private waitForRecords(maxWaitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.wake = done;
      if (this.closed || this.failure !== undefined) done();
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake?.();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new KafkaSourceError('Kafka source is closed');
  }
}

function checkInLog(tp: TopicPartition, offset: bigint, bound: PartitionBounds): void {
  const context = { topic: tp.topic, partition: tp.partition, position: offset, low: bound.low, high: bound.high };
  if (offset < bound.low) {
    throw new KafkaSourceError(
      `Partition ${tp.topic}/${tp.partition}: records from offset ${offset} to ${bound.low - 1n} were deleted (retention) before they were landed`,
      { context },
    );
  }
  if (offset > bound.high) {
    throw new KafkaSourceError(
      `Partition ${tp.topic}/${tp.partition}: the committed position ${offset} is beyond the end of the log (${bound.high}); was the topic deleted and recreated?`,
      { context },
    );
  }
}
