/**
 * CDC apply-changes over DuckDB: a batch of change events and the target's current state in, the
 * change set for the target (rows to delete, rows to insert) and the new state out.
 *
 *  - computeChanges: the pure step on any state relation (e.g. a scan of the Iceberg target);
 *  - ApplyChanges: an operator keeping the state in its own table across micro-batches;
 *  - applyChangesOnce: all events at once into an empty target, giving the final table.
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { ThundError } from '../../errors.js';
import { DELETED_COLUMN, END_AT, parseApplyChangesOptions, SEQUENCE_COLUMN, START_AT, type ApplyChangesOptions, type ApplyChangesOptionsInput } from './cdc-options.js';
import { normalizeChanges, type NormalizedChanges } from './cdc-normalize.js';
import { atomically } from './atomic-batch.js';
import { applyChangeSet, type ChangeSet, type ChangeStats } from './change-set.js';
import { computeScd1 } from './scd1.js';
import { computeScd2, scd2StateColumns, type Scd2History } from './scd2.js';
import { historyWatermark } from './scd2-in-order.js';
import { countRows, identList, equalValues } from './sql.js';
import { withSetting } from '../../duckdb/with-setting.js';
import type { StatefulOperator } from './state-checkpoint.js';

export interface ChangeBatchResult {
  readonly changeSet: ChangeSet;
  readonly stats: ChangeStats;
}

export interface ComputedChanges extends ChangeBatchResult {
  /** The state after the batch, as a new table with the state's columns. */
  readonly newState: string;
  /** SCD2: the batch's applied delete events (keys, __sequence), to add to the caller's tombstones. */
  readonly deleteEvents?: string;
  /** SCD2: the absorbed upserts of each affected key from its `rebuiltFrom` sequence on, replacing the caller's. */
  readonly absorbedEvents?: string;
  /** SCD2: per affected key (keys, __from), where its history was rebuilt from. */
  readonly rebuiltFrom?: string;
}

/**
 * One batch against `state`: SCD1 state has the target columns plus __sequence and __deleted;
 * SCD2 state is the target itself (columns plus __START_AT and __END_AT). An empty state may be
 * given as `undefined`. SCD2 orders late events exactly against every earlier event when given
 * its `history` (every delete event and every upsert the versions do not show, see scd2.ts);
 * without, deletes are read from the gaps in the history. Tables created are prefixed with `prefix`.
 */
