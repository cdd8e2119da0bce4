/**
 * Datasets of a pipeline graph, in SDP's vocabulary: sources (what data enters from), streaming
 * tables and materialized views (Iceberg tables), views and temporary views (named queries
 * inside a run), and sinks (external outputs nobody reads back).
 */
import type { DeclaredSchema } from './column-types.js';
import type { Expectation } from './expectation.js';
import type { Origin } from './origin.js';
import type { PartitionField } from './partition-field.js';
import type { Watermark } from './streaming.js';

export type DatasetKind = 'source' | 'streaming-table' | 'materialized-view' | 'view' | 'temporary-view' | 'sink';

export const DATASET_KINDS: readonly DatasetKind[] = ['source', 'streaming-table', 'materialized-view', 'view', 'temporary-view', 'sink'];

interface DatasetBase {
  /** As declared: `orders` (source, view, sink) or `lake.orders` (table). Unique ignoring case. */
  readonly name: string;
  readonly comment?: string;
  /** Declared columns; absent means inferred from the flows when run. */
  readonly schema?: DeclaredSchema;
  readonly origin: Origin;
}

export interface ParquetSourceOptions {
  readonly format: 'parquet';
  /** Paths, globs or URIs (relative paths already resolved by the author). */
  readonly paths: readonly string[];
}

/** How a Kafka source's values are decoded. */
export const KAFKA_VALUE_FORMATS = ['json', 'avro', 'debezium', 'debezium-avro'] as const;
export type KafkaValueFormat = (typeof KAFKA_VALUE_FORMATS)[number];
/** Where a Kafka source starts in a partition it has no committed position for. */
export const STARTING_OFFSETS = ['earliest', 'latest'] as const;
export type StartingOffsets = (typeof STARTING_OFFSETS)[number];

/** A Kafka topic; the connector reads it (positions as partition offsets). Options pass through. */
export interface KafkaSourceOptions {
  readonly format: 'kafka';
  /** The first of `topics`. */
  readonly topic: string;
  /** Every topic the source reads (one or more, no repeats). */
  readonly topics: readonly string[];
  readonly bootstrapServers?: string;
  readonly valueFormat: KafkaValueFormat;
  readonly startingOffsets: StartingOffsets;
  readonly options: Readonly<Record<string, string>>;
}

export type SourceOptions = ParquetSourceOptions | KafkaSourceOptions;

export interface SourceDataset extends DatasetBase {
  readonly kind: 'source';
  readonly source: SourceOptions;
  /** Event-time watermark of the source, for every streaming read of it. */
  readonly watermark?: Watermark;
}

export interface TableIdentifierParts {
  readonly namespace: readonly string[];
  readonly name: string;
}

/** How the Iceberg table a streaming table or materialized view lands in is laid out. */
export interface TableSettings {
  readonly identifier: TableIdentifierParts;
  readonly partitioning: readonly PartitionField[];
  readonly properties: Readonly<Record<string, string>>;
  /** The columns that identify a row: a batch flow in output mode update upserts by them. */
  readonly keys?: readonly string[];
}

export interface TableDataset extends DatasetBase {
  readonly kind: 'streaming-table' | 'materialized-view';
  readonly table: TableSettings;
  readonly expectations: readonly Expectation[];
}

export interface ViewDataset extends DatasetBase {
  readonly kind: 'view' | 'temporary-view';
  readonly expectations: readonly Expectation[];
}

export interface SinkDataset extends DatasetBase {
  readonly kind: 'sink';
  readonly format: string;
  readonly options: Readonly<Record<string, string>>;
  /** Checked on each flow output before it is published: drop leaves rows out, fail publishes nothing. */
  readonly expectations: readonly Expectation[];
}

export type Dataset = SourceDataset | TableDataset | ViewDataset | SinkDataset;

export const isTableDataset = (dataset: Dataset): dataset is TableDataset =>
  dataset.kind === 'streaming-table' || dataset.kind === 'materialized-view';

/** The dataset's expectations; a source has none (it is read as it is). */
export const datasetExpectations = (dataset: Dataset): readonly Expectation[] => (dataset.kind === 'source' ? [] : dataset.expectations);

/** Datasets whose rows a flow may read with STREAM(): append-only by nature. */
export const isStreamableKind = (kind: DatasetKind): boolean => kind === 'source' || kind === 'streaming-table';

/** "materialized view", "temporary view", … */
export const kindWords = (kind: DatasetKind): string => kind.replace('-', ' ');

/** Words for messages: "materialized view lake.totals". */
export function describeDataset(dataset: Dataset): string {
  return `${kindWords(dataset.kind)} ${dataset.name}`;
}
