/**
 * Event-time watermark, as Structured Streaming defines it: max event time seen − delay. Within a
 * batch the watermark from the batches before it applies; it is recomputed after the batch and
 * never moves back. A row is late when its event time is earlier than the watermark (or null) or,
 * for windowed operators, when every window it belongs to ended at or before the watermark (Spark's
 * rule: only rows of finalised windows are dropped); late rows are left out and counted.
 *
 * State: one row in `<name>__watermark` (epoch microseconds), so it is checkpointed with the
 * operator's other state tables.
 */
import { quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { durationMicros } from './duration.js';

export interface WatermarkOptions {
  /** Prefix of the state table, unique within the session. */
  readonly name: string;
  /** Event-time column (TIMESTAMP or TIMESTAMPTZ). */
  readonly eventTime: string;
  /** How long to wait for late rows, e.g. "10 minutes". */
  readonly delay: string;
}

export interface LateSplit {
  /** Rows kept for stateful processing, with their event time in epoch microseconds as `__ts`. */
  readonly accepted: string;
  readonly late: number;
}

export class EventTimeWatermark {
  readonly stateTable: string;
  private readonly delayMicros: bigint;

  constructor(
    private readonly session: DuckDbSession,
    readonly options: WatermarkOptions,
  ) {
    this.stateTable = `${options.name}__watermark`;
    this.delayMicros = durationMicros(options.delay, `Watermark delay of ${options.eventTime}`, true);
  }

  async init(): Promise<void> {
    await this.session.run(`CREATE TABLE IF NOT EXISTS ${quoteIdentifier(this.stateTable)} (max_event_us BIGINT, watermark_us BIGINT)`);
    await this.session.run(
      `INSERT INTO ${quoteIdentifier(this.stateTable)} SELECT NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdentifier(this.stateTable)})`,
    );
  }

  /** The current watermark in epoch microseconds, or null before any row was seen. */
  async currentMicros(): Promise<bigint | null> {
    const [row] = await this.session.queryJson(`SELECT watermark_us::VARCHAR AS w FROM ${quoteIdentifier(this.stateTable)}`);
    const value = row?.['w'];
    return typeof value === 'string' ? BigInt(value) : null;
  }

  /** The watermark as a timestamp text (`YYYY-MM-DD hh:mm:ss[.ffffff]`), or null. */
  async current(): Promise<string | null> {
    const [row] = await this.session.queryJson(`SELECT make_timestamp(watermark_us)::VARCHAR AS w FROM ${quoteIdentifier(this.stateTable)}`);
    const value = row?.['w'];
    return typeof value === 'string' ? value : null;
  }

  /**
   * Splits `input` into the accepted rows (a new table named `accepted`) and a count of late rows.
   * A row is late when it has no event time, or when `openUntil` (SQL over the row's `__ts`: the
   * end of the last window it belongs to) is at or before the watermark; without `openUntil`,
   * when its event time is before the watermark.
   */
  async splitLate(input: string, accepted: string, openUntil?: string): Promise<LateSplit> {
    const ts = `epoch_us(${quoteIdentifier(this.options.eventTime)})`;
    const watermark = `(SELECT watermark_us FROM ${quoteIdentifier(this.stateTable)})`;
    const onTime = openUntil === undefined ? `__ts >= ${watermark}` : `${openUntil} > ${watermark}`;
    await this.session.run(
      `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(accepted)} AS
       SELECT * FROM (SELECT *, ${ts} AS __ts FROM ${quoteIdentifier(input)})
       WHERE __ts IS NOT NULL AND (${watermark} IS NULL OR ${onTime})`,
    );
    const [counts] = await this.session.queryJson(
      `SELECT ((SELECT count(*) FROM ${quoteIdentifier(input)}) - (SELECT count(*) FROM ${quoteIdentifier(accepted)}))::INTEGER AS late`,
    );
    return { accepted, late: Number(counts?.['late'] ?? 0) };
  }

  /** Recomputes the watermark after a batch from the event times in `batch`. */
  async advance(batch: string): Promise<void> {
    const table = quoteIdentifier(this.stateTable);
    await this.session.run(
      `UPDATE ${table} SET
         max_event_us = greatest(max_event_us, b.m),
         watermark_us = greatest(watermark_us, greatest(max_event_us, b.m) - ${this.delayMicros})
       FROM (SELECT max(epoch_us(${quoteIdentifier(this.options.eventTime)})) AS m FROM ${quoteIdentifier(batch)}) b
       WHERE b.m IS NOT NULL`,
    );
  }
}
