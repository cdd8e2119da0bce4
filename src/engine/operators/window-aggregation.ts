/**
 * Windowed aggregation over event time with a watermark, one micro-batch at a time.
 *
 * State: the input rows of windows that are not final yet (`<name>__rows`), the results of
 * finalised windows when the output mode is complete (`<name>__final`) and the watermark.
 * Aggregates are recomputed from the buffered rows of the windows a batch touches, so any DuckDB
 * aggregate expression works (count(DISTINCT …), median, …) without partial-state merging.
 *
 * The aggregation is either keys + aggregate expressions, or a query (a streaming flow's own SQL)
 * run over the buffered rows of the windows to compute; the query form takes tumbling windows
 * (one window per row) and the global window (a streaming GROUP BY without a window).
 *
 * Per batch: late rows (every window they belong to already finalised, Spark's rule) are dropped
 * and counted; the rest join the buffer; the watermark advances; windows whose end is at or
 * before the new watermark are final. Output modes:
 *  - append: each window once, in the batch where it becomes final;
 *  - update: the windows the batch changed, as an upsert delta keyed by keys + window_start
 *    (session windows that merged away are listed in `retired`, keyed the same way); the query
 *    form emits the result rows of the windows the batch touched that differ from before it;
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

/** An aggregation written as one query over the rows of the windows to compute. */
export interface AggregationQuery {
  /**
   * A SELECT over `rows`: a relation with the input columns plus `__ts`, `__ws` and `__we`
   * (event time, window start and end in epoch microseconds), aggregating them into output rows.
   */
  sql(rows: string): string;
}

interface CommonOptions {
  /** Prefix of this operator's tables, unique within the session. */
  readonly name: string;
  /** The event-time column; only the global window without a watermark goes without one. */
  readonly eventTime?: string;
  readonly window: WindowSpec;
  readonly outputMode: OutputMode;
  /** Watermark delay; required in append mode, where a window is emitted once the watermark passes its end. */
  readonly watermarkDelay?: string;
}