export async function computeChanges(
  session: DuckDbSession,
  request: { state: string | undefined; changes: string; options: ApplyChangesOptionsInput; prefix: string; history?: Scd2History },
): Promise<ComputedChanges> {
  const options = parseApplyChangesOptions(request.options);
  // SCD2 checks for duplicate sequence values among the events its shortcut leaves (scd2.ts).
  const normalized = await normalizeChanges(session, request.changes, options, `${request.prefix}__changes`, { duplicates: options.storedAsScdType === 1 });
  const state = request.state ?? (await createEmptyState(session, `${request.prefix}__empty_state`, normalized, options, true));
  if (options.storedAsScdType === 1) {
    const { changeSet, newState, stats } = await computeScd1(session, state, normalized, options, request.prefix);
    return { changeSet, newState, stats };
  }
  const { changeSet, stats, deleteEvents, absorbedEvents, rebuiltFrom } = await computeScd2(session, state, normalized, options, request.prefix, request.history);
  const newState = `${request.prefix}__new_state`;
  const columns = identList(scd2StateColumns(normalized.columns));
  await session.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(newState)} AS
     SELECT ${columns} FROM ${quoteIdentifier(state)} s
     WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdentifier(changeSet.deletes)} d WHERE ${equalValues(changeSet.deleteKeyColumns, 'd', 's')})
     UNION ALL SELECT ${columns} FROM ${quoteIdentifier(changeSet.inserts)}`,
  );
  return { changeSet, newState, stats, deleteEvents, absorbedEvents, rebuiltFrom };
}

async function createEmptyState(
  session: DuckDbSession,
  table: string,
  normalized: NormalizedChanges,
  options: ApplyChangesOptions,
  temporary: boolean,
): Promise<string> {
  const hidden =
    options.storedAsScdType === 1
      ? `${quoteIdentifier(SEQUENCE_COLUMN)}, FALSE AS ${quoteIdentifier(DELETED_COLUMN)}`
      : `${quoteIdentifier(SEQUENCE_COLUMN)} AS ${quoteIdentifier(START_AT)}, ${quoteIdentifier(SEQUENCE_COLUMN)} AS ${quoteIdentifier(END_AT)}`;
  await session.run(
    `CREATE ${temporary ? 'TEMP ' : ''}TABLE IF NOT EXISTS ${quoteIdentifier(table)} AS
     SELECT ${identList(normalized.columns)}, ${hidden} FROM ${quoteIdentifier(normalized.relation)} LIMIT 0`,
  );
  return table;
}

/** Batches of at most this many events run on one DuckDB thread (see processBatch). */
const SERIAL_BATCH_EVENTS = 1_000_000;

/**
 * Apply-changes as a stateful streaming operator. State: the target rows in `<name>__state`
 * (SCD1 with its hidden columns) and, for SCD2, every delete event in `<name>__tombstones` and
 * every upsert the versions do not show in `<name>__absorbed`.
 */
export class ApplyChanges implements StatefulOperator {
  readonly options: ApplyChangesOptions;
  readonly stateTable: string;
  readonly tombstoneTable: string;
  readonly absorbedTable: string;
  /** SCD2: the history's watermark (scd2.ts Scd2History.watermark), a temp table derived from the state. */
  readonly watermarkTable: string;
  private changed: ReadonlyMap<string, string> | undefined;

  constructor(
    private readonly session: DuckDbSession,
    readonly name: string,
    options: ApplyChangesOptionsInput,
  ) {
    this.options = parseApplyChangesOptions(options);
    this.stateTable = `${name}__state`;
    this.tombstoneTable = `${name}__tombstones`;
    this.absorbedTable = `${name}__absorbed`;
    this.watermarkTable = `${name}__watermark`;
  }

  stateTables(): readonly string[] {
    return this.options.storedAsScdType === 1 ? [this.stateTable] : [this.stateTable, this.tombstoneTable, this.absorbedTable];
  }

  derivedTables(): readonly string[] {
    return this.options.storedAsScdType === 1 ? [] : [this.watermarkTable];
  }

  /** SCD2: the last batch's change set (the state is the target) and the history events it added or dropped; SCD1 state is saved whole. */
  lastChanges(): ReadonlyMap<string, string> | undefined {
    return this.changed;
  }

  async replayChanges(changes: ReadonlyMap<string, string>): Promise<void> {
    const relation = (name: string): string => {
      const found = changes.get(`${this.name}.${name}`);
      if (found === undefined) throw new ThundError('INTERNAL', `the changes of ${this.name} lack ${name}`);
      return found;
    };
    const described = (await this.session.queryJson(`DESCRIBE ${quoteIdentifier(this.stateTable)}`)) as Array<{ column_name: string }>;
    const changeSet = { deletes: relation('deletes'), inserts: relation('inserts'), deleteKeyColumns: [...this.options.keys, START_AT] };
    await applyChangeSet(this.session, this.stateTable, changeSet, described.map((column) => column.column_name));
    await this.recordHistory({ deleteEvents: relation('delete_events'), rebuiltFrom: relation('rebuilt_from'), absorbedEvents: relation('absorbed_events') });
  }

  /** SCD2: adds the batch's delete events to the tombstones, and replaces the absorbed upserts of the keys it rebuilt. */
  private async recordHistory(events: { readonly deleteEvents: string; readonly rebuiltFrom: string; readonly absorbedEvents: string }): Promise<void> {
    const seq = quoteIdentifier(SEQUENCE_COLUMN);
    const absorbed = quoteIdentifier(this.absorbedTable);
    await this.session.run(`INSERT INTO ${quoteIdentifier(this.tombstoneTable)} BY NAME SELECT * FROM ${quoteIdentifier(events.deleteEvents)}`);
    await this.session.run(
      `DELETE FROM ${absorbed} a WHERE EXISTS (SELECT 1 FROM ${quoteIdentifier(events.rebuiltFrom)} f WHERE ${equalValues(this.options.keys, 'f', 'a')} AND a.${seq} >= f.__from)`,
    );
    await this.session.run(`INSERT INTO ${absorbed} BY NAME SELECT * FROM ${quoteIdentifier(events.absorbedEvents)}`);
  }

  /**
   * Applies one micro-batch of change events read from `changes`; on failure the state is
   * unchanged. `then` runs on the result before the state change commits, in the same DuckDB
   * transaction (it sees the new state): when it throws, the state is rolled back too.
   */
  async processBatch(changes: string, then?: (result: ChangeBatchResult) => Promise<void>): Promise<ChangeBatchResult> {
    const batch = (): Promise<ChangeBatchResult> =>
      atomically(this.session, async () => {
        const result = await this.process(changes);
        await then?.(result);
        return result;
      });
    // A micro-batch is a few dozen statements over some 100k rows each: run in parallel they cost
    // DuckDB 2–4 times the CPU of one thread (each table written is merged from per-thread parts)
    // and, on a busy machine, more wall time too (bench:cdc at 100k events a batch: 4.4 against
    // 2.2 CPU s). Larger batches keep the session's threads.
    const events = await countRows(this.session, quoteIdentifier(changes));
    return events <= SERIAL_BATCH_EVENTS ? withSetting(this.session, 'threads', 1, batch) : batch();
  }

  private async process(changes: string): Promise<ChangeBatchResult> {
    this.changed = undefined;
    const normalized = await normalizeChanges(this.session, changes, this.options, `${this.name}__changes`, { duplicates: this.options.storedAsScdType === 1 });
    await createEmptyState(this.session, this.stateTable, normalized, this.options, false);
    if (this.options.storedAsScdType === 1) {
      const { changeSet, newState, stats } = await computeScd1(this.session, this.stateTable, normalized, this.options, this.name);
      await this.session.run(`CREATE OR REPLACE TABLE ${quoteIdentifier(this.stateTable)} AS SELECT * FROM ${quoteIdentifier(newState)}`);
      return { changeSet, stats };
    }
    const seq = quoteIdentifier(SEQUENCE_COLUMN);
    const input = quoteIdentifier(normalized.relation);
    const tombstones = quoteIdentifier(this.tombstoneTable);
    const absorbed = quoteIdentifier(this.absorbedTable);
    await this.session.run(`CREATE TABLE IF NOT EXISTS ${tombstones} AS SELECT ${identList(this.options.keys)}, ${seq} FROM ${input} LIMIT 0`);
    await this.session.run(`CREATE TABLE IF NOT EXISTS ${absorbed} AS SELECT ${identList(normalized.columns)}, ${seq} FROM ${input} LIMIT 0`);
    // Temp, so a batch that fails rolls it back with the state.
    const watermark = quoteIdentifier(this.watermarkTable);
    await this.session.run(`CREATE TEMP TABLE IF NOT EXISTS ${watermark} AS ${historyWatermark(this.stateTable, [this.tombstoneTable, this.absorbedTable])}`);
    const history = { tombstones: this.tombstoneTable, absorbed: this.absorbedTable, watermark: this.watermarkTable };
    const result = await computeScd2(this.session, this.stateTable, normalized, this.options, this.name, history);
    await result.applyTo(this.stateTable);
    await this.recordHistory(result);
    await this.session.run(
      `UPDATE ${watermark} w SET m = CASE WHEN w.m IS NULL OR b.hi > w.m THEN b.hi ELSE w.m END FROM (SELECT max(${seq}) AS hi FROM ${input}) b WHERE b.hi IS NOT NULL`,
    );
    this.changed = new Map([
      [`${this.name}.deletes`, result.changeSet.deletes],
      [`${this.name}.inserts`, result.changeSet.inserts],
      [`${this.name}.delete_events`, result.deleteEvents],
      [`${this.name}.rebuilt_from`, result.rebuiltFrom],
      [`${this.name}.absorbed_events`, result.absorbedEvents],
    ]);
    return { changeSet: result.changeSet, stats: result.stats };
  }

  /** The target table's rows as a query (SCD1 without tombstones and hidden columns). */
  targetQuery(): string {
    const state = quoteIdentifier(this.stateTable);
    if (this.options.storedAsScdType === 2) return `SELECT * FROM ${state}`;
    return `SELECT * EXCLUDE (${quoteIdentifier(SEQUENCE_COLUMN)}, ${quoteIdentifier(DELETED_COLUMN)}) FROM ${state} WHERE NOT ${quoteIdentifier(DELETED_COLUMN)}`;
  }
}

/** Applies every event of `changes` to an empty target; returns the name of the final target table. */
export async function applyChangesOnce(session: DuckDbSession, changes: string, options: ApplyChangesOptionsInput, name: string): Promise<string> {
  const operator = new ApplyChanges(session, name, options);
  await operator.processBatch(changes);
  const target = `${name}__target`;
  await session.run(`CREATE OR REPLACE TABLE ${quoteIdentifier(target)} AS ${operator.targetQuery()}`);
  return target;
}

