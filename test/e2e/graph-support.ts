/**
 * Helpers for pipelines of several flows run through the CLI: Parquet inputs written by DuckDB,
 * and a table's live rows read back through Thund's own scan of the embedded catalog.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEmbeddedCatalog } from '../../src/app/embedded-catalog.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import type { Snapshot } from '../../src/iceberg/table-metadata.js';
import { openTableRows } from '../../src/table/table-rows.js';

/** Writes `rows` (a SQL VALUES list of (id, customer, amount)) as a Parquet file. */
export async function writeOrders(file: string, values: string): Promise<void> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    await session.run(
      `COPY (SELECT CAST(id AS INTEGER) AS id, CAST(customer AS VARCHAR) AS customer, CAST(amount AS INTEGER) AS amount ` +
        `FROM (VALUES ${values}) v(id, customer, amount)) TO ${quoteLiteral(file)} (FORMAT parquet)`,
    );
  } finally {
    session.close();
  }
}

/** The table's live rows as `SELECT <columns> … ORDER BY <columns>`, values as JSON-safe text. */
export async function tableRows(warehouse: string, table: string, columns: string): Promise<Record<string, unknown>[]> {
  const { catalog, io } = openEmbeddedCatalog({ warehouse });
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const [namespace, name] = table.split('.') as [string, string];
    const loaded = await catalog.loadTable({ namespace: [namespace], name });
    const rows = await openTableRows({ session, io, metadata: loaded.metadata });
    try {
      return await session.queryJson(`SELECT ${columns} FROM (${rows.sql}) ORDER BY ${columns}`);
    } finally {
      await rows.release();
    }
  } finally {
    session.close();
    await catalog.close();
  }
}

/** The table's snapshots, oldest first. */
export async function tableSnapshots(warehouse: string, table: string): Promise<readonly Snapshot[]> {
  const { catalog } = openEmbeddedCatalog({ warehouse });
  try {
    const [namespace, name] = table.split('.') as [string, string];
    return (await catalog.loadTable({ namespace: [namespace], name })).metadata.snapshots;
  } finally {
    await catalog.close();
  }
}

export function writeSpec(folder: string, name: string, lines: readonly string[]): string {
  const file = join(folder, `${name}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
