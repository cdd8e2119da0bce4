/**
 * The Iceberg table write of a streaming flow's micro-batch, one snapshot per batch carrying the
 * batch's summary (checkpoint pointer, expectation counts, staleness record):
 *  - append: the rows are added (the first batch of a full refresh replaces the table's rows);
 *  - update: the rows are an upsert delta by the group keys (src/table/upsert.ts through
 *    run-flow's upsert path); a batch without changed rows commits an empty append, so the
 *    positions still move;
 *  - complete: the rows replace the table's rows.
 * The table is created from the first batch's columns; partitioning and properties come from
 * the target dataset. Stateless: the operators before it own the state.
 */
import { quoteIdentifier } from '../../../duckdb/session.js';
import type { CommitFence } from '../../../table/commit-snapshot.js';
import { countRows } from '../../operators/sql.js';
import type { OutputMode } from '../../operators/window-aggregation.js';
import { runFlow, type FlowRunRequest } from '../../run-flow.js';
import type { FlowContext } from '../flow-context.js';
import type { BatchSink, BatchWrite } from './batch-sink.js';

export class TableBatchSink implements BatchSink {
  private written = 0;

  /** `keys` (update mode): the output columns an upsert matches rows by. */
  constructor(
    private readonly context: FlowContext,
    private readonly outputMode: OutputMode,
    private readonly keys: () => readonly string[] = () => [],
  ) {}

  stateTables(): readonly string[] {
    return [];
  }

  async write(
    relation: string,
    summary: Readonly<Record<string, string>>,
    beforeCommit?: () => Promise<Readonly<Record<string, string>>>,
    fence?: CommitFence,
  ): Promise<BatchWrite> {
    const checkpoint = (await beforeCommit?.()) ?? {};
    const rows = await countRows(this.context.session, quoteIdentifier(relation));
    const first = this.written === 0;
    const keys = this.keys();
    // Update mode without group keys has one result row: the batch's row replaces it.
    const replace = this.outputMode === 'complete' || (first && this.context.fullRefresh) || (this.outputMode === 'update' && rows > 0 && keys.length === 0);
    const mode: FlowRunRequest['mode'] = replace ? 'overwrite' : this.outputMode === 'update' && rows > 0 ? 'upsert' : 'append';
    const { target, flow } = this.context;
    const result = await runFlow({
      session: this.context.session,
      catalog: this.context.catalog,
      io: this.context.io,
      flowName: flow.name,
      sql: `SELECT * FROM ${quoteIdentifier(relation)}`,
      target: target.table.identifier,
      mode,
      ...(mode === 'upsert' ? { keys } : {}),
      tableProperties: target.table.properties,
      summaryProperties: { ...summary, ...checkpoint },
      ...(target.table.partitioning.length === 0 ? {} : { partitionedBy: target.table.partitioning }),
      ...(fence === undefined ? {} : { fence }),
      ...(this.context.commitNotice === undefined ? {} : { onNotice: this.context.commitNotice }),
    });
    this.written += 1;
    return { snapshotId: result.snapshot.snapshotId, rowsWritten: rows, lateRows: 0 };
  }
}
