/**
 * What the engine needs from a source connector: make a declared source readable by flow SQL,
 * as a DuckDB view of the source's name, and say what it would read, so a run can tell whether
 * a flow's input changed since it last ran. The app chooses the connector per source format.
 */
import type { DuckDbSession } from '../src/duckdb/session.js';
import type { SourceDataset } from '../src/pipeline/ir/dataset.js';
import type { DeadLetterCandidate, PositionRange, SourcePosition, SourceRecord, TopicPartition } from './streaming-source.js';

export interface SourceConnector {
  register(session: DuckDbSession, source: SourceDataset): Promise<void>;
  /**
   * A short text that changes whenever the data the source would read changes (for Parquet: the
   * matched files' names, sizes and modification times). Absent when the connector cannot tell.
   * `session` is opened only when DuckDB is needed to tell (a run that finds everything up to date
   * may then never start DuckDB).
   */
  fingerprint?(session: () => Promise<DuckDbSession>, source: SourceDataset): Promise<string>;
}

/**
 * A source read by offsets per partition (Kafka), opened by one streaming flow for one run: its
 * partitions' offsets now, and the records of given offset ranges. Which records a batch takes is
 * the engine's to decide (its positions live in the table); the stream only reads.
 */
export interface OffsetStream {
  /** Every partition of the source's topics with its earliest kept and next offset now. */
  bounds(): Promise<readonly PartitionOffsets[]>;
  /**
   * The records of `ranges` (offsets [firstOffset, nextOffset) per partition), stopping early
   * once `maxBytes` of keys and values are read, nothing arrives for `idleMs`, or `signal` is
   * aborted; `reached` says per partition where the read stopped (the range's end when complete).
   */
  read(ranges: readonly PositionRange[], limits: OffsetReadLimits): Promise<OffsetRead>;
  /**
   * The partition's end offset when this stream first read the bounds: where a reader without a
   * position starts for `starting_offsets: latest`, the same on every round of a long-running process.
   */
  endWhenOpened?(tp: TopicPartition): bigint | undefined;
  /** Told where the reader's position stands (its checkpoint's, then after each batch), for lag reporting. */
  at?(positions: readonly SourcePosition[]): void;
  close(): Promise<void>;
}

export interface OffsetReadLimits {
  readonly maxBytes: number;
  readonly idleMs: number;
  /**
   * Ends the read with what it has, as a read that went idle does: a read nobody will take (the
   * engine's read-ahead dropped on close) need not wait out records that are not coming.
   */
  readonly signal?: AbortSignal;
}

export interface PartitionOffsets extends TopicPartition {
  readonly low: bigint;
  readonly high: bigint;
}

export interface OffsetRead {
  readonly records: SourceRecord<Record<string, unknown>>[];
  readonly deadLetters: DeadLetterCandidate[];
  /** Records consumed without a row (Debezium tombstones), counted per reason. */
  readonly skipped: number;
  readonly reached: readonly SourcePosition[];
  /** DuckDB types of value fields the records' writer schemas fix (Avro logical types), for staging; absent for JSON. */
  readonly valueTypes?: ReadonlyMap<string, string>;
}

/** Opens offset streams; `reader` names who reads (pipeline and flow), for the consumer's client id. */
export interface OffsetStreamConnector {
  open(source: SourceDataset, reader: string): Promise<OffsetStream>;
}
