/**
 * A view or temporary view as a DuckDB view of its name over its query, so flows read it like a
 * table. With expectations the query is evaluated once, checked (warn counts, drop removes,
 * fail stops the run) and the view reads the checked rows.
 */
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../../duckdb/session.js';
import { FlowError } from '../../errors.js';
import type { ViewDataset } from '../../pipeline/ir/dataset.js';
import type { Flow } from '../../pipeline/ir/flow.js';
import type { ExpectationCounts } from '../run-events.js';
import { checkExpectations } from './expectation-step.js';
import { flowQuery } from './flow-query.js';

export interface ViewOutcome {
  readonly rows?: number;
  readonly expectations: readonly ExpectationCounts[];
}

export async function createView(session: DuckDbSession, view: ViewDataset, flow: Flow): Promise<ViewOutcome> {
  const name = quoteIdentifier(view.name);
  const sql = flowQuery(flow);
  if (view.expectations.length === 0) {
    await run(session, flow, `CREATE OR REPLACE VIEW ${name} AS ${sql}`);
    return { expectations: [] };
  }
  const input = `__thund_view_input_${view.name}`;
  const output = `__thund_view_checked_${view.name}`;
  await run(session, flow, `CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(input)} AS ${sql}`);
  const checked = await checkExpectations(session, view, input, output);
  await session.run(`DROP TABLE ${quoteIdentifier(input)}`);
  await session.run(`CREATE OR REPLACE VIEW ${name} AS SELECT * FROM ${quoteIdentifier(checked.relation)}`);
  return { ...(checked.inputRows === undefined ? {} : { rows: checked.inputRows }), expectations: checked.counts };
}

async function run(session: DuckDbSession, flow: Flow, sql: string): Promise<void> {
  try {
    await session.run(sql);
  } catch (error) {
    throw new FlowError(`Flow "${flow.name}": SQL error: ${duckDbMessage(error)}`, { cause: error, context: { flow: flow.name } });
  }
}
