/**
 * bench/kafka-cdc: 1M Debezium change events (creates, updates, deletes with tombstones over 100k
 * keys, changes.ts) produced to a 6-partition topic on the test stack's Kafka, then applied as an
 * SCD type 2 history table by `thund run` (the built CLI, embedded catalog, a `format: kafka`
 * source with `value_format: debezium`, `apply_changes` with `stored_as_scd_type: 2`, read
 * available-now in micro-batches of `thund.stream.max-rows-per-batch` records), beside Spark
 * Structured Streaming doing the same (Kafka source, trigger available-now with as many records
 * per micro-batch, foreachBatch + MERGE INTO an Iceberg table: spark_kafka_cdc_scd2.py).
 * Both tables are checked against a DuckDB reference computed from the produced events.
 * Needs `npm run build` and the stack env file sourced.
 *
 *   npx tsx bench/kafka-cdc/run.ts [--records 1000000] [--keys 100000] [--batch-records 100000] [--no-spark] [--spark-driver-memory 2g]
 *
 * `--records` counts change events; Kafka holds one more record (a tombstone) per delete.
 * Thund's time is the `thund run` process from start to exit (node start and catalog open
 * included); Spark's is its query from start to end (JVM start and session creation excluded,
 * printed apart). Peak RSS is that of each process tree (sampled every 100 ms); CPU s is the CPU
 * time of that tree (user + system, all threads), start-up included (for Spark also the table's
 * export after the query): on a machine shared with other work it says more than wall time.
 * Main thread CPU s is that of the engine's own process's main thread: thund's JavaScript thread
 * (the Kafka consumer's worker and DuckDB run on others); for Spark, the python driver script's.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { EoKafka, unique } from '../../test/integration/kafka-eo-support/eo-stack.js';
import { prepareSparkPipelines } from '../../test/stack/spark-pipelines.js';
import { execSampled, sampleProcessTreeRss } from '../kafka/process-tree-rss.js';
import { eventsTable, produceChanges, REFERENCE_HISTORY } from './changes.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    keys: { type: 'string', default: '100000' },
    'batch-records': { type: 'string', default: '100000' },
    'no-spark': { type: 'boolean' },
    'spark-driver-memory': { type: 'string', default: '2g' },
    keep: { type: 'boolean' },
  },
});
const events = Number(values.records);
const keys = Math.min(Number(values.keys), events);
const batchRecords = Number(values['batch-records']);
const PARTITIONS = 6;
const CLI = join(import.meta.dirname, '../../dist/bin/thund.js');
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);

interface EngineResult {
  readonly engine: string;
  readonly records: number;
  readonly seconds: number;
  readonly peakRssMiB: number;
  /** CPU seconds of the whole process tree (user + system), start-up included. */
  readonly cpuSeconds: number;
  /** CPU seconds of the engine process's main thread (thund's JavaScript thread; Spark's python driver script). */
  readonly mainCpuSeconds: number;
}

