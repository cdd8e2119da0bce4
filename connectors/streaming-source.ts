/**
 * What the engine's streaming loop needs from a positioned source (Kafka today): start at the
 * positions the target table's last snapshot recorded, pull decoded records in bounded batches
 * with the positions each batch covers, hold back when the engine is full, learn about partitions
 * moving between workers, and write positions back into a snapshot summary as one JSON value.
 *
 * Exactly-once contract: the table, not the consumer group, owns positions. A batch's ranges say
 * which offsets it consumed (records, dead letters and skipped records alike); the engine commits
 * data and the advanced positions in one snapshot, and on start, after a conflict and for every
 * newly assigned partition it reads positions back from the table and seeks there.
 */
import { z } from 'zod';
import { InvalidInputError } from '../src/errors.js';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** The next offset to read in one partition (last consumed offset + 1), as Kafka commits it. */
export interface SourcePosition extends TopicPartition {
  readonly nextOffset: bigint;
}

/** Offsets [firstOffset, nextOffset) of one partition that a polled batch consumed. */
export interface PositionRange extends TopicPartition {
  readonly firstOffset: bigint;
  readonly nextOffset: bigint;
}

/** Kafka headers are ordered and a key may repeat. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/** Where a record's staged line is (kafka/staged-line.ts): bytes [start, end) of `bytes`, ending in a newline. */
export interface StagedLineRef {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
}

export interface SourceRecord<V> extends TopicPartition {
  readonly offset: bigint;
  readonly timestampMs: number;
  readonly key: Buffer | null;
  readonly headers: readonly RecordHeader[];
  readonly value: V;
  /** The value's bytes as fetched, when the source kept them (dead letters carry them exactly). */
  readonly raw?: Buffer | null;
  /**
   * Set when the value is one JSON object checked to be stageable as it is (one line, no reserved
   * top-level field): consumers may use these bytes instead of `value`, which is then parsed
   * from them only when read.
   */
  readonly json?: Buffer;
  /**
   * With `json`: names that include every top-level key of the value, found when it was checked;
   * records fetched together share one list, which may name keys only others have.
   */
  readonly fieldNames?: readonly string[];
  /** With a staged line the source wrote: the staged value's shape (kafka/value-shape.ts). */
  readonly shape?: number | undefined;
  /** Bytes the record holds, key plus value as fetched (or its staged line), when it knows without reading them. */
  readonly byteLength?: number;
  /** Key plus value bytes as fetched (what a batch's byte bound counts), when the record knows it without reading them. */
  readonly fetchedBytes?: number;
  /** With `json`: the record's staged line, when the source wrote it as it fetched the record (kafka/staged-line.ts). */
  readonly stagedLine?: StagedLineRef | undefined;
}

/**
 * Fields the engine adds to every staged row for the record's coordinates; a value with one of
 * them at its top level cannot be staged as it is.
 */
export const RECORD_COORDINATE_FIELDS = ['_kafka_topic', '_kafka_partition', '_kafka_offset', '_kafka_timestamp', '_kafka_key'] as const;

/** The field pipelines also stage: the record's headers as a list of {key, value} (serve's single-topic tables do not have it). */
export const RECORD_HEADERS_FIELD = '_kafka_headers';

/** A record that could not be decoded: everything needed to park it elsewhere and find it again. */
export interface DeadLetterCandidate extends TopicPartition {
  readonly offset: bigint;
  readonly timestampMs: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
  readonly code: string;
  readonly reason: string;
}

export interface PolledBatch<V> {
  readonly records: readonly SourceRecord<V>[];
  readonly deadLetters: readonly DeadLetterCandidate[];
  /** Records consumed on purpose without a row (e.g. Debezium tombstones), counted per reason. */
  readonly skipped: Readonly<Record<string, number>>;
  /** One range per partition the batch touched; empty when the poll timed out with nothing. */
  readonly ranges: readonly PositionRange[];
}

export interface AssignmentChange {
  /** Increases with every assignment this source receives. */
  readonly generation: number;
  /** Partitions this worker owns now and did not own before. */
  readonly assigned: readonly TopicPartition[];
  /**
   * Partitions another worker may own now. Records of these already returned by poll but not
   * committed must be discarded, not committed: the new owner starts from the table's position.
   */
  readonly revoked: readonly TopicPartition[];
  readonly current: readonly TopicPartition[];
}

/**
 * Called after every rebalance, before anything is fetched for the newly assigned partitions.
 * Returned positions (typically re-read from the table) win over the start positions given to
 * `open`; a newly assigned partition with neither starts at its earliest offset.
 */
export type AssignmentListener = (
  change: AssignmentChange,
) => Promise<readonly SourcePosition[] | undefined> | readonly SourcePosition[] | undefined;

