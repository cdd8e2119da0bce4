/**
 * What a streaming flow does with one micro-batch before its rows reach the sink: a stateless
 * flow runs its SQL over the batch; a streaming aggregation hands the batch to the windowed
 * aggregation operator (operators/window-aggregation.ts), which buffers the rows of open windows
 * and runs the flow's own SQL over them, so any aggregate DuckDB knows works.
 */
import { quoteIdentifier, quoteLiteral, duckDbMessage, type DuckDbSession } from '../../../duckdb/session.js';
import { failingRows, type FailedRow } from './row-isolation.js';
import { FlowError, ThundError } from '../../../errors.js';
import type { StatefulOperator } from '../../operators/state-checkpoint.js';
import { WindowAggregation, type OutputMode } from '../../operators/window-aggregation.js';
import type { TumblingWindow } from './aggregation-shape.js';
import { rewriteStreamReads, streamReadKey } from './stream-rewrite.js';

export interface StageResult {
  /** A table with the flow's output rows for the batch. */
  readonly output: string;
  readonly lateRows: number;
}

export interface FlowStage extends StatefulOperator {
  /** `inputs`: per streamed read (streamReadKey of its name), the table holding the batch's rows. */
  process(inputs: ReadonlyMap<string, string>): Promise<StageResult>;
}

/** Where the rows a stateless flow fails on go (the dead letters of its Kafka input), and which input they are rows of. */
export interface RowIsolation {
  /** The streamed read (streamReadKey) whose rows are isolated. */
  readonly input: string;
  reject(failures: readonly FailedRow[]): void;
}

export class StatelessStage implements FlowStage {
  constructor(
    private readonly session: DuckDbSession,
    private readonly flowName: string,
    private readonly sql: string,
    private readonly output: string,
    private readonly isolation?: RowIsolation,
    /** The SQL cannot fail on a row (projection-only.ts): its output is a view, not a copy of the batch. */
    private readonly asView = false,
  ) {}

  stateTables(): readonly string[] {
    return [];
  }

  async process(inputs: ReadonlyMap<string, string>): Promise<StageResult> {
    const create = (relations: ReadonlyMap<string, string>): Promise<void> => {
      const sql = rewriteStreamReads(this.sql, (name) => quoteIdentifier(relations.get(streamReadKey(name)) ?? name));
      return runFlowSql(this.session, this.flowName, `CREATE OR REPLACE TEMP ${this.asView ? 'VIEW' : 'TABLE'} ${quoteIdentifier(this.output)} AS ${sql}`);
    };
    try {
      await create(inputs);
    } catch (error) {
      const isolation = this.isolation;
      const input = isolation === undefined ? undefined : inputs.get(isolation.input);
      if (isolation === undefined || input === undefined || !(error instanceof FlowError)) throw error;
      const failures = await failingRows(this.session, this.flowName, input, (part) => create(new Map([...inputs, [isolation.input, part]])));
      // Failing as a whole while no row fails alone: nothing to set aside.
      if (failures.length === 0) throw error;
      isolation.reject(failures);
      const coordinates = failures.map((f) => `(${quoteLiteral(f.topic)}, ${f.partition}, ${f.offset})`).join(', ');
      await this.session.run(`DELETE FROM ${quoteIdentifier(input)} WHERE (_kafka_topic, _kafka_partition, _kafka_offset) IN (VALUES ${coordinates})`);
      await create(inputs);
    }
    return { output: this.output, lateRows: 0 };
  }
}

export interface AggregationStageOptions {
  readonly name: string;
  readonly flowName: string;
  readonly sql: string;
  /** The streamed read the aggregation consumes (streamReadKey). */
  readonly input: string;
  readonly window?: TumblingWindow;
  readonly watermark?: { readonly column: string; readonly delay: string };
  readonly outputMode: OutputMode;
}

export class AggregationStage implements FlowStage {
  private readonly operator: WindowAggregation;

  constructor(
    session: DuckDbSession,
    private readonly options: AggregationStageOptions,
  ) {
    const { sql, window, watermark } = options;
    const eventTime = window?.column ?? watermark?.column;
    this.operator = new WindowAggregation(session, {
      name: options.name,
      ...(eventTime === undefined ? {} : { eventTime }),
      window: window === undefined ? { kind: 'global' } : { kind: 'tumbling', size: `${window.sizeMicros} us` },
      outputMode: options.outputMode,
      ...(watermark === undefined ? {} : { watermarkDelay: watermark.delay }),
      query: {
        sql: (rows) => rewriteStreamReads(sql, () => `(SELECT * EXCLUDE (__ts, __ws, __we) FROM ${rows})`),
      },
    });
  }

  stateTables(): readonly string[] {
    return this.operator.stateTables();
  }

  async process(inputs: ReadonlyMap<string, string>): Promise<StageResult> {
    const input = inputs.get(this.options.input);
    if (input === undefined) throw new FlowError(`flow ${this.options.flowName}: no batch for STREAM(${this.options.input})`);
    try {
      const result = await this.operator.processBatch(input);
      return { output: result.output, lateRows: result.lateRows };
    } catch (error) {
      if (error instanceof ThundError) throw error;
      throw new FlowError(`flow ${this.options.flowName}: ${error instanceof Error ? duckDbMessage(error) : String(error)}`, {
        cause: error,
        context: { flow: this.options.flowName },
      });
    }
  }
}

async function runFlowSql(session: DuckDbSession, flowName: string, sql: string): Promise<void> {
  try {
    await session.run(sql);
  } catch (error) {
    throw new FlowError(`flow ${flowName}: SQL error: ${duckDbMessage(error)}`, { cause: error, context: { flow: flowName } });
  }
}
