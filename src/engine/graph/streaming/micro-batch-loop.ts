/**
 * Kafka → Iceberg append, exactly once, in micro-batches: poll up to N records or T ms, stage the
 * batch in DuckDB, run the flow, write data files, and commit one snapshot whose summary carries
 * the batch's positions merged with the table's (table-positions.ts). The source goes on fetching
 * the next batch meanwhile, within its byte bound. Dead letters (undecodable records, records the
 * flow fails on) go to the dead-letter table in the same cycle, before the data commit; that
 * table records positions too, so a dead letter is landed once whatever happens between the two
 * commits.
 *
 * The table owns positions. Per partition the loop remembers the table position its reading is
 * based on ("basis": set on assignment and after each commit, null when the table has none). A
 * commit goes ahead only while the table still holds those bases for the batch's partitions; if
 * another worker (or a zombie) moved one, the batch is dropped and the partitions are sought to
 * the table's positions. Records below the basis are dropped when polled (already landed).
 */
import { formatIdentifier, type Catalog, type LoadedTable, type TableIdentifier } from '../../../../catalog/catalog.js';
import {
  positionsAfter,
  topicPartitionKey,
  type DeadLetterCandidate,
  type PositionRange,
  type SourcePosition,
  type StreamingSource,
  type TopicPartition,
} from '../../../../connectors/streaming-source.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { ConcurrentSchemaChangeError } from '../../../errors.js';
import { applyUpdates } from '../../../iceberg/metadata-builder.js';
import type { TableRequirement } from '../../../iceberg/requirements.js';
import { currentSchema } from '../../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../../iceberg/table-metadata.js';
import type { NestedField } from '../../../iceberg/types.js';
import type { TableUpdate } from '../../../iceberg/updates.js';
import { AUTO_EVOLVE_PROPERTY } from '../../run-flow.js';
import {
  BATCH_OUTPUT_TABLE,
  describeBatchOutput,
  projectBatchOutput,
  runBatchFlow,
  writeBatchThroughViews,
  type BatchFlowSettings,
  type DescribedColumn,
} from './batch-flow.js';
import { RECORD_COLUMNS, reservedFieldOf, type JsonRecord } from './batch-staging.js';
import { collectBatch, type CollectedBatch } from './collect-batch.js';
import { FLOW_FAILED, flowFailureToDeadLetter } from './dead-letters.js';
import { DeadLetterSink } from './dead-letter-sink.js';
import { hasFieldsOutside } from './new-fields.js';
import { commitWithPositions, type CommitDecision, type PositionedCommitOutcome } from './positioned-commit.js';
import { emptyTotals, type BatchReport, type StreamingObserver, type StreamingTotals } from './streaming-stats.js';
import { TablePositions } from './table-positions.js';
import { addedColumnsUpdate, createOrLoad, loadIfExists, schemaFromColumns } from './target-tables.js';
import { writeTableFiles } from './write-table-files.js';

export interface MicroBatchLoopOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly source: StreamingSource<Record<string, unknown>>;
  readonly session: DuckDbSession;
  readonly target: TableIdentifier;
  readonly deadLetterTarget: TableIdentifier;
  /** Properties of a target table this loop creates. */
  readonly tableProperties?: Readonly<Record<string, string>>;
  /** The flow's SELECT over `view`; default every column. */
  readonly flowSql?: string;
  readonly view?: string;
  readonly tempDir: string;
  /** DuckDB types of value fields the source's writer schemas fix (Avro logical types); used when the table is created or gains columns. */
  readonly valueColumnTypes?: (records: readonly JsonRecord[]) => ReadonlyMap<string, string>;
  readonly maxBatchRecords: number;
  readonly maxBatchMs: number;
  readonly observer?: StreamingObserver;
}

type Basis = bigint | null;

/** A batch whose output has columns the table lacks: the table to write for and the change committed with the snapshot. */
interface Evolved {
  readonly writeTo: LoadedTable;
  readonly base: TableMetadata;
  readonly layoutChange?: { readonly updates: readonly TableUpdate[]; readonly requirements: readonly TableRequirement[] };
  readonly added: readonly string[];
}

export class MicroBatchLoop {
  readonly totals: StreamingTotals = emptyTotals();
  private readonly basis = new Map<string, { tp: TopicPartition; offset: Basis }>();
  private readonly flow: BatchFlowSettings;
  private readonly deadLetters: DeadLetterSink;
  private target: LoadedTable | undefined;
  private stopping = false;
  private polledAt = 0;

