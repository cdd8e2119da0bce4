/**
 * bench/cdc: Debezium-style change events applied as SCD type 2 by the native engine's
 * apply-changes operator in micro-batches, beside the same logic as one DuckDB SQL statement over
 * the whole input (the floor), and end to end: the same micro-batches through the apply-changes
 * sink into an Iceberg table (embedded SQLite catalog, local files, merge-on-read, one row-delta
 * snapshot per batch). Prints rows/s for all three and checks that all give the same table.
 * DuckDB runs under --memory-limit, so the peak RSS shows what the work needs rather than what
 * DuckDB keeps cached; tables the bench is done with are dropped. The batches are Parquet files
 * (written once, read by every phase as a file-source pipeline reads its input): as DuckDB
 * tables they took 113 MiB beside the work and spilled under the memory limit. Peak RSS is
 * printed per phase (phase-peaks.ts); the goal's figure is the work's (operator, end to end), the
 * whole run's also counts building the input and checking the tables.
 *
 *   npx tsx bench/cdc/run.ts [--changes 1000000] [--keys 100000] [--batches 10] [--memory-limit 256MB] [--threads N] [--profile]
 *
 * Events: the first `keys` events create each key (op c), then updates (op u) and every 50th a
 * delete (op d) on keys spread by a multiplicative hash; the sequence is source.lsn. One event in
 * a hundred arrives 1.5 batches late, so the operator has to insert it into history.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { createApplyChangesSink } from '../../src/engine/graph/apply-changes-sink.js';
import { ApplyChanges } from '../../src/engine/operators/apply-changes.js';
import type { TableDataset } from '../../src/pipeline/ir/dataset.js';
import type { ApplyChangesFlow } from '../../src/pipeline/ir/flow.js';
import { UNKNOWN_ORIGIN } from '../../src/pipeline/ir/origin.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { PhasePeaks } from './phase-peaks.js';
import { StatementProfile } from './statement-profile.js';

const { values } = parseArgs({
  options: { changes: { type: 'string', default: '1000000' }, keys: { type: 'string', default: '100000' }, batches: { type: 'string', default: '10' }, 'memory-limit': { type: 'string', default: '256MB' }, threads: { type: 'string' }, profile: { type: 'boolean', default: false } },
});
const changes = Number(values.changes);
const keys = Number(values.keys);
const batches = Number(values.batches);
const perBatch = Math.ceil(changes / batches);

const session = await DuckDbSession.open({ memoryLimit: values['memory-limit'], ...(values.threads === undefined ? {} : { threads: Number(values.threads) }) });
const profile = values.profile ? new StatementProfile(session) : undefined;
const image = `{'id': key, 'name': 'name-' || (i % 1000)::VARCHAR, 'amount': (i % 997)::DOUBLE, 'updated_ms': 1700000000000 + i}`;
await session.run(
  `CREATE TABLE events AS
   SELECT op,
          CASE WHEN op = 'c' THEN NULL ELSE {'id': key, 'name': 'before', 'amount': 0::DOUBLE, 'updated_ms': 0::BIGINT} END AS before,
          CASE WHEN op = 'd' THEN NULL ELSE ${image} END AS after,
          {'connector': 'postgresql', 'lsn': i} AS source,
          1700000000000 + i AS ts_ms,
          least(${batches - 1}, (CASE WHEN hash(i) % 100 = 0 THEN i + ${Math.floor(perBatch * 1.5)} ELSE i END) // ${perBatch}) AS batch
   FROM (SELECT range AS i,
                CASE WHEN range < ${keys} THEN range ELSE (range * 7919) % ${keys} END AS key,
                CASE WHEN range < ${keys} THEN 'c' WHEN range % 50 = 0 THEN 'd' ELSE 'u' END AS op
         FROM range(${changes}))`,
);
const [late] = await session.queryJson(`SELECT count(*)::INTEGER AS n FROM events WHERE batch <> least(${batches - 1}, source.lsn // ${perBatch})`);
const inputDir = await mkdtemp(join(tmpdir(), 'thund-bench-cdc-input-'));
const batchFiles = Array.from({ length: batches }, (_, b) => quoteLiteral(join(inputDir, `batch_${b}.parquet`)));
for (const [b, file] of batchFiles.entries()) {
  await session.run(`COPY (SELECT * EXCLUDE (batch) FROM events WHERE batch = ${b}) TO ${file} (FORMAT parquet)`);
  await session.run(`CREATE VIEW batch_${b} AS SELECT * FROM read_parquet(${file})`);
}
await session.run('DROP TABLE events');
const peaks = new PhasePeaks();
peaks.end('input');

const options = { keys: ['id'], sequenceBy: 'source.lsn', format: { kind: 'debezium' as const }, storedAsScdType: 2 as const };
const operator = new ApplyChanges(session, 'bench', options);
const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};
profile?.start('operator');
const started = performance.now();
const operatorCpu = process.cpuUsage();
let ignored = 0;
for (let b = 0; b < batches; b++) {
  const { stats } = await operator.processBatch(`batch_${b}`);
  ignored += stats.ignoredEvents;
}
const operatorSeconds = (performance.now() - started) / 1000;
const operatorCpuSeconds = cpuSeconds(operatorCpu);
peaks.end('operator');

// The floor: the same SCD2 rules (a version opens after nothing, after a delete, or when a value
// changes; it ends at the key's next event) as one statement over all events at once.
profile?.start('floor');
const floorStarted = performance.now();
const floorCpu = process.cpuUsage();
await session.run(
  `CREATE TABLE floor AS
   WITH flat AS (
     SELECT unnest(CASE WHEN op = 'd' THEN before ELSE after END), source.lsn AS seq, CASE WHEN op = 'd' THEN 'delete' ELSE 'upsert' END AS kind
     FROM read_parquet([${batchFiles.join(', ')}])),
   flagged AS (
     SELECT *,
            CASE WHEN kind = 'upsert' AND (lag(kind) OVER w IS NULL OR lag(kind) OVER w = 'delete'
                   OR name IS DISTINCT FROM lag(name) OVER w OR amount IS DISTINCT FROM lag(amount) OVER w
                   OR updated_ms IS DISTINCT FROM lag(updated_ms) OVER w) THEN 1 ELSE 0 END AS opens,
            lead(seq) OVER w AS next_seq
     FROM flat WINDOW w AS (PARTITION BY id ORDER BY seq)),
   numbered AS (SELECT *, sum(opens) OVER (PARTITION BY id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS version FROM flagged)
   SELECT id, arg_max_null(name, seq) AS name, arg_max_null(amount, seq) AS amount, arg_max_null(updated_ms, seq) AS updated_ms,
          min(seq) AS __START_AT, arg_max_null(next_seq, seq) AS __END_AT
   FROM numbered WHERE kind = 'upsert' GROUP BY id, version`,
);
const floorSeconds = (performance.now() - floorStarted) / 1000;
const floorCpuSeconds = cpuSeconds(floorCpu);
peaks.end('floor');

// End to end: the same batches through the apply-changes sink into an Iceberg SCD2 table.
const warehouse = await mkdtemp(join(tmpdir(), 'thund-bench-cdc-'));
const io = new LocalFileIO();
const catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
const flow: ApplyChangesFlow = {
  kind: 'apply-changes',
  name: 'customers_history',
  target: 'lake.customers_history',
  query: { language: 'sql', text: 'SELECT * FROM STREAM(events)', origin: UNKNOWN_ORIGIN },
  outputMode: 'update',
  streaming: {},
  implicit: true,
  origin: UNKNOWN_ORIGIN,
  changes: { keys: ['id'], sequenceBy: 'source.lsn', changeFormat: { kind: 'debezium' }, ignoreNullUpdates: false, storedAsScdType: 2 },
};
const target: TableDataset = {
  kind: 'streaming-table',
  name: flow.target,
  origin: UNKNOWN_ORIGIN,
  expectations: [],
  table: { identifier: { namespace: ['lake'], name: 'customers_history' }, partitioning: [], properties: {} },
};
const sink = await createApplyChangesSink({
  session,
  catalog,
  io,
  graph: { name: 'bench', datasets: [target], flows: [flow] },
  flow,
  target,
  fullRefresh: false,
  summary: { 'thund.flow': flow.name },
  tempDir: warehouse,
  progress: () => undefined,
});
profile?.start('end to end');
const sinkStarted = performance.now();
const sinkCpu = process.cpuUsage();
for (let b = 0; b < batches; b++) await sink.write(`batch_${b}`, { 'thund.checkpoint.customers_history': `batch-${b}` });
const sinkSeconds = (performance.now() - sinkStarted) / 1000;
const sinkCpuSeconds = cpuSeconds(sinkCpu);
peaks.end('end to end');
profile?.start('');
for (let b = 0; b < batches; b++) await session.run(`DROP VIEW batch_${b}`);
await rm(inputDir, { recursive: true, force: true });
const { metadata } = await catalog.loadTable({ namespace: ['lake'], name: 'customers_history' });
const landed = await openTableRows({ session, io, metadata });
await session.run(`CREATE TABLE landed AS ${landed.sql}`);
await landed.release();
await catalog.close();
await rm(warehouse, { recursive: true, force: true });

const [check] = await session.queryJson(
  `SELECT (SELECT count(*) FROM bench__state)::INTEGER AS operator_rows, (SELECT count(*) FROM floor)::INTEGER AS floor_rows,
          (SELECT count(*) FROM (SELECT * FROM bench__state EXCEPT SELECT * FROM floor))::INTEGER AS only_operator,
          (SELECT count(*) FROM (SELECT * FROM floor EXCEPT SELECT * FROM bench__state))::INTEGER AS only_floor,
          (SELECT count(*) FROM bench__state WHERE __END_AT IS NULL)::INTEGER AS current_rows,
          (SELECT count(*) FROM landed)::INTEGER AS sink_rows,
          (SELECT count(*) FROM (SELECT * FROM landed EXCEPT SELECT * FROM floor))::INTEGER AS only_sink,
          (SELECT count(*) FROM (SELECT * FROM floor EXCEPT SELECT * FROM landed))::INTEGER AS floor_not_landed`,
);
session.close();
peaks.end('check');

const rate = (seconds: number): string => `${Math.round(changes / seconds).toLocaleString('en-US')} rows/s`;
console.log(`changes: ${changes.toLocaleString('en-US')} over ${keys.toLocaleString('en-US')} keys, ${batches} batches; ${late?.['n']} events arrive in a later batch; ${ignored} ignored as redelivered`);
const cpu = (seconds: number): string => `${seconds.toFixed(2)} CPU s`;
console.log(`operator (SCD2, ${batches} micro-batches): ${operatorSeconds.toFixed(2)} s, ${rate(operatorSeconds)}; ${cpu(operatorCpuSeconds)}`);
console.log(`floor (one DuckDB statement):          ${floorSeconds.toFixed(2)} s, ${rate(floorSeconds)}; ${cpu(floorCpuSeconds)}`);
console.log(`end to end (sink → Iceberg, ${batches} snapshots): ${sinkSeconds.toFixed(2)} s, ${rate(sinkSeconds)}; ${cpu(sinkCpuSeconds)}`);
console.log(`ratio operator/floor: ${(floorSeconds / operatorSeconds).toFixed(2)} wall, ${(floorCpuSeconds / operatorCpuSeconds).toFixed(2)} CPU; end to end/floor: ${(floorSeconds / sinkSeconds).toFixed(2)} wall, ${(floorCpuSeconds / sinkCpuSeconds).toFixed(2)} CPU`);
console.log(`result rows: operator ${check?.['operator_rows']}, floor ${check?.['floor_rows']}, current ${check?.['current_rows']}, Iceberg ${check?.['sink_rows']}; differing: ${check?.['only_operator']} / ${check?.['only_floor']}, Iceberg ${check?.['only_sink']} / ${check?.['floor_not_landed']}`);
console.log(`peak RSS: the work (operator, end to end) ${peaks.peakOf(['operator', 'end to end'])} MiB; whole run ${peaks.peakOf(['input', 'operator', 'floor', 'end to end', 'check'])} MiB (per phase: ${peaks.report()})`);
if (profile !== undefined) console.log(profile.report());
if (check?.['only_operator'] !== 0 || check?.['only_floor'] !== 0 || check?.['only_sink'] !== 0 || check?.['floor_not_landed'] !== 0) {
  console.error('operator, floor and Iceberg table disagree');
  process.exitCode = 1;
}