export type WindowAggregationOptions = CommonOptions &
  ({ readonly keys: readonly string[]; readonly aggregates: readonly Aggregate[] } | { readonly query: AggregationQuery });

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
  private readonly keys: readonly string[];
  private readonly query: AggregationQuery;

  constructor(
    private readonly session: DuckDbSession,
    readonly options: WindowAggregationOptions,
  ) {
    if (options.outputMode === 'append' && options.watermarkDelay === undefined) {
      throw new InvalidInputError(`Aggregation "${options.name}" in append mode needs a watermark on ${options.eventTime ?? 'its event time'}`, {
        context: { operator: options.name },
      });
    }
    this.window = resolveWindow(options.window);
    if (options.eventTime === undefined && (this.window.kind !== 'global' || options.watermarkDelay !== undefined)) {
      throw new InvalidInputError(`Aggregation "${options.name}" needs an event-time column for its window or watermark`, { context: { operator: options.name } });
    }
    if ('query' in options) {
      if (this.window.kind !== 'tumbling' && this.window.kind !== 'global') {
        throw new InvalidInputError(`Aggregation "${options.name}": a query aggregation takes tumbling windows only, not ${this.window.kind}`);
      }
      this.keys = [];
      this.query = options.query;
    } else {
      if (options.aggregates.length === 0) throw new InvalidInputError(`Aggregation "${options.name}" has no aggregates`);
      this.keys = options.keys;
      this.query = keyedQuery(options.keys, options.aggregates);
    }
    if (options.outputMode === 'append' && this.window.kind === 'global') {
      throw new InvalidInputError(`Aggregation "${options.name}" in append mode needs a window: a result without one is never final`, {
        context: { operator: options.name },
      });
    }
    this.watermark =
      options.watermarkDelay === undefined
        ? undefined
        : new EventTimeWatermark(session, { name: options.name, eventTime: options.eventTime ?? '', delay: options.watermarkDelay });
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
    const unchanged = `${name}__unchanged`;
    const touched = (windows: string): string => `(SELECT w.* FROM ${windows} w WHERE ${this.touchedBy(accepted, 'w', watermarkBefore)})`;
    const queryUpdate = this.options.outputMode === 'update' && 'query' in this.options;
    if (queryUpdate) {
      await this.session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(unchanged)} AS ${this.query.sql(touched(this.windowsOf(this.rows)))}`);
    }
    await this.session.run(`INSERT INTO ${quoteIdentifier(this.rows)} SELECT * FROM ${quoteIdentifier(accepted)}`);
    if (this.watermark !== undefined) await this.watermark.advance(accepted);
    const watermarkAfter = (await this.watermark?.currentMicros()) ?? null;

    const output = `${name}__output`;
    const windows = this.windowsOf(this.rows);
    const finalNow = this.finalBetween(watermarkBefore, watermarkAfter);
    switch (this.options.outputMode) {
      case 'append':
        await this.createOutput(output, this.aggregateSql(windows, finalNow));
        break;
      case 'update': {
        const changed = this.query.sql(touched(windows));
        await this.createOutput(output, queryUpdate ? `SELECT * FROM (${changed}) EXCEPT SELECT * FROM ${quoteIdentifier(unchanged)}` : changed);
        break;
      }
      case 'complete': {
        await this.session.run(`CREATE TABLE IF NOT EXISTS ${quoteIdentifier(this.final)} AS ${this.aggregateSql(windows, 'FALSE')}`);
        await this.session.run(`INSERT INTO ${quoteIdentifier(this.final)} ${this.aggregateSql(windows, finalNow)}`);
        const open = watermarkAfter === null ? 'TRUE' : `__we > ${watermarkAfter}`;
        await this.createOutput(output, `SELECT * FROM ${quoteIdentifier(this.final)} UNION ALL ${this.aggregateSql(windows, open)}`);
        break;
      }
    }
    if (watermarkAfter !== null) await this.evictFinal(watermarkAfter);
    const result: WindowBatchResult = { output, lateRows, watermark: (await this.watermark?.current()) ?? null };
    return retired === undefined ? result : { ...result, retired };
  }

  private windowsOf(rows: string): string {
    return `(${assignWindowsSql(this.window, quoteIdentifier(rows), this.keys)})`;
  }

  private async acceptRows(batch: string, accepted: string): Promise<number> {
    if (this.watermark !== undefined) {
      await this.watermark.init();
      return (await this.watermark.splitLate(batch, accepted, lastWindowEndSql(this.window))).late;
    }
    if (this.options.eventTime === undefined) {
      await this.session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(accepted)} AS SELECT *, 0::BIGINT AS __ts FROM ${quoteIdentifier(batch)}`);
      return 0;
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

  /**
   * A window is touched when a row of this batch lies in it (same keys, start ≤ ts < end) and it
   * was not final before the batch (a sliding window row may belong to final windows too).
   */
  private touchedBy(accepted: string, alias: string, watermarkBefore: bigint | null): string {
    const open = watermarkBefore === null ? '' : ` AND ${alias}.__we > ${watermarkBefore}`;
    return `EXISTS (SELECT 1 FROM ${quoteIdentifier(accepted)} a WHERE ${sameValues(this.keys, 'a', alias)} AND a.__ts >= ${alias}.__ws AND a.__ts < ${alias}.__we)${open}`;
  }

  private aggregateSql(windows: string, where: string): string {
    return `SELECT * FROM (${this.query.sql(`(SELECT * FROM ${windows} WHERE ${where})`)})`;
  }

  private async createOutput(output: string, sql: string): Promise<void> {
    await this.session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(output)} AS ${sql}`);
  }

  /** Sessions of the keys in this batch that exist before it and not after it (they merged into another). */
  private async retiredSessions(accepted: string): Promise<string> {
    const keys = this.keys;
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
    if (this.window.kind === 'global') return;
    if (this.window.kind !== 'session') {
      await this.session.run(`DELETE FROM ${rows} WHERE ${lastWindowEndSql(this.window)} <= ${watermark}`);
      return;
    }
    // Sessions are recomputed from the buffer, so a session is evicted with all of its rows at once.
    const keys = this.keys;
    const sessions = assignWindowsSql(this.window, rows, keys);
    const keyMatch = keys.length === 0 ? 'TRUE' : sameValues(keys, 's', rows);
    await this.session.run(
      `DELETE FROM ${rows} WHERE EXISTS (
         SELECT 1 FROM (${sessions}) s WHERE s.__we <= ${watermark} AND ${keyMatch} AND ${rows}.__ts >= s.__ws AND ${rows}.__ts < s.__we)`,
    );
  }
}

/** keys, window_start, window_end and one column per aggregate, per key and window. */
function keyedQuery(keys: readonly string[], aggregates: readonly Aggregate[]): AggregationQuery {
  const keyList = keys.length === 0 ? '' : `${identList(keys)}, `;
  const columns = aggregates.map((a) => `${a.sql} AS ${quoteIdentifier(a.name)}`).join(', ');
  return {
    sql: (rows) => `SELECT ${keyList}make_timestamp(__ws) AS window_start, make_timestamp(__we) AS window_end, ${columns}
                    FROM ${rows} GROUP BY ${keyList}__ws, __we`,
  };
}
