/**
 * OffsetStream over Kafka: reads exactly the offset ranges the engine asks for, in order, through
 * a positioned KafkaSource (positions only from seeks). Without a consumer group it is a group of
 * its own, assigned every partition; with the source's `consumer_group` it reads only the
 * partitions the group assigns this process, and tells the observer about every rebalance. Records fetched past a range's end wait for the next
 * read, which usually starts there; a read that starts elsewhere (the engine re-planned from the
 * table's positions) seeks and forgets them. A partition whose range ends in control records
 * (transaction markers, which are never returned) is complete once fetching passed its end. A
 * client that gave up (the broker out for longer than its retries) fails the read in progress and
 * is replaced by a new one on the next read or bounds.
 */
import { randomUUID } from 'node:crypto';
import type { OffsetRead, OffsetReadLimits, OffsetStream, PartitionOffsets } from '../source.js';
import { topicPartitionKey, type AssignmentChange, type DeadLetterCandidate, type PositionRange, type SourcePosition, type SourceRecord, type TopicPartition } from '../streaming-source.js';
import { hasColumnTypes } from './avro-logical-columns.js';
import type { ConsumerClient } from './consumer-client.js';
import { KafkaSource } from './kafka-source.js';
import { KafkaSourceError } from './kafka-source-error.js';
import type { WorkerConsumerOptions } from './kafka-worker-messages.js';
import { kafkaJs, kafkaJsPartitionBounds, type KafkaJsClientOptions } from './kafkajs-consumer.js';
import { DEFAULT_READ_AHEAD_BYTES, type PipelineKafkaSource } from './pipeline-source-options.js';
import { WorkerConsumerClient } from './worker-consumer-client.js';

type JsonSourceRecord = SourceRecord<Record<string, unknown>>;
type Positioned = TopicPartition & { readonly offset: bigint };

interface Cursor {
  readonly tp: TopicPartition;
  /** Every offset below it was returned by a read (or consumed without a row). */
  handed: bigint;
  /** The source returned everything below it. */
  delivered: bigint;
  /** Records and dead letters at or above `handed`, each in offset order, fetched but not returned yet. */
  readonly records: Queue<JsonSourceRecord>;
  readonly letters: Queue<DeadLetterCandidate>;
}

/** A first-in first-out queue whose take is O(1) (Array.shift moves every item left behind it). */
class Queue<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  take(): void {
    this.head += 1;
    if (this.head >= 4096 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  push(item: T): void {
    this.items.push(item);
  }
}

const newCursor = (tp: TopicPartition, from: bigint): Cursor => ({ tp: { topic: tp.topic, partition: tp.partition }, handed: from, delivered: from, records: new Queue(), letters: new Queue() });

const MAX_POLL_RECORDS = 20_000;
/** How long a member of a consumer group waits for the group's first assignment. */
const GROUP_JOIN_TIMEOUT_MS = 120_000;
/** A join takes a few seconds (the broker's initial rebalance delay is 3 s); a longer wait is told. */
const GROUP_WAIT_NOTICE_MS = 5_000;
/** kafkajs's session timeout, for a source that sets none. */
const KAFKAJS_SESSION_TIMEOUT_MS = 30_000;
/** The per-partition share of the read-ahead (pipeline-source-options.ts) stays within these. */
const MIN_READ_AHEAD_PER_PARTITION = 1024 * 1024;
const MAX_READ_AHEAD_PER_PARTITION = 16 * 1024 * 1024;
const POLL_WAIT_MS = 200;

export interface KafkaOffsetStreamOptions {
  readonly settings: PipelineKafkaSource;
  /** Names the reader in the consumer's client id and group. */
  readonly reader: string;
  /** Told about every assignment the consumer group makes (partitions assigned and revoked). */
  readonly onAssignment?: (change: AssignmentChange, reader: string) => void;
  /** Told when the group's first assignment is slow to come, and again when it comes. */
  readonly onGroupWait?: (wait: GroupWait, reader: string) => void;
  /** Another client (tests); default the worker-thread kafkajs consumer. */
  readonly client?: (options: WorkerConsumerOptions) => ConsumerClient;
}

/**
 * A wait for the consumer group's first assignment. The usual cause: a member that stopped without
 * leaving the group (killed) holds the rebalance until the broker ends its session.
 */
export interface GroupWait {
  readonly group: string;
  /** The longest such a wait lasts: the session timeout of the members (this source's). */
  readonly sessionTimeoutMs: number;
  readonly waitedMs: number;
  /** False while waiting, true once the assignment came. */
  readonly ended: boolean;
}

export class KafkaOffsetStream implements OffsetStream {
  private source: KafkaSource<Record<string, unknown>> | undefined;
  private readonly cursors = new Map<string, Cursor>();
  private lastBounds = new Map<string, PartitionOffsets>();
  private readonly firstBounds = new Map<string, bigint>();
  private readonly clientOptions: KafkaJsClientOptions;