export interface StreamingSource<V> {
  /** Joins the consumer group; positions are the table's, never the group's committed offsets. */
  open(start: readonly SourcePosition[]): Promise<void>;
  /** Up to maxRecords records, waiting at most maxWaitMs for the first one. */
  poll(maxRecords: number, maxWaitMs: number): Promise<PolledBatch<V>>;
  /** Rewinds or advances partitions (e.g. to the table's positions after a commit conflict); buffered records of them are dropped. */
  seek(positions: readonly SourcePosition[]): void;
  /** Stops fetching (all assigned partitions when none are named); buffered records stay pollable. */
  pause(partitions?: readonly TopicPartition[]): void;
  resume(partitions?: readonly TopicPartition[]): void;
  /** Replaces the listener (register it before open, or the first assignment goes unseen); returns a function that removes it. */
  onAssignmentChange(listener: AssignmentListener): () => void;
  assignment(): readonly TopicPartition[];
  /** For each assigned partition whose position is known, the offset after what poll returned last. */
  positions(): readonly SourcePosition[];
  close(): Promise<void>;
}

/** Snapshot-summary key holding the committed Kafka positions (ICEBERG.md §8: one namespaced key). */
export const KAFKA_OFFSETS_SUMMARY_KEY = 'thund.kafka.offsets';

const POSITIONS_FORMAT_VERSION = 1;

export function topicPartitionKey(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`;
}

/**
 * `{"version":1,"topics":{"orders":{"0":"1234","1":"987"}}}`: offsets as decimal strings (int64),
 * topics and partitions sorted so equal position sets give equal text.
 */
export function positionsToSummaryValue(positions: readonly SourcePosition[]): string {
  const topics: Record<string, Record<string, string>> = {};
  const sorted = [...positions].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  for (const p of sorted) {
    const partitions = (topics[p.topic] ??= {});
    if (partitions[String(p.partition)] !== undefined) {
      throw new InvalidInputError(`Position of ${p.topic}/${p.partition} given twice`, { context: { topic: p.topic, partition: p.partition } });
    }
    partitions[String(p.partition)] = p.nextOffset.toString();
  }
  return JSON.stringify({ version: POSITIONS_FORMAT_VERSION, topics });
}

const OFFSET = z.union([z.string().regex(/^(0|[1-9]\d{0,18})$/), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)]);
const POSITIONS_VALUE = z.strictObject({
  version: z.literal(POSITIONS_FORMAT_VERSION),
  topics: z.record(z.string().min(1), z.record(z.string().regex(/^(0|[1-9]\d{0,9})$/, 'partition numbers are non-negative integers'), OFFSET)),
});

/** Parses a summary value written by positionsToSummaryValue; `key` names it in errors. */
export function positionsFromSummaryValue(value: string, key: string = KAFKA_OFFSETS_SUMMARY_KEY): SourcePosition[] {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (cause) {
    throw malformed(key, 'it is not JSON', cause);
  }
  const parsed = POSITIONS_VALUE.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    // A bad record key reports "Invalid key in record"; the reason is in its nested issue.
    const nested = issue?.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
    throw malformed(key, `${nested ?? issue?.message ?? 'unexpected shape'}${where}`, parsed.error);
  }
  const positions: SourcePosition[] = [];
  for (const [topic, partitions] of Object.entries(parsed.data.topics)) {
    for (const [partition, offset] of Object.entries(partitions)) {
      const nextOffset = BigInt(offset);
      if (nextOffset >= 2n ** 63n) throw malformed(key, `offset ${offset} of ${topic}/${partition} exceeds int64`);
      positions.push({ topic, partition: Number(partition), nextOffset });
    }
  }
  return positions;
}

/** The positions a snapshot summary recorded, or none when the key is absent. */
export function positionsFromSummary(summary: Readonly<Record<string, string>> | undefined, key: string = KAFKA_OFFSETS_SUMMARY_KEY): SourcePosition[] {
  const value = summary?.[key];
  return value === undefined ? [] : positionsFromSummaryValue(value, key);
}

/** Union of two position sets, the higher offset winning per partition (as the Kafka Connect sink merges). */
export function mergePositions(base: readonly SourcePosition[], advanced: readonly SourcePosition[]): SourcePosition[] {
  const merged = new Map<string, SourcePosition>();
  for (const p of [...base, ...advanced]) {
    const key = topicPartitionKey(p);
    const known = merged.get(key);
    if (known === undefined || p.nextOffset > known.nextOffset) merged.set(key, p);
  }
  return [...merged.values()];
}

/** The positions a batch leaves behind: each range's end. */
export function positionsAfter(ranges: readonly PositionRange[]): SourcePosition[] {
  return ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: r.nextOffset }));
}

function malformed(key: string, problem: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError(`Snapshot summary value "${key}" is malformed: ${problem}`, { cause, context: { summaryKey: key } });
}