  constructor(private readonly options: MicroBatchLoopOptions) {
    this.flow = { session: options.session, tempDir: options.tempDir, view: options.view ?? 'kafka_records', sql: options.flowSql };
    this.deadLetters = new DeadLetterSink({ ...options, onConflict: () => void this.totals.conflicts++ });
  }

  /** Opens the source at the table's positions; newly assigned partitions re-read them first. */
  async start(): Promise<void> {
    this.target = await loadIfExists(this.options.catalog, this.options.target);
    await this.deadLetters.open();
    this.options.source.onAssignmentChange(async (change) => {
      const positions = TablePositions.of((await loadIfExists(this.options.catalog, this.options.target))?.metadata);
      for (const tp of change.revoked) this.basis.delete(topicPartitionKey(tp));
      for (const tp of change.assigned) this.basis.set(topicPartitionKey(tp), { tp, offset: positions.of(tp) });
      this.log('info', 'partitions assigned', { generation: change.generation, assigned: names(change.assigned), revoked: names(change.revoked) });
      return positions.only(change.assigned);
    });
    await this.options.source.open(TablePositions.of(this.target?.metadata).list);
  }

  /** Runs batches until stop(); the batch in progress is finished and committed first. */
  async run(): Promise<void> {
    while (!this.stopping) await this.cycle();
  }

  stop(): void {
    this.stopping = true;
  }

  /** The table positions the loop's reading is based on, per owned partition. */
  committedPositions(): SourcePosition[] {
    return [...this.basis.values()].flatMap((b) => (b.offset === null ? [] : [{ ...b.tp, nextOffset: b.offset }]));
  }

  async cycle(): Promise<BatchReport> {
    const started = Date.now();
    const collected = await collectBatch(this.options.source, this.options.maxBatchRecords, this.options.maxBatchMs, () => this.stopping);
    this.polledAt = Date.now();
    const batch = this.dropCovered(collected);
    if (batch.ranges.length === 0) return this.report({ outcome: 'empty', started, commitStarted: Date.now() });
    // The source keeps fetching while the batch is landed: its buffer is bounded by bytes.
    return this.land(batch, started);
  }

