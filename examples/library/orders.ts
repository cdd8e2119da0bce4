/**
 * Thund from TypeScript: a pipeline built with the builder and run into the embedded catalog,
 * then rows appended (an Arrow table) and upserted (a DuckDB query) with the table API, and the
 * table read back as Arrow. `npm pack` test (test/e2e/package-api.test.ts) installs the package
 * into a fresh project and runs this file there; it imports the built package, so the repo's own
 * typecheck leaves it out (tsconfig.json).
 *
 *   npx tsx orders.ts <orders.parquet> <warehouse folder>
 */
import { tableFromArrays } from 'apache-arrow';
import { openCatalog, parquet, pipeline, runPipeline, type CatalogConfig } from 'thund';

const [ordersFile = 'orders.parquet', warehouse = './warehouse'] = process.argv.slice(2);
const catalog: CatalogConfig = { type: 'sql', warehouse };

const graph = pipeline('orders')
  .source('raw_orders', parquet(ordersFile))
  .streamingTable('lake.orders')
  .flow('load_orders', { target: 'lake.orders', sql: 'SELECT id, customer, amount FROM STREAM(raw_orders)' })
  .build();

const run = await runPipeline(graph, { catalog });
for await (const event of run.events) {
  if (event.phase === 'flow-completed') console.log(`${event.flow}: ${event.counts.rowsWritten} rows written to ${event.target}`);
}
const result = await run.result;
if (result.status !== 'completed') throw new Error(`the run ${result.status}: ${result.error?.message ?? ''}`);

const lake = await openCatalog({ catalog });
try {
  const orders = lake.table('lake.orders');
  const appended = await orders.append(tableFromArrays({ id: BigInt64Array.from([100n]), customer: ['zoe'], amount: Float64Array.from([9.5]) }));
  console.log(`appended ${appended.addedRows} row(s)`);
  const upserted = await orders.upsert({ sql: "SELECT 1::BIGINT AS id, 'ann' AS customer, 42.0::DOUBLE AS amount" }, { keys: ['id'] });
  console.log(`upserted ${upserted.addedRows} row(s)`);
  const rows = await orders.read();
  console.log(`lake.orders: ${rows.numRows} rows`);
  console.log(JSON.stringify(rows.toArray().map((row) => row.toJSON()), (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value)));
} finally {
  await lake.close();
}
