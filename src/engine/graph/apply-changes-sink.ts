/**
 * The sink of an apply-changes flow: each micro-batch of change events goes through the
 * ApplyChanges operator (state in DuckDB), and the batch's change set lands in the Iceberg
 * target as ONE snapshot carrying the batch's summary (positions, checkpoint pointer):
 *  - the first batch of a missing table creates it with all the operator's target rows (SCD1:
 *    the data columns; SCD2: plus __START_AT and __END_AT);
 *  - the first batch of a full refresh replaces the table's rows with the operator's target rows
 *    (the operator starts from empty state then, so they are the batch's result);
 *  - every other batch is a row delta (upsert with delete keys): the rows whose key (SCD1) or
 *    key and __START_AT (SCD2) the change set deletes go (position deletes under merge-on-read,
 *    rewrites under copy-on-write, per `write.update.mode`) and its insert rows are added; a
 *    batch that changes nothing commits an empty snapshot, as its positions must still land.
 * The runner's `beforeCommit` (its checkpoint of the state tables) runs after the operator applied
 * the batch and before the commit; its entries join the summary. Both run inside the operator's
 * DuckDB transaction: when anything after the operator fails, the state rolls back to what it
 * was before the batch.
 */
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { quoteIdentifier } from '../../duckdb/session.js';
import { InvalidInputError, ThundError } from '../../errors.js';
import type { CommitFence } from '../../table/commit-snapshot.js';
import type { ApplyChangesFlow } from '../../pipeline/ir/flow.js';
import { ApplyChanges } from '../operators/apply-changes.js';
import { ChangeEventError } from '../operators/operator-errors.js';
import type { ChangeSet } from '../operators/change-set.js';
import { runFlow } from '../run-flow.js';
import { loadIfExists } from './streaming/target-tables.js';
import { applyChangesOptions, inferChangeFormat } from './cdc/apply-changes-options.js';
import type { FlowContext } from './flow-context.js';
import type { BatchSink, BatchWrite } from './streaming/batch-sink.js';

export async function createApplyChangesSink(context: FlowContext): Promise<BatchSink> {
  const { flow } = context;
  if (flow.kind !== 'apply-changes') {
    throw new InvalidInputError(`Flow "${flow.name}" is not an apply-changes flow`, { context: { flow: flow.name } });
  }
  return new ApplyChangesSink(context, flow);
}

/** DuckDB table names of a flow's operator state: stable across runs, so a checkpoint restores into a fresh sink. */
export function applyChangesStateName(flowName: string): string {
  return `__thund_cdc_${flowName.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

class ApplyChangesSink implements BatchSink {
  private operator: ApplyChanges;
  private formatSettled: boolean;
  private replacePending: boolean;
  private readonly identifier: TableIdentifier;

  constructor(
    private readonly context: FlowContext,
    private readonly flow: ApplyChangesFlow,
  ) {
    // The state tables depend only on the name and the SCD type, so they are known before the
    // first batch shows the input's format.
    this.operator = new ApplyChanges(context.session, applyChangesStateName(flow.name), applyChangesOptions(flow.changes));
    this.formatSettled = flow.changes.changeFormat !== undefined;
    this.replacePending = context.fullRefresh;
    this.identifier = { namespace: context.target.table.identifier.namespace, name: context.target.table.identifier.name };
  }

  stateTables(): readonly string[] {
    return this.operator.stateTables();
  }

  derivedTables(): readonly string[] {
    return this.operator.derivedTables();
  }

  lastChanges(): ReadonlyMap<string, string> | undefined {
    return this.operator.lastChanges();
  }

  replayChanges(changes: ReadonlyMap<string, string>): Promise<void> {
    return this.operator.replayChanges(changes);
  }

  async write(
    relation: string,
    summary: Readonly<Record<string, string>>,
    beforeCommit?: () => Promise<Readonly<Record<string, string>>>,
    fence?: CommitFence,
  ): Promise<BatchWrite> {
    const operator = await this.operatorFor(relation);
    let snapshotId: bigint | undefined;
    let committing = false;
    // The commit runs inside the operator's DuckDB transaction, so a failed commit rolls the state back too.
    const { stats } = await operator
      .processBatch(relation, async ({ changeSet }) => {
        // The state tables hold this batch now: the runner's checkpoint of them goes into the summary.
        const checkpoint = (await beforeCommit?.()) ?? {};
        committing = true;
        snapshotId = await this.commit(operator, changeSet, { ...this.context.summary, ...summary, ...checkpoint }, fence);
      })
      .catch((error: unknown) => {
        throw committing ? error : this.named(error);
      });
    if (snapshotId === undefined) throw new ThundError('INTERNAL', `flow ${this.flow.name}: the batch was applied without a commit`, { context: { flow: this.flow.name } });
    this.replacePending = false;
    return { snapshotId, rowsWritten: stats.insertedRows, lateRows: 0 };
  }

  /** The operator's refusal of the change rows (a key column they lack, a null key or sequence, …), naming the flow and its target. */
  private named(error: unknown): unknown {
    const table = formatIdentifier(this.identifier);
    const where = `Flow "${this.flow.name}" into ${table}`;
    if (error instanceof ChangeEventError) return error.within(where, { flow: this.flow.name, table });
    if (!(error instanceof InvalidInputError)) return error;
    return new InvalidInputError(`${where}: ${error.message}`, { cause: error, context: { ...error.context, flow: this.flow.name, table } });
  }

  private async operatorFor(relation: string): Promise<ApplyChanges> {
    if (!this.formatSettled) {
      const format = await inferChangeFormat(this.context.session, this.flow.changes, relation);
      this.operator = new ApplyChanges(this.context.session, applyChangesStateName(this.flow.name), applyChangesOptions(this.flow.changes, format));
      this.formatSettled = true;
    }
    return this.operator;
  }

  /**
   * The batch through run-flow, as every table write: the rows fitted to the table (its schema
   * evolved as an append's), the key rules checked, one snapshot.
   */
  private async commit(operator: ApplyChanges, changeSet: ChangeSet, summary: Readonly<Record<string, string>>, fence: CommitFence | undefined): Promise<bigint> {
    const { session, catalog, io, target } = this.context;
    const exists = (await loadIfExists(catalog, this.identifier)) !== undefined;
    const write = {
      session,
      catalog,
      io,
      flowName: this.flow.name,
      target: this.identifier,
      tableProperties: target.table.properties,
      summaryProperties: summary,
      ...(target.table.partitioning.length === 0 ? {} : { partitionedBy: target.table.partitioning }),
      ...(fence === undefined ? {} : { fence }),
      ...(this.context.commitNotice === undefined ? {} : { onNotice: this.context.commitNotice }),
    };
    // A new table takes all the operator's target rows; a full refresh replaces the table's rows with them.
    if (!exists || this.replacePending) {
      const mode = exists ? 'overwrite' : 'upsert';
      const result = await runFlow({ ...write, sql: operator.targetQuery(), mode, keys: changeSet.deleteKeyColumns });
      return result.snapshot.snapshotId;
    }
    const result = await runFlow({
      ...write,
      sql: `SELECT * FROM ${quoteIdentifier(changeSet.inserts)}`,
      // The change set's tables stay as they are until the batch's transaction ends.
      stableSql: true,
      mode: 'upsert',
      keys: changeSet.deleteKeyColumns,
      deleteKeys: { sql: `SELECT * FROM ${quoteIdentifier(changeSet.deletes)}`, commitEmpty: true },
    });
    return result.snapshot.snapshotId;
  }
}