  private async land(batch: CollectedBatch & { expected: Map<string, Basis> }, started: number): Promise<BatchReport> {
    this.totals.recordsIn += batch.records.length + batch.deadLetters.length;
    this.totals.skipped += batch.skipped;
    const letters: DeadLetterCandidate[] = [...batch.deadLetters];
    const records: JsonRecord[] = [];
    for (const record of batch.records) {
      // Checked JSON has no reserved top-level field (the source's check sends such values through decode).
      const reserved = record.json === undefined ? reservedFieldOf(record.value) : undefined;
      if (reserved === undefined) records.push(record);
      else letters.push(flowFailureToDeadLetter({ record, reason: `the value has a field named ${reserved}, a column reserved for the record's coordinates` }));
    }
    const files: DataFile[] = [];
    let rows = 0;
    let evolved: Evolved | undefined;
    if (records.length > 0) {
      const table = await this.ensureTarget(records);
      if (table !== undefined) {
        const fields = currentSchema(table.metadata).fields;
        const autoEvolve = this.autoEvolve(table.metadata);
        const writeFor = (target: LoadedTable) => (query: string): Promise<DataFile[]> => writeTableFiles(this.options.session, target, this.options.io, query, 'streaming flow');
        // Without flow SQL the fast path reads only the table's columns: new fields are looked for first.
        const newFields = autoEvolve && this.flow.sql === undefined && hasFieldsOutside(records, [...RECORD_COLUMNS, ...fields.map((f) => f.name)]);
        const direct = newFields ? undefined : await writeBatchThroughViews(this.flow, records, fields, writeFor(table));
        if (direct !== undefined) {
          for (const column of direct.ignoredColumns) this.ignoredColumn(column);
          rows = direct.rows;
          files.push(...direct.files);
        } else {
          const result = await runBatchFlow(this.flow, records, fields, newFields, newFields ? this.options.valueColumnTypes?.(records) : undefined);
          for (const failure of result.failures) letters.push(flowFailureToDeadLetter(failure));
          if (autoEvolve && result.rows > 0 && result.extraColumns.length > 0) evolved = await this.evolveFor(result.extraColumns, fields);
          else for (const column of result.ignoredColumns) this.ignoredColumn(column);
          rows = result.rows;
          if (rows > 0) files.push(...(await writeFor(evolved?.writeTo ?? table)(`SELECT * FROM ${BATCH_OUTPUT_TABLE}`)));
        }
      } else {
        for (const record of records) letters.push(flowFailureToDeadLetter({ record, reason: 'the flow failed on every record of the batch' }));
      }
    }
    await this.deadLetters.land(letters, batch.ranges);
    this.totals.deadLetters += letters.length;
    if (letters.some((l) => l.code === FLOW_FAILED)) this.log('warn', 'records failed in the flow', { count: letters.filter((l) => l.code === FLOW_FAILED).length });
    const commitStarted = Date.now();
    if (this.target === undefined) {
      // Nothing landed in a target that does not exist yet; the positions wait for the first table commit.
      return this.report({ outcome: 'empty', started, commitStarted, records: records.length, deadLetters: letters.length });
    }
    let outcome: PositionedCommitOutcome;
    try {
      outcome = await commitWithPositions({
        catalog: this.options.catalog,
        identifier: this.options.target,
        io: this.options.io,
        files,
        summaryProperties: { 'thund.engine': 'thund serve' },
        ...(evolved === undefined ? {} : { base: evolved.base, ...(evolved.layoutChange === undefined ? {} : { layoutChange: evolved.layoutChange }) }),
        decide: (positions) => decide(batch.ranges, batch.expected, positions),
        onConflict: () => void this.totals.conflicts++,
      });
    } catch (error) {
      // Another writer changed the schema first and nothing of ours landed: the batch is read
      // again and evolves from the schema as it is now.
      if (!(error instanceof ConcurrentSchemaChangeError)) throw error;
      const positions = TablePositions.of((await this.options.catalog.loadTable(this.options.target)).metadata);
      outcome = { kind: 'stale', positions, reason: error.message, attempts: 1, outcomeWasUnknown: false };
    }
    if (outcome.kind === 'committed' && evolved?.layoutChange !== undefined) {
      this.log('info', 'schema: added columns', { table: formatIdentifier(this.options.target), columns: evolved.added });
    }
    if (outcome.kind === 'committed') {
      this.target = outcome.table;
      for (const r of batch.ranges) this.basis.set(topicPartitionKey(r), { tp: r, offset: r.nextOffset });
      this.totals.commits++;
      this.totals.recordsOut += rows;
      this.totals.filesWritten += files.length;
      this.totals.bytesWritten += files.reduce((sum, f) => sum + Number(f.fileSizeInBytes), 0);
      return this.report({ outcome: 'committed', started, commitStarted, records: records.length, rows, deadLetters: letters.length, files: files.length, attempts: outcome.attempts, positions: positionsAfter(batch.ranges) });
    }
    if (!outcome.outcomeWasUnknown) await Promise.all(files.map((f) => this.options.io.delete(f.filePath).catch(() => undefined)));
    this.target = await loadIfExists(this.options.catalog, this.options.target);
    const seekTo: SourcePosition[] = batch.ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: outcome.positions.of(r) ?? r.firstOffset }));
    for (const r of batch.ranges) this.basis.set(topicPartitionKey(r), { tp: r, offset: outcome.positions.of(r) });
    this.options.source.seek(seekTo);
    if (outcome.kind === 'stale') this.totals.staleBatches++;
    this.log('warn', `batch not committed: ${outcome.reason}; reading again from the table's positions`, { positions: seekTo.map(text) });
    return this.report({ outcome: outcome.kind, started, commitStarted, records: records.length, attempts: outcome.attempts, positions: seekTo, reason: outcome.reason });
  }

  /** Drops what the table already holds (below the basis) and notes the basis each range builds on. */
  private dropCovered(batch: CollectedBatch): CollectedBatch & { expected: Map<string, Basis> } {
    const expected = new Map<string, Basis>();
    const floor = (tp: TopicPartition): bigint | null => this.basis.get(topicPartitionKey(tp))?.offset ?? null;
    const ranges: PositionRange[] = [];
    for (const r of batch.ranges) {
      const base = floor(r);
      expected.set(topicPartitionKey(r), base);
      if (base === null || r.firstOffset >= base) ranges.push(r);
      else if (r.nextOffset > base) ranges.push({ ...r, firstOffset: base });
    }
    // Usually nothing polled lies below its basis; then the records need not be looked at one by one.
    if (batch.ranges.every((r) => { const base = floor(r); return base === null || r.firstOffset >= base; })) return { ...batch, ranges, expected };
    const above = <T extends TopicPartition & { offset: bigint }>(x: T): boolean => {
      const base = floor(x);
      return base === null || x.offset >= base;
    };
    return { records: batch.records.filter(above), deadLetters: batch.deadLetters.filter(above), skipped: batch.skipped, ranges, expected };
  }

  private async ensureTarget(records: readonly JsonRecord[]): Promise<LoadedTable | undefined> {
    if (this.target !== undefined) return this.target;
    this.target = await loadIfExists(this.options.catalog, this.options.target);
    if (this.target !== undefined) return this.target;
    const columns = await describeBatchOutput(this.flow, records, this.options.valueColumnTypes?.(records));
    if (columns === undefined) return undefined;
    this.target = await createOrLoad(this.options.catalog, this.options.target, schemaFromColumns(columns), this.options.tableProperties ?? {});
    this.log('info', 'created table', { table: formatIdentifier(this.options.target), columns: columns.length });
    return this.target;
  }

  /**
   * The table property (serve's setting for tables it creates wins over the stored value); off
   * unless it says true, since looking for new fields costs a scan of every batch's keys.
   */
  private autoEvolve(metadata: TableMetadata): boolean {
    const value = this.options.tableProperties?.[AUTO_EVOLVE_PROPERTY] ?? metadata.properties[AUTO_EVOLVE_PROPERTY];
    return value?.trim().toLowerCase() === 'true';
  }

  /** Adds the batch's new columns to the newest schema; the output is cast onto it and the files are written with it. */
  private async evolveFor(extra: readonly DescribedColumn[], batchFields: readonly NestedField[]): Promise<Evolved | undefined> {
    const fresh = await this.options.catalog.loadTable(this.options.target);
    this.target = fresh;
    const change = addedColumnsUpdate(formatIdentifier(this.options.target), fresh.metadata, extra);
    // Such a field (only nulls so far) sends its batches this way until a value gives it a type.
    for (const column of change.untyped) this.ignoredColumn(column);
    try {
      await projectBatchOutput(this.flow, change.update.schema.fields);
    } catch (error) {
      // A value that does not cast onto the column type chosen for it: land the batch without the new columns.
      this.log('warn', 'the batch could not be cast onto the evolved schema; its new fields are not written', { error: String(error) });
      await projectBatchOutput(this.flow, batchFields);
      for (const column of extra) this.ignoredColumn(column.name);
      return undefined;
    }
    if (change.update.updates.length === 0) return { writeTo: fresh, base: fresh.metadata, added: [] };
    return {
      writeTo: { ...fresh, metadata: applyUpdates(fresh.metadata, change.update.updates) },
      base: fresh.metadata,
      layoutChange: { updates: change.update.updates, requirements: change.update.requirements },
      added: change.added,
    };
  }

  private ignoredColumn(column: string): void {
    const seen = this.totals.ignoredColumns[column] ?? 0;
    this.totals.ignoredColumns[column] = seen + 1;
    if (seen === 0) this.log('warn', `the flow produces column "${column}", which ${formatIdentifier(this.options.target)} does not have; it is not written`, { column });
  }

  private report(parts: Partial<BatchReport> & { outcome: BatchReport['outcome']; started: number; commitStarted: number }): BatchReport {
    const now = Date.now();
    const report: BatchReport = {
      outcome: parts.outcome,
      records: parts.records ?? 0,
      rows: parts.rows ?? 0,
      deadLetters: parts.deadLetters ?? 0,
      files: parts.files ?? 0,
      pollMs: Math.max(0, this.polledAt - parts.started),
      writeMs: Math.max(0, parts.commitStarted - this.polledAt),
      commitMs: now - parts.commitStarted,
      totalMs: now - parts.started,
      attempts: parts.attempts ?? 0,
      positions: parts.positions ?? [],
      ...(parts.reason === undefined ? {} : { reason: parts.reason }),
    };
    if (report.outcome !== 'empty' || report.deadLetters > 0) this.options.observer?.batch?.(report);
    return report;
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.options.observer?.log?.(level, message, fields);
  }
}

/** Commit only while the table holds, for every partition of the batch, the basis it was read from. */
export function decide(ranges: readonly PositionRange[], expected: ReadonlyMap<string, Basis>, positions: TablePositions): CommitDecision {
  const moved = ranges.filter((r) => positions.of(r) !== (expected.get(topicPartitionKey(r)) ?? null));
  if (moved.length === 0) return { kind: 'commit', advanced: positionsAfter(ranges) };
  if (ranges.every((r) => (positions.of(r) ?? -1n) >= r.nextOffset)) return { kind: 'covered' };
  return { kind: 'stale', reason: `the table's positions moved under the batch (${moved.map((r) => `${r.topic}/${r.partition} at ${positions.of(r) ?? 'none'}, expected ${expected.get(topicPartitionKey(r)) ?? 'none'}`).join(', ')})` };
}

const text = (p: SourcePosition): string => `${p.topic}/${p.partition}@${p.nextOffset}`;
const names = (tps: readonly TopicPartition[]): string[] => tps.map((tp) => `${tp.topic}/${tp.partition}`);
