/**
 * bench/append: 5M rows of Parquet appended to an Iceberg table by the native backend, beside a raw
 * DuckDB `COPY … TO parquet` of the same rows in the same process. Prints rows/s for both, the
 * ratio (goal >= 0.7) and peak RSS.
 *
 *   npm run bench:append [-- --rows 5000000]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { parquetSourceConnector } from '../../connectors/parquet/parquet-source.js';
import { NativeBackend } from '../../src/backend/native/native-backend.js';
import { duckDbSqlParser } from '../../src/duckdb/sql-parser.js';
import type { FlowRunResult } from '../../src/engine/run-flow.js';
import { inferDependencies } from '../../src/pipeline/infer-dependencies.js';
import { loadPipelineDefinition } from '../../src/pipeline/definition-file.js';
import { openEmbeddedCatalog } from '../../src/app/embedded-catalog.js';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '5000000' } } });
const rows = Number(values.rows);
const work = await mkdtemp(join(tmpdir(), 'thund-bench-append-'));
const input = join(work, 'input.parquet');

const session = await DuckDbSession.open();
await session.run(
  `COPY (SELECT range AS order_id,
                CASE WHEN range % 17 = 0 THEN NULL ELSE 'customer-' || (range % 100000) END AS customer,
                ((range * 7919) % 1000000) / 100.0 :: DECIMAL(12,2) AS amount,
                TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(range) AS ordered_at,
                (range % 3 = 0) AS priority
         FROM range(${rows}))
   TO ${quoteLiteral(input)} (FORMAT parquet)`,
);

async function timeReferenceCopy(round: number): Promise<number> {
  const out = join(work, `reference-${round}.parquet`);
  const start = performance.now();
  await session.run(`COPY (SELECT * FROM read_parquet(${quoteLiteral(input)})) TO ${quoteLiteral(out)} (FORMAT parquet, COMPRESSION zstd)`);
  return (performance.now() - start) / 1000;
}

const specPath = join(work, 'pipeline.yaml');
await writeFile(
  specPath,
  `pipeline: bench-append
sources:
  orders:
    format: parquet
    path: input.parquet
tables:
  bench.orders:
    mode: append
flows:
  load_orders:
    target: bench.orders
    sql: SELECT * FROM orders
`,
);
const loaded = await loadPipelineDefinition(specPath);
if (!loaded.ok) throw new Error(`bench pipeline is invalid: ${loaded.problems.map((p) => p.message).join('; ')}`);
const { graph } = await inferDependencies(loaded.definition.graph, duckDbSqlParser(session));
const { catalog, io } = openEmbeddedCatalog({ warehouse: join(work, 'warehouse') });
async function timeThundAppend(): Promise<{ seconds: number; result: FlowRunResult | undefined }> {
  let result: FlowRunResult | undefined;
  const backend = new NativeBackend({ catalog, io, sources: parquetSourceConnector, onWrite: (_flow, written) => (result = written) });
  const start = performance.now();
  // Every round appends the same input again: a full refresh runs the flow although its input did not change.
  const run = await backend.run(graph, { fullRefresh: true }).result;
  if (run.status !== 'completed') throw new Error(`bench run failed: ${run.error?.message ?? run.status}`);
  return { seconds: (performance.now() - start) / 1000, result };
}

// Alternate the two, three rounds each, and keep the best of each: neither gets a warmer cache.
let referenceSeconds = Infinity;
let thundSeconds = Infinity;
let result: Awaited<ReturnType<typeof timeThundAppend>>['result'];
for (let round = 0; round < 3; round += 1) {
  referenceSeconds = Math.min(referenceSeconds, await timeReferenceCopy(round));
  const thund = await timeThundAppend();
  thundSeconds = Math.min(thundSeconds, thund.seconds);
  result = thund.result;
}
session.close();
await catalog.close();

const referenceRate = rows / referenceSeconds;
const thundRate = rows / thundSeconds;
const format = (n: number): string => Math.round(n).toLocaleString('en-US');
console.log(`rows                      ${format(rows)} per run (best of 3 alternating runs each; the table ends with ${result?.snapshot.summary['total-records']} rows)`);
console.log(`raw DuckDB COPY           ${referenceSeconds.toFixed(2)} s  ${format(referenceRate)} rows/s`);
console.log(`thund append (Iceberg)    ${thundSeconds.toFixed(2)} s  ${format(thundRate)} rows/s  (${result?.dataFiles.length ?? 0} data files, snapshot ${result?.snapshot.snapshotId})`);
console.log(`ratio thund / raw COPY    ${(thundRate / referenceRate).toFixed(2)}  (goal >= 0.70)`);
console.log(`peak RSS                  ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
await rm(work, { recursive: true, force: true });
