/**
 * Operator state lives in DuckDB tables; a checkpoint is those tables written as Parquet files
 * (one per table) and a restart reads them back into a fresh session before the next batch.
 */
import { join } from 'node:path';
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../duckdb/session.js';

export interface StatefulOperator {
  /** Names of the DuckDB tables holding this operator's state. */
  stateTables(): readonly string[];
  /** Tables the operator derives from its state tables to save work; importing state drops them, to be derived again. */
  derivedTables?(): readonly string[];
}

export async function exportState(session: DuckDbSession, operator: StatefulOperator, directory: string): Promise<void> {
  for (const table of operator.stateTables()) {
    await session.run(`COPY ${quoteIdentifier(table)} TO ${quoteLiteral(join(directory, `${table}.parquet`))} (FORMAT parquet)`);
  }
}

/** Replaces the operator's state tables with the checkpointed ones (the operator need not be initialised). */
export async function importState(session: DuckDbSession, operator: StatefulOperator, directory: string): Promise<void> {
  for (const table of operator.stateTables()) {
    await session.run(
      `CREATE OR REPLACE TABLE ${quoteIdentifier(table)} AS SELECT * FROM read_parquet(${quoteLiteral(join(directory, `${table}.parquet`))})`,
    );
  }
  for (const table of operator.derivedTables?.() ?? []) await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(table)}`);
}