const work = mkdtempSync(join(tmpdir(), 'thund-bench-kafka-cdc-'));
const kafka = new EoKafka();
const topic = unique('bench-kafka-cdc');
const session = await DuckDbSession.open({ threads: 2 });
const results: EngineResult[] = [];
let failed = false;
try {
  await kafka.createTopic(topic, PARTITIONS);
  const producedAt = performance.now();
  const csv = join(work, 'events.csv');
  const produced = await produceChanges({ producer: await kafka.producer(), topic, partitions: PARTITIONS, events, keys, csv });
  console.log(
    `produced ${produced.events} change events (${produced.creates} c, ${produced.updates} u, ${produced.deletes} d over ${keys} keys) ` +
      `+ ${produced.records - produced.events} tombstones = ${produced.records} records in ${((performance.now() - producedAt) / 1000).toFixed(1)} s`,
  );
  await session.run(eventsTable(quoteLiteral(csv)));
  await session.run(REFERENCE_HISTORY);
  const [reference] = await session.queryJson(`SELECT count(*)::BIGINT AS n, count_if(__END_AT IS NULL)::BIGINT AS c FROM reference`);
  console.log(`reference (DuckDB over the events): ${String(reference?.['n'])} versions, ${String(reference?.['c'])} current`);

  const thund = await runThund(produced.records);
  results.push(thund.result);
  failed = !(await check('thund', thund.rowsSql)) || failed;
  await thund.release();

  if (values['no-spark'] !== true) {
    const spark = await runSpark(produced.records);
    results.push(spark.result);
    failed = !(await check('spark', spark.rowsSql)) || failed;
  }
  printTable(results);
} finally {
  session.close();
  await kafka.close();
  if (values.keep === true) console.log(`kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error('FAILED: a table differs from the reference (see above)');
  process.exitCode = 1;
}

/** `thund run` on a pipeline reading the topic into lake table bench.customers_history. */
async function runThund(records: number): Promise<{ result: EngineResult; rowsSql: string; release: () => Promise<void> }> {
  const dir = join(work, 'thund');
  const pipeline = join(dir, 'pipeline.yaml');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    pipeline,
    `pipeline: bench_kafka_cdc
catalog: { type: sql, warehouse: warehouse }
sources:
  changes:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${kafka.brokers}"
    value_format: debezium
tables:
  bench.customers_history:
    kind: streaming_table
    properties: { write.update.mode: merge-on-read, thund.stream.max-rows-per-batch: "${batchRecords}" }
    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: 2 }
`,
  );
  const startedAt = performance.now();
  const startedAtMs = Date.now();
  const child = spawn(process.execPath, [CLI, 'run', pipeline], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const sampler = sampleProcessTreeRss(child.pid as number);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - startedAt) / 1000;
  sampler.stop();
  // Most threads are named "node": each is shown with its id (the main thread's is the process id).
  const threads = [...sampler.threadCpuSeconds()].filter(([, s]) => s >= 0.5).sort((a, b) => b[1] - a[1]);
  console.log(`thund: cpu by thread: ${threads.map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}`);
  const tail = out.trim().split('\n').slice(-15).join('\n');
  if (code !== 0) throw new Error(`thund run exited ${code}:\n${tail}`);
  console.log(`thund run output (last lines):\n${tail.replace(/^/gm, '  ')}`);
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  const table = await opened.catalog.loadTable({ namespace: ['bench'], name: 'customers_history' });
  const rows = await openTableRows({ session, io: table.io, metadata: table.metadata });
  // Each micro-batch commits one snapshot: the gaps between commits are the batches' times (the first from the process start).
  const commits = table.metadata.snapshots.map((snapshot) => Number(snapshot.timestampMs));
  const gaps = commits.map((at, i) => (at - (i === 0 ? startedAtMs : (commits[i - 1] as number))) / 1000);
  console.log(`thund: ${commits.length} snapshots; seconds per micro-batch (commit to commit, the first from the process start): ${gaps.map((g) => g.toFixed(1)).join(' ')}`);
  return {
    result: { engine: 'thund run', records, seconds, peakRssMiB: sampler.peakMiB(), cpuSeconds: sampler.cpuSeconds(), mainCpuSeconds: sampler.mainThreadCpuSeconds() },
    rowsSql: rows.sql,
    release: async () => {
      await rows.release();
      await opened.close();
    },
  };
}

interface SparkOutput {
  readonly rows: number;
  readonly current_rows: number;
  readonly query_seconds: number;
  readonly session_seconds: number;
  readonly batches: number;
  readonly input_rows: number;
  readonly duration_ms: Readonly<Record<string, number>>;
  readonly batch_ms: readonly number[];
}

/** spark_kafka_cdc_scd2.py on the same topic, with the SDP test env's pyspark 4.1 and jars. */
async function runSpark(records: number): Promise<{ result: EngineResult; rowsSql: string }> {
  const { python, jars } = await prepareSparkPipelines();
  const warehouse = join(work, 'spark');
  const exported = join(work, 'spark-export');
  const args = [
    join(import.meta.dirname, 'spark_kafka_cdc_scd2.py'),
    ...['--jars', jars.join(','), '--warehouse', warehouse, '--export', exported, '--brokers', kafka.brokers, '--topic', topic],
    ...['--driver-memory', values['spark-driver-memory'] as string, '--max-offsets-per-trigger', String(batchRecords)],
  ];
  const { stdout, sampler } = await execSampled(python, args, { ...process.env, SPARK_LOCAL_IP: '127.0.0.1' });
  const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as SparkOutput;
  console.log(
    `spark: ${out.batches} micro-batches, ${out.input_rows} input rows, session start ${out.session_seconds.toFixed(1)} s (not counted); ` +
      `durationMs ${Object.entries(out.duration_ms).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}`,
  );
  console.log(`spark: seconds per micro-batch (triggerExecution): ${out.batch_ms.map((ms) => (ms / 1000).toFixed(1)).join(' ')}`);
  if (out.input_rows !== records) console.error(`spark read ${out.input_rows} records, expected ${records}`);
  return {
    result: { engine: 'spark foreachBatch MERGE', records: out.input_rows, seconds: out.query_seconds, peakRssMiB: sampler.peakMiB(), cpuSeconds: sampler.cpuSeconds(), mainCpuSeconds: sampler.mainThreadCpuSeconds() },
    rowsSql: `SELECT * FROM read_parquet(${quoteLiteral(join(exported, '*.parquet'))})`,
  };
}

/** Compares an engine's table (a DuckDB query) with the reference; prints the counts. */
async function check(engine: string, rowsSql: string): Promise<boolean> {
  const columns = 'id, name, email, tier, amount, updated_ms, __START_AT, __END_AT';
  await session.run(`CREATE OR REPLACE TABLE landed AS SELECT ${columns} FROM (${rowsSql})`);
  const [c] = await session.queryJson(
    `SELECT (SELECT count(*) FROM landed)::BIGINT AS n, (SELECT count_if(__END_AT IS NULL) FROM landed)::BIGINT AS current,
            (SELECT count(*) FROM reference)::BIGINT AS ref_n, (SELECT count_if(__END_AT IS NULL) FROM reference)::BIGINT AS ref_current,
            (SELECT count(*) FROM (SELECT * FROM landed EXCEPT ALL SELECT * FROM reference))::BIGINT AS only_landed,
            (SELECT count(*) FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM landed))::BIGINT AS only_reference`,
  );
  const ok = c?.['n'] === c?.['ref_n'] && c?.['current'] === c?.['ref_current'] && Number(c?.['only_landed']) === 0 && Number(c?.['only_reference']) === 0;
  console.log(
    `${engine} check: ${String(c?.['n'])} versions (reference ${String(c?.['ref_n'])}), ${String(c?.['current'])} current (reference ${String(c?.['ref_current'])}); ` +
      `rows only in the table ${String(c?.['only_landed'])}, only in the reference ${String(c?.['only_reference'])}: ${ok ? 'OK' : 'WRONG'}`,
  );
  if (!ok) {
    const sample = await session.queryJson(`(SELECT 'table' AS side, * FROM (SELECT * FROM landed EXCEPT ALL SELECT * FROM reference) LIMIT 5)
      UNION ALL (SELECT 'reference', * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM landed) LIMIT 5)`);
    for (const row of sample) console.error(`  ${JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
  return ok;
}

function printTable(rows: readonly EngineResult[]): void {
  const header = ['engine', 'records', 'seconds', 'records/s', 'peak RSS MiB', 'CPU s', 'main thread CPU s'];
  const cells = rows.map((r) => [
    r.engine,
    String(r.records),
    r.seconds.toFixed(1),
    String(Math.round(r.records / r.seconds)),
    r.peakRssMiB.toFixed(0),
    r.cpuSeconds.toFixed(1),
    r.mainCpuSeconds.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]): string => c.map((v, i) => (i === 0 ? v.padEnd(widths[i] as number) : v.padStart(widths[i] as number))).join('  ');
  console.log(`\n${line(header)}\n${cells.map(line).join('\n')}`);
  const [thund, spark] = rows;
  if (thund !== undefined && spark !== undefined) {
    console.log(`thund/spark: ${(thund.records / thund.seconds / (spark.records / spark.seconds)).toFixed(2)}x records/s, ${(thund.peakRssMiB / spark.peakRssMiB).toFixed(2)}x peak RSS, ${(thund.cpuSeconds / spark.cpuSeconds).toFixed(2)}x CPU time`);
  }
}
