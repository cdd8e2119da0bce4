/**
 * Flows: a query whose result lands in a target dataset. `append` adds the query's rows,
 * `once` runs a batch query a single time (backfills), `apply-changes` applies a CDC feed by key.
 */
import type { Origin } from './origin.js';
import type { OutputMode, StreamingSettings } from './streaming.js';

export type FlowKind = 'append' | 'apply-changes' | 'once';

export const FLOW_KINDS: readonly FlowKind[] = ['append', 'apply-changes', 'once'];

export type ColumnSelection = { readonly include: readonly string[] } | { readonly except: readonly string[] };

/**
 * How change rows say what they do: plain rows (deletes and truncates only through
 * applyAsDeletes / applyAsTruncates), Flink row kinds (+I, -U, +U, -D) in a column, or Debezium
 * envelopes (columns op, before, after).
 */
export type ChangeFormat = { readonly kind: 'rows' } | { readonly kind: 'row-kind'; readonly column: string } | { readonly kind: 'debezium' };

/** AUTO CDC / APPLY CHANGES, with Databricks' option names in camelCase. */
export interface ApplyChanges {
  readonly keys: readonly string[];
  readonly sequenceBy: string;
  /** Absent: Debezium when the input has columns op, before and after (an image a struct), else rows. */
  readonly changeFormat?: ChangeFormat;
  /** SQL condition marking a row as a delete. */
  readonly applyAsDeletes?: string;
  /** SQL condition marking a row as a truncate of the whole table (SCD type 1 only). */
  readonly applyAsTruncates?: string;
  readonly ignoreNullUpdates: boolean;
  readonly columns?: ColumnSelection;
  readonly storedAsScdType: 1 | 2;
  /** SCD type 2: changes to other columns update the current row in place. */
  readonly trackHistory?: ColumnSelection;
}

export interface SqlQuery {
  readonly language: 'sql';
  readonly text: string;
  readonly origin: Origin;
}

/** A dataset the query reads, as written in it (`lake.orders`), and whether through STREAM(). */
export interface FlowRead {
  readonly name: string;
  readonly streaming: boolean;
}

/** What the query reads and does, found by parsing it (see sql-dependencies.ts). */
export interface FlowDependencies {
  readonly reads: readonly FlowRead[];
  /** An aggregation over a streaming read (stateful: needs a watermark in append mode). */
  readonly aggregatesStream: boolean;
}

interface FlowBase {
  readonly name: string;
  /** The dataset name it writes. */
  readonly target: string;
  readonly query: SqlQuery;
  readonly outputMode: OutputMode;
  readonly streaming: StreamingSettings;
  /** Absent until inferred from the query (or declared by the author). */
  readonly dependencies?: FlowDependencies;
  /** True for the flow a dataset's own `sql` defines (same name as the dataset). */
  readonly implicit: boolean;
  readonly origin: Origin;
}

export type AppendFlow = FlowBase & { readonly kind: 'append' };
export type OnceFlow = FlowBase & { readonly kind: 'once' };
export type ApplyChangesFlow = FlowBase & { readonly kind: 'apply-changes'; readonly changes: ApplyChanges };

export type Flow = AppendFlow | OnceFlow | ApplyChangesFlow;