  constructor(private readonly options: KafkaOffsetStreamOptions) {
    const { settings, reader } = options;
    const clientId = settings.clientId ?? `thund-${reader}`.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
    this.clientOptions = {
      brokers: settings.brokers,
      ...(settings.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: settings.sessionTimeoutMs }),
      // Without a shared group, a group of its own: this reader is assigned every partition.
      groupId: settings.consumerGroup ?? `${clientId}-${randomUUID()}`,
      clientId,
      ...(settings.connection === undefined ? {} : { connection: settings.connection }),
    };
  }

  async bounds(): Promise<readonly PartitionOffsets[]> {
    const kafka = kafkaJs(this.clientOptions);
    const all: PartitionOffsets[] = [];
    for (const topic of this.options.settings.topics) {
      let bounds;
      try {
        bounds = await kafkaJsPartitionBounds(kafka, topic);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A missing topic is a setting to fix (thund does not create topics); anything else may pass.
        const missing = /does not host this topic-partition|UNKNOWN_TOPIC|not exist/i.test(message);
        throw new KafkaSourceError(
          missing
            ? `Kafka topic "${topic}" does not exist on the brokers (${this.clientOptions.brokers.join(', ')}); create it (thund does not create topics)`
            : `Kafka topic "${topic}": cannot read its offsets from ${this.clientOptions.brokers.join(', ')}: ${message}`,
          { cause: error, retryable: !missing, context: { topic } },
        );
      }
      for (const b of bounds) all.push({ topic, partition: b.partition, low: b.low, high: b.high });
    }
    this.lastBounds = new Map(all.map((b) => [topicPartitionKey(b), b]));
    for (const b of all) if (!this.firstBounds.has(topicPartitionKey(b))) this.firstBounds.set(topicPartitionKey(b), b.high);
    if (this.options.settings.consumerGroup === undefined) return all;
    const owned = new Set((await this.joined()).assignment().map(topicPartitionKey));
    return all.filter((b) => owned.has(topicPartitionKey(b)));
  }

  /** The source, a member of the consumer group once the group has assigned it (possibly nothing). */
  private async joined(): Promise<KafkaSource<Record<string, unknown>>> {
    const started = Date.now();
    const deadline = started + GROUP_JOIN_TIMEOUT_MS;
    const { onGroupWait, reader, settings } = this.options;
    const wait = (ended: boolean): GroupWait => ({
      group: settings.consumerGroup ?? '',
      sessionTimeoutMs: settings.sessionTimeoutMs ?? KAFKAJS_SESSION_TIMEOUT_MS,
      waitedMs: Date.now() - started,
      ended,
    });
    // The consumer's start waits for the group's join, and the loop below for its assignment.
    let told = false;
    const notice = setTimeout(() => {
      told = true;
      onGroupWait?.(wait(false), reader);
    }, GROUP_WAIT_NOTICE_MS);
    try {
      const source = await this.opened([]);
      while (!source.assignmentKnown()) {
        if (Date.now() > deadline) {
          throw new KafkaSourceError(`Kafka consumer group "${settings.consumerGroup}" assigned this process nothing within ${GROUP_JOIN_TIMEOUT_MS / 1000} s`, {
            retryable: true,
            context: { group: settings.consumerGroup },
          });
        }
        await source.poll(0, 100);
      }
      if (told) onGroupWait?.(wait(true), reader);
      return source;
    } finally {
      clearTimeout(notice);
    }
  }

  endWhenOpened(tp: TopicPartition): bigint | undefined {
    return this.firstBounds.get(topicPartitionKey(tp));
  }

