/**
 * Windowed aggregation over event time with a watermark, one micro-batch at a time.
 *
 * State: the input rows of windows that are not final yet (`<name>__rows`), the results of
 * finalised windows when the output mode is complete (`<name>__final`) and the watermark.
 * Aggregates are recomputed from the buffered rows of the windows a batch touches, so any DuckDB
 * aggregate expression works (count(DISTINCT …), median, …) without partial-state merging.
 *
 * Per batch: late rows are dropped and counted; the rest join the buffer; the watermark advances;
 * windows whose end is at or before the new watermark are final. Output modes:
 *  - append: each window once, in the batch where it becomes final;
 *  - update: the windows the batch changed, as an upsert delta keyed by keys + window_start
 *    (session windows that merged away are listed in `retired`, keyed the same way);
 *  - complete: every window known, finalised or open.
 */
import { InvalidInputError } from '../../errors.js';
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { atomically } from './atomic-batch.js';
import { EventTimeWatermark } from './watermark.js';
import { assignWindowsSql, lastWindowEndSql, resolveWindow, type ResolvedWindow, type WindowSpec } from './window-spec.js';
import { identList, sameValues } from './sql.js';
import type { StatefulOperator } from './state-checkpoint.js';

export type OutputMode = 'append' | 'update' | 'complete';

export interface Aggregate {
  readonly name: string;
  /** A DuckDB aggregate expression over the input columns, e.g. `count(*)` or `sum(amount)`. */
  readonly sql: string;
}

export interface WindowAggregationOptions {
  /** Prefix of this operator's tables, unique within the session. */
  readonly name: string;
  readonly eventTime: string;
  readonly window: WindowSpec;
  readonly keys: readonly string[];
  readonly aggregates: readonly Aggregate[];
  readonly outputMode: OutputMode;
  /** Watermark delay; required in append mode, where a window is emitted once the watermark passes its end. */
  readonly watermarkDelay?: string;
}

export interface WindowBatchResult {
  /** Table with keys, window_start, window_end and one column per aggregate. */
  readonly output: string;
  /** Update mode with session windows: keys + window_start of sessions merged into others. */
  readonly retired?: string;
  readonly lateRows: number;
  /** The watermark after the batch (timestamp text), or null without one. */
  readonly watermark: string | null;
}

export class WindowAggregation implements StatefulOperator {
  private readonly window: ResolvedWindow;
  private readonly watermark: EventTimeWatermark | undefined;
  private readonly rows: string;
  private readonly final: string;

  constructor(
    private readonly session: DuckDbSession,
    readonly options: WindowAggregationOptions,
  ) {
    if (options.outputMode === 'append' && options.watermarkDelay === undefined) {
      throw new InvalidInputError(`Aggregation "${options.name}" in append mode needs a watermark on ${options.eventTime}`, {
        context: { operator: options.name },
      });
    }
    if (options.aggregates.length === 0) throw new InvalidInputError(`Aggregation "${options.name}" has no aggregates`);
    this.window = resolveWindow(options.window);
    this.watermark =
      options.watermarkDelay === undefined
        ? undefined
        : new EventTimeWatermark(session, { name: options.name, eventTime: options.eventTime, delay: options.watermarkDelay });
    this.rows = `${options.name}__rows`;
    this.final = `${options.name}__final`;
  }

  stateTables(): readonly string[] {
    const tables = [this.rows];
    if (this.options.outputMode === 'complete') tables.push(this.final);
    if (this.watermark !== undefined) tables.push(this.watermark.stateTable);
    return tables;
  }

  /** Runs one micro-batch read from the table or view `batch`; on failure the state is unchanged. */
  async processBatch(batch: string): Promise<WindowBatchResult> {
    return atomically(this.session, () => this.process(batch));
  }

  private async process(batch: string): Promise<WindowBatchResult> {
    const { name } = this.options;
    const accepted = `${name}__accepted`;
    const lateRows = await this.acceptRows(batch, accepted);
    await this.ensureState(accepted);
    const watermarkBefore = (await this.watermark?.currentMicros()) ?? null;

    const retired = this.options.outputMode === 'update' && this.window.kind === 'session' ? await this.retiredSessions(accepted) : undefined;
    await this.session.run(`INSERT INTO ${quoteIdentifier(this.rows)} SELECT * FROM ${quoteIdentifier(accepted)}`);
    if (this.watermark !== undefined) await this.watermark.advance(accepted);
    const watermarkAfter = (await this.watermark?.currentMicros()) ?? null;

    const output = `${name}__output`;
    const windows = `(${assignWindowsSql(this.window, quoteIdentifier(this.rows), this.options.keys)})`;
    const finalNow = this.finalBetween(watermarkBefore, watermarkAfter);
    switch (this.options.outputMode) {
      case 'append':
        await this.createOutput(output, windows, finalNow);
        break;
      case 'update':
        await this.createOutput(output, `(SELECT w.* FROM ${windows} w WHERE ${this.touchedBy(accepted, 'w')})`, 'TRUE');
        break;
      case 'complete': {
        await this.session.run(`CREATE TABLE IF NOT EXISTS ${quoteIdentifier(this.final)} AS ${this.aggregateSql(windows, 'FALSE')}`);
        await this.session.run(`INSERT INTO ${quoteIdentifier(this.final)} ${this.aggregateSql(windows, finalNow)}`);
        const open = watermarkAfter === null ? 'TRUE' : `__we > ${watermarkAfter}`;
        await this.session.run(
          `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(output)} AS SELECT * FROM ${quoteIdentifier(this.final)} UNION ALL ${this.aggregateSql(windows, open)}`,
        );
        break;
      }
    }
    if (watermarkAfter !== null) await this.evictFinal(watermarkAfter);
    const result: WindowBatchResult = { output, lateRows, watermark: (await this.watermark?.current()) ?? null };
    return retired === undefined ? result : { ...result, retired };
  }

