/**
 * What a streaming flow does with one micro-batch before its rows reach the sink: a stateless
 * flow runs its SQL over the batch; a streaming aggregation hands the batch to the windowed
 * aggregation operator (operators/window-aggregation.ts), which buffers the rows of open windows
 * and runs the flow's own SQL over them, so any aggregate DuckDB knows works.
 */
import { quoteIdentifier, duckDbMessage, type DuckDbSession } from '../../../duckdb/session.js';
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

export class StatelessStage implements FlowStage {
  constructor(
    private readonly session: DuckDbSession,
    private readonly flowName: string,
    private readonly sql: string,
    private readonly output: string,
  ) {}

  stateTables(): readonly string[] {
    return [];
  }

  async process(inputs: ReadonlyMap<string, string>): Promise<StageResult> {
    const sql = rewriteStreamReads(this.sql, (name) => quoteIdentifier(inputs.get(streamReadKey(name)) ?? name));
    await runFlowSql(this.session, this.flowName, `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(this.output)} AS ${sql}`);
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
