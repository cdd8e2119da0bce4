/**
 * The quickstart table as the interop tests see it: written by the built CLI into a warehouse,
 * and the rows and Iceberg types it must hold, computed independently (DuckDB over the input
 * file with the flow's SELECT restated here, not taken from Thund's code).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { REPO, thund } from '../e2e/cli.js';
import type { SqliteCatalogReadArgs } from './read-table-output.js';
import type { ColumnType, Row } from './verify.js';

export const QUICKSTART_SPEC = join(REPO, 'examples/quickstart/pipeline.yaml');
export const QUICKSTART_INPUT = join(REPO, 'examples/quickstart/data/orders.parquet');
export const QUICKSTART_TABLE = 'lake.orders';

/** The Iceberg schema the flow's SELECT must produce (DuckDB types mapped per the Iceberg spec). */
export const QUICKSTART_COLUMNS: readonly ColumnType[] = [
  { name: 'order_id', type: 'long' },
  { name: 'customer_name', type: 'string' },
  { name: 'amount', type: 'decimal(12, 2)' },
  { name: 'currency', type: 'string' },
  { name: 'ordered_at', type: 'timestamptz' },
  { name: 'ship_date', type: 'date' },
  { name: 'is_gift', type: 'boolean' },
];

/**
 * The rows the table must hold, optionally only those matching a DuckDB predicate over the
 * output columns. Timestamps are µs since epoch, decimals and dates text (see verify.ts).
 */
export async function quickstartExpectedRows(where?: string): Promise<Row[]> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return await session.queryJson(`
      SELECT * FROM (
        SELECT CAST(id AS BIGINT) AS order_id, customer AS customer_name,
               CAST(amount_cents * 0.01 AS DECIMAL(12, 2))::VARCHAR AS amount, upper(currency) AS currency,
               epoch_us(to_timestamp(ordered_at_epoch_s)) AS ordered_at, CAST(ship_date AS DATE)::VARCHAR AS ship_date, is_gift
        FROM read_parquet(${quoteLiteral(QUICKSTART_INPUT)})
      ) ${where === undefined ? '' : `WHERE ${where}`}`);
  } finally {
    session.close();
  }
}

/** `thund run` of the quickstart into this warehouse; fails with the CLI's stderr. */
export function writeQuickstart(warehouse: string): void {
  const result = thund(['run', QUICKSTART_SPEC, '--warehouse', warehouse]);
  if (result.status !== 0) throw new Error(`thund run failed (${result.status}): ${result.stderr}`);
}

/** How the readers open the table in a local warehouse (SQLite JDBC catalog, catalog_name 'default'). */
export function localCatalog(warehouse: string, extra: Partial<SqliteCatalogReadArgs> = {}): SqliteCatalogReadArgs {
  return {
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: QUICKSTART_TABLE,
    ...extra,
  };
}
