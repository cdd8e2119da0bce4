/**
 * A batch flow into a table: run its query, check the target's expectations (warn counts, drop
 * removes, fail stops with nothing committed), and commit the rows in one snapshot with the
 * flow's output mode: append adds them, complete replaces the table's rows, update upserts them
 * by the table's keys. The snapshot summary carries the flow's staleness record and the
 * expectation counts.
 */
import { quoteIdentifier } from '../../duckdb/session.js';
import { FlowError, InvalidInputError, ThundError } from '../../errors.js';
import { ExpectationFailedError } from '../operators/operator-errors.js';
import type { OutputMode } from '../../pipeline/ir/streaming.js';
import { duckDbMessage } from '../../duckdb/session.js';
import type { WriteMode } from '../../table/commit-snapshot.js';
import { countRows } from '../operators/sql.js';
import { runFlow, type FlowRunResult } from '../run-flow.js';
import { checkExpectations, expectationSummary } from './expectation-step.js';
import type { FlowContext, FlowOutcome } from './flow-context.js';
import { flowQuery } from './flow-query.js';

export interface BatchFlowResult {
  readonly outcome: FlowOutcome;
  readonly written: FlowRunResult;
}

export async function runBatchFlow(context: FlowContext): Promise<BatchFlowResult> {
  const { session, flow, target } = context;
  const mode = writeModeOf(context);
  const sql = flowQuery(flow);
  if (target.expectations.length === 0) {
    const written = await write(context, mode, sql, {});
    const rows = Number(written.snapshot.summary['added-records'] ?? 0);
    return { outcome: outcomeOf(written, rows, rows, []), written };
  }
  const input = `__thund_batch_input_${flow.name}`;
  const output = `__thund_batch_checked_${flow.name}`;
  try {
    await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(input)} AS ${sql}`);
  } catch (error) {
    throw new FlowError(`Flow "${flow.name}": SQL error: ${duckDbMessage(error)}`, { cause: error, context: { flow: flow.name } });
  }
  try {
    const rowsRead = await countRows(session, quoteIdentifier(input));
    const checked = await checkExpectations(session, target, input, output).catch((error: unknown) => {
      throw withFlow(error, flow.name);
    });
    const written = await write(context, mode, `SELECT * FROM ${quoteIdentifier(checked.relation)}`, expectationSummary(checked.counts));
    const rows = Number(written.snapshot.summary['added-records'] ?? 0);
    return { outcome: outcomeOf(written, rowsRead, rows, checked.counts), written };
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(input)}`);
    await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(output)}`);
  }
}

const WRITE_MODES: Readonly<Record<OutputMode, WriteMode | 'upsert'>> = { append: 'append', complete: 'overwrite', update: 'upsert' };

function writeModeOf(context: FlowContext): WriteMode | 'upsert' {
  const mode = WRITE_MODES[context.flow.outputMode];
  if (mode === 'upsert' && (context.target.table.keys ?? []).length === 0) {
    throw new InvalidInputError(`Flow "${context.flow.name}": output mode update upserts by the keys of ${context.target.name}, and it declares none`, {
      context: { flow: context.flow.name, table: context.target.name },
    });
  }
  return mode;
}

async function write(context: FlowContext, mode: WriteMode | 'upsert', sql: string, expectations: Record<string, string>): Promise<FlowRunResult> {
  const { table } = context.target;
  return runFlow({
    session: context.session,
    catalog: context.catalog,
    io: context.io,
    flowName: context.flow.name,
    sql,
    target: table.identifier,
    mode,
    ...(table.keys === undefined ? {} : { keys: table.keys }),
    tableProperties: table.properties,
    ...(table.partitioning.length === 0 ? {} : { partitionedBy: table.partitioning }),
    summaryProperties: { ...context.summary, ...expectations },
  });
}

function outcomeOf(written: FlowRunResult, rowsRead: number, rowsWritten: number, expectations: FlowOutcome['counts']['expectations']): FlowOutcome {
  return { counts: { rowsRead, rowsWritten, lateRows: 0, expectations }, snapshotId: written.snapshot.snapshotId };
}

/** An expectation failure names the flow it stopped. */
function withFlow(error: unknown, flow: string): unknown {
  if (!(error instanceof ExpectationFailedError)) return error;
  return new ThundError(error.code, `Flow "${flow}": ${error.message}; nothing of this flow was committed`, {
    cause: error,
    context: { ...error.context, flow },
  });
}