  async read(ranges: readonly PositionRange[], limits: OffsetReadLimits): Promise<OffsetRead> {
    const source = await this.opened(ranges.filter((r) => r.nextOffset > r.firstOffset));
    // A partition the group moved to another process since the bounds were read is not read here.
    const owned = this.options.settings.consumerGroup === undefined ? undefined : new Set(source.assignment().map(topicPartitionKey));
    const wanted = ranges.filter((r) => r.nextOffset > r.firstOffset && (owned?.has(topicPartitionKey(r)) ?? true));
    const byKey = new Map(wanted.map((r) => [topicPartitionKey(r), r]));
    const moved: SourcePosition[] = [];
    for (const r of wanted) {
      const key = topicPartitionKey(r);
      const cursor = this.cursors.get(key);
      if (cursor !== undefined && cursor.handed === r.firstOffset) continue;
      this.cursors.set(key, newCursor(r, r.firstOffset));
      moved.push({ topic: r.topic, partition: r.partition, nextOffset: r.firstOffset });
    }
    if (moved.length > 0) source.seek(moved);
    const idle = [...this.cursors.values()].filter((c) => !byKey.has(topicPartitionKey(c.tp))).map((c) => c.tp);
    source.pause(idle);
    source.resume(wanted);

    const records: JsonSourceRecord[] = [];
    const deadLetters: DeadLetterCandidate[] = [];
    let bytes = 0;
    let skipped = 0;
    // Records and dead letters leave their queues merged by offset; a record's size is read without touching its bytes.
    const take = (cursor: Cursor, end: bigint): void => {
      const pendingRecords = cursor.records;
      const pendingLetters = cursor.letters;
      while (bytes < limits.maxBytes) {
        const record = pendingRecords.peek();
        const letter = pendingLetters.peek();
        if (record !== undefined && (letter === undefined || record.offset < letter.offset)) {
          const offset = record.offset;
          if (offset >= end) break;
          pendingRecords.take();
          records.push(record);
          bytes += record.fetchedBytes ?? (record.key?.length ?? 0) + (record.raw?.length ?? record.json?.length ?? 0);
          cursor.handed = offset + 1n;
        } else if (letter !== undefined) {
          if (letter.offset >= end) break;
          pendingLetters.take();
          deadLetters.push(letter);
          bytes += (letter.key?.length ?? 0) + (letter.value?.length ?? 0);
          cursor.handed = letter.offset + 1n;
        } else break;
      }
    };
    const complete = (r: PositionRange): boolean => {
      const cursor = this.cursors.get(topicPartitionKey(r)) as Cursor;
      take(cursor, r.nextOffset);
      const first = minOffset(cursor.records.peek(), cursor.letters.peek());
      if (first !== undefined && first < r.nextOffset) return false;
      const fetched = first === undefined ? source.fetchedPosition(r) : undefined;
      const through = maxOf(cursor.delivered, fetched ?? 0n);
      if (through > cursor.handed) cursor.handed = minOf(through, r.nextOffset);
      return cursor.handed >= r.nextOffset;
    };
    // A partition whose range is complete stops fetching, so what it would fetch meanwhile does not pile up here.
    const paused = new Set<string>();
    const allComplete = (): boolean => {
      let all = true;
      for (const r of wanted) {
        if (!complete(r)) all = false;
        else if (!paused.has(topicPartitionKey(r))) {
          paused.add(topicPartitionKey(r));
          source.pause([r]);
        }
      }
      return all;
    };
    let quietSince = Date.now();
    while (bytes < limits.maxBytes && !allComplete() && limits.signal?.aborted !== true) {
      const polled = await source.poll(MAX_POLL_RECORDS, POLL_WAIT_MS);
      if (polled.ranges.length === 0) {
        if (Date.now() - quietSince >= limits.idleMs) break;
        continue;
      }
      quietSince = Date.now();
      for (const n of Object.values(polled.skipped)) skipped += n;
      this.parkAll(polled.records, (cursor) => cursor.records);
      this.parkAll(polled.deadLetters, (cursor) => cursor.letters);
      for (const range of polled.ranges) {
        const cursor = this.cursors.get(topicPartitionKey(range));
        if (cursor !== undefined && range.nextOffset > cursor.delivered) cursor.delivered = range.nextOffset;
      }
    }
    for (const r of wanted) complete(r);
    const reached = wanted.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: (this.cursors.get(topicPartitionKey(r)) as Cursor).handed }));
    // While the caller lands this batch, the partitions that have more go on fetching the next one
    // into the source's buffer (bounded by bytes per partition), as serve's loop does.
    // Without a read-ahead of its own the source fetches ahead what this read took (a batch of large
    // values, Debezium envelopes, is several times the default): the engine takes the next batch
    // as soon as it has staged this one (read-ahead.ts), so this holds the batch after that, and
    // twice as much only added memory (bench:kafka at 10M records: 516 against 500 MiB). The
    // batch's byte bound bounds it, whatever the backlog.
    if (this.options.settings.readAheadBytes === undefined) source.setMaxBufferedBytesPerPartition(this.perPartition(Math.max(DEFAULT_READ_AHEAD_BYTES, bytes)));
    source.resume(reached.filter((p) => p.nextOffset < (this.lastBounds.get(topicPartitionKey(p))?.high ?? 0n)));
    const { decoder } = this.options.settings;
    const valueTypes = hasColumnTypes(decoder) && records.length > 0 ? decoder.columnTypes(records.map((r) => r.raw)) : undefined;
    return { records, deadLetters, skipped, reached, ...(valueTypes === undefined || valueTypes.size === 0 ? {} : { valueTypes }) };
  }

  async close(): Promise<void> {
    const source = this.source;
    this.source = undefined;
    await source?.close();
  }

  /**
   * Keeps each fetched record (or dead letter) for its partition, unless it lies below what was
   * already returned. They come in runs of one partition in offset order: a partition's cursor is
   * looked up once per run, not per record.
   */
  private parkAll<T extends Positioned>(items: readonly T[], queueOf: (cursor: Cursor) => Queue<T>): void {
    let run: { topic: string; partition: number; cursor: Cursor | undefined } | undefined;
    for (const item of items) {
      if (run === undefined || run.partition !== item.partition || run.topic !== item.topic) {
        run = { topic: item.topic, partition: item.partition, cursor: this.cursors.get(topicPartitionKey(item)) };
      }
      const { cursor } = run;
      if (cursor !== undefined && item.offset >= cursor.handed) queueOf(cursor).push(item);
    }
  }

  /** Each partition's share of a read-ahead of `bytes` over all of them. */
  private perPartition(bytes: number): number {
    const partitions = Math.max(1, this.lastBounds.size);
    return Math.min(MAX_READ_AHEAD_PER_PARTITION, Math.max(MIN_READ_AHEAD_PER_PARTITION, Math.floor(bytes / partitions)));
  }

  private async opened(wanted: readonly PositionRange[]): Promise<KafkaSource<Record<string, unknown>>> {
    if (this.source?.failed() === true) {
      // Its client gave up (the broker was unreachable for too long). A new client reads again from
      // the positions the engine asks for: nothing fetched before counts.
      const failed = this.source;
      this.source = undefined;
      this.cursors.clear();
      await failed.close().catch(() => undefined);
    }
    if (this.source !== undefined) return this.source;
    const { settings } = this.options;
    const options: WorkerConsumerOptions = {
      ...this.clientOptions,
      checkJson: settings.checkJson,
      ...(settings.avroRegistry === undefined ? {} : { avroRegistry: settings.avroRegistry }),
      ...(settings.debeziumJson === true ? { debeziumJson: true } : {}),
    };
    const client = this.options.client?.(options) ?? new WorkerConsumerClient(options);
    const maxBufferedBytesPerPartition = this.perPartition(settings.readAheadBytes ?? DEFAULT_READ_AHEAD_BYTES);
    const source = new KafkaSource<Record<string, unknown>>({ topics: settings.topics, decoder: settings.decoder, client, maxBufferedBytesPerPartition });
    const { onAssignment, reader } = this.options;
    if (onAssignment !== undefined) {
      source.onAssignmentChange((change) => {
        onAssignment(change, reader);
        return [];
      });
    }
    // Partitions without work start at their end, so nothing is fetched for them until a read seeks them.
    const start = new Map<string, SourcePosition>([...this.lastBounds.values()].map((b) => [topicPartitionKey(b), { topic: b.topic, partition: b.partition, nextOffset: b.high }]));
    for (const r of wanted) {
      start.set(topicPartitionKey(r), { topic: r.topic, partition: r.partition, nextOffset: r.firstOffset });
      this.cursors.set(topicPartitionKey(r), newCursor(r, r.firstOffset));
    }
    await source.open([...start.values()]);
    this.source = source;
    return source;
  }
}

const minOffset = (a: Positioned | undefined, b: Positioned | undefined): bigint | undefined => (a === undefined ? b?.offset : b === undefined || a.offset < b.offset ? a.offset : b.offset);
const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const minOf = (a: bigint, b: bigint): bigint => (a < b ? a : b);
