/**
 * Operator state lives in DuckDB tables; a checkpoint is those tables written as Parquet files
 * (one per table) and a restart reads them back into a fresh session before the next batch. An
 * operator that can tell what its last batch changed (`lastChanges`) may be checkpointed by those
 * changes alone, on top of an earlier checkpoint, and a restart replays them in order
 * (`replayChanges`): the cost of a batch's checkpoint then follows the batch, not the whole state.
 */
import { join } from 'node:path';
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../duckdb/session.js';
import { ThundError } from '../../errors.js';

export interface StatefulOperator {
  /** Names of the DuckDB tables holding this operator's state. */
  stateTables(): readonly string[];
  /** Tables the operator derives from its state tables to save work; importing state drops them, to be derived again. */
  derivedTables?(): readonly string[];
  /**
   * What the last batch changed in the state tables: relations by names unique in the flow
   * (file names too), which replayChanges applies to the state before the batch to give the
   * state after it. Undefined when the operator cannot tell (its state is then saved whole).
   */
  lastChanges?(): ReadonlyMap<string, string> | undefined;
  /** Applies one batch's changes, read back under the names lastChanges gave, to the state tables. */
  replayChanges?(changes: ReadonlyMap<string, string>): Promise<void>;
}

/** Writes the operator's state tables as `<table>.parquet` in `directory`; returns the rows written. */
export async function exportState(session: DuckDbSession, operator: StatefulOperator, directory: string): Promise<number> {
  let rows = 0;
  for (const table of operator.stateTables()) rows += await copyRows(session, quoteIdentifier(table), join(directory, `${table}.parquet`));
  return rows;
}

/** Writes the operator's last changes as `<name>.parquet` in `directory`; returns the rows written. */
export async function exportChanges(session: DuckDbSession, changes: ReadonlyMap<string, string>, directory: string): Promise<number> {
  let rows = 0;
  for (const [name, relation] of changes) rows += await copyRows(session, quoteIdentifier(relation), join(directory, `${name}.parquet`));
  return rows;
}

async function copyRows(session: DuckDbSession, relation: string, file: string): Promise<number> {
  const [result] = await session.queryJson(`COPY (SELECT * FROM ${relation}) TO ${quoteLiteral(file)} (FORMAT parquet)`);
  return Number(Object.values(result ?? {})[0] ?? 0);
}

/** Replaces the operator's state tables with the checkpointed ones (the operator need not be initialised). */
export async function importState(session: DuckDbSession, operator: StatefulOperator, directory: string): Promise<void> {
  for (const table of operator.stateTables()) {
    await session.run(
      `CREATE OR REPLACE TABLE ${quoteIdentifier(table)} AS SELECT * FROM read_parquet(${quoteLiteral(join(directory, `${table}.parquet`))})`,
    );
  }
  await dropDerived(session, operator);
}

/** Applies changes written by exportChanges (files `<name>.parquet` in `directory`) to the operator's state. */
export async function importChanges(session: DuckDbSession, operator: StatefulOperator, directory: string, names: readonly string[]): Promise<void> {
  if (operator.replayChanges === undefined) throw new ThundError('INTERNAL', 'a checkpoint of changes is restored into an operator that cannot replay them');
  const views = new Map<string, string>();
  for (const name of names) {
    const view = `__thund_replay_${views.size}`;
    await session.run(`CREATE OR REPLACE TEMP VIEW ${quoteIdentifier(view)} AS SELECT * FROM read_parquet(${quoteLiteral(join(directory, `${name}.parquet`))})`);
    views.set(name, view);
  }
  try {
    await operator.replayChanges(views);
  } finally {
    for (const view of views.values()) await session.run(`DROP VIEW IF EXISTS ${quoteIdentifier(view)}`);
  }
  await dropDerived(session, operator);
}

/** Drops the tables the operator derives from its state, to be derived again from the imported state. */
async function dropDerived(session: DuckDbSession, operator: StatefulOperator): Promise<void> {
  for (const table of operator.derivedTables?.() ?? []) await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(table)}`);
}