  private async acceptRows(batch: string, accepted: string): Promise<number> {
    if (this.watermark !== undefined) {
      await this.watermark.init();
      return (await this.watermark.splitLate(batch, accepted)).late;
    }
    const ts = `epoch_us(${quoteIdentifier(this.options.eventTime)})`;
    await this.session.run(
      `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(accepted)} AS SELECT *, ${ts} AS __ts FROM ${quoteIdentifier(batch)} WHERE ${ts} IS NOT NULL`,
    );
    const [row] = await this.session.queryJson(
      `SELECT ((SELECT count(*) FROM ${quoteIdentifier(batch)}) - (SELECT count(*) FROM ${quoteIdentifier(accepted)}))::INTEGER AS n`,
    );
    return Number(row?.['n'] ?? 0);
  }

  private async ensureState(accepted: string): Promise<void> {
    await this.session.run(`CREATE TABLE IF NOT EXISTS ${quoteIdentifier(this.rows)} AS SELECT * FROM ${quoteIdentifier(accepted)} LIMIT 0`);
  }

  /** Windows that became final in this batch: end in (watermark before, watermark after]. */
  private finalBetween(before: bigint | null, after: bigint | null): string {
    if (after === null) return 'FALSE';
    return before === null ? `__we <= ${after}` : `__we > ${before} AND __we <= ${after}`;
  }

  /** A window is touched when a row of this batch lies in it (same keys, start ≤ ts < end). */
  private touchedBy(accepted: string, alias: string): string {
    return `EXISTS (SELECT 1 FROM ${quoteIdentifier(accepted)} a WHERE ${sameValues(this.options.keys, 'a', alias)} AND a.__ts >= ${alias}.__ws AND a.__ts < ${alias}.__we)`;
  }

  private aggregateSql(windows: string, where: string): string {
    const keys = this.options.keys;
    const keyList = keys.length === 0 ? '' : `${identList(keys)}, `;
    const aggregates = this.options.aggregates.map((a) => `${a.sql} AS ${quoteIdentifier(a.name)}`).join(', ');
    return `SELECT ${keyList}make_timestamp(__ws) AS window_start, make_timestamp(__we) AS window_end, ${aggregates}
            FROM ${windows} WHERE ${where} GROUP BY ${keyList}__ws, __we`;
  }

  private async createOutput(output: string, windows: string, where: string): Promise<void> {
    await this.session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(output)} AS ${this.aggregateSql(windows, where)}`);
  }

  /** Sessions of the keys in this batch that exist before it and not after it (they merged into another). */
  private async retiredSessions(accepted: string): Promise<string> {
    const keys = this.options.keys;
    const retired = `${this.options.name}__retired`;
    const ofBatchKeys = (relation: string): string =>
      keys.length === 0
        ? relation
        : `(SELECT * FROM ${relation} r WHERE EXISTS (SELECT 1 FROM ${quoteIdentifier(accepted)} a WHERE ${sameValues(keys, 'a', 'r')}))`;
    const before = assignWindowsSql(this.window, ofBatchKeys(quoteIdentifier(this.rows)), keys);
    const after = assignWindowsSql(
      this.window,
      `(SELECT * FROM ${ofBatchKeys(quoteIdentifier(this.rows))} UNION ALL SELECT * FROM ${quoteIdentifier(accepted)})`,
      keys,
    );
    const keyList = keys.length === 0 ? '' : `${identList(keys)}, `;
    await this.session.run(
      `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(retired)} AS
       SELECT DISTINCT ${keyList}make_timestamp(__ws) AS window_start FROM (${before})
       EXCEPT SELECT DISTINCT ${keyList}make_timestamp(__ws) AS window_start FROM (${after})`,
    );
    return retired;
  }

  /** Drops buffered rows whose every window is final. */
  private async evictFinal(watermark: bigint): Promise<void> {
    const rows = quoteIdentifier(this.rows);
    if (this.window.kind !== 'session') {
      await this.session.run(`DELETE FROM ${rows} WHERE ${lastWindowEndSql(this.window)} <= ${watermark}`);
      return;
    }
    // Sessions are recomputed from the buffer, so a session is evicted with all of its rows at once.
    const keys = this.options.keys;
    const sessions = assignWindowsSql(this.window, rows, keys);
    const keyMatch = keys.length === 0 ? 'TRUE' : sameValues(keys, 's', rows);
    await this.session.run(
      `DELETE FROM ${rows} WHERE EXISTS (
         SELECT 1 FROM (${sessions}) s WHERE s.__we <= ${watermark} AND ${keyMatch} AND ${rows}.__ts >= s.__ws AND ${rows}.__ts < s.__we)`,
    );
  }
}
