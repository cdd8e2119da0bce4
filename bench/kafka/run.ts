/**
 * bench/kafka: 1M records (~200 bytes; JSON objects, or with --format avro the same fields as
 * Confluent-wire Avro whose writer schema a loopback registry started here serves) produced to a 6-partition topic on the test stack's
 * Kafka, then landed by `thund serve` (the built CLI, embedded catalog) into an Iceberg table.
 * Prints records/s (from the service's first 'partitions assigned' line, when its consumer group
 * has given it the partitions and its first read starts, to the commit holding the last record, both
 * by the times in the service's log lines) and
 * the service's peak RSS (VmHWM), then the same for Spark Structured Streaming (Kafka source, Iceberg
 * sink, trigger available-now) on the same topic. Needs `npm run build` and the stack env file sourced.
 *
 *   npx tsx bench/kafka/run.ts [--format json|avro] [--records 1000000] [--commit-records 50000] [--no-spark]
 *     [--duckdb-memory-limit 256MB] [--cpu-prof-dir /tmp/prof] [--node-options "--max-semi-space-size=4"]
 *
 * Besides wall-clock figures it prints the service's CPU time (all threads, and the main thread
 * alone): on a machine shared with other work they tell what two free cores would allow. The
 * per-thread line shows where the rest goes (the Kafka consumer's worker thread, DuckDB, V8's
 * GC helpers). `--node-options` passes flags to the service's node. Both tables must hold the
 * same rows: a digest of each (bench-values.ts) is checked against what was produced.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { embeddedPipelineFile, EoKafka, unique, waitForPositions } from '../../test/integration/kafka-eo-support/eo-stack.js';
import { produceRange } from '../../test/integration/kafka-eo-support/produce.js';
import { readTable } from '../../test/integration/kafka-eo-support/landed-rows.js';
import { ServeProcess } from '../../test/integration/kafka-eo-support/serve-process.js';
import { AVRO_VALUE_SCHEMA, benchValues, DIGEST_SELECT, digestProblems, expectedDigest, type BenchFormat } from './bench-values.js';
import { runSparkReference } from './spark-reference.js';

const { values } = parseArgs({
  options: { format: { type: 'string', default: 'json' }, records: { type: 'string', default: '1000000' }, 'commit-records': { type: 'string', default: '50000' }, 'cpu-prof-dir': { type: 'string' }, 'duckdb-memory-limit': { type: 'string' }, 'no-spark': { type: 'boolean' }, 'node-options': { type: 'string' } },
});
const records = Number(values.records);
if (values.format !== 'json' && values.format !== 'avro') throw new Error(`--format is json or avro, not ${values.format}`);
const format: BenchFormat = values.format;
const produced = await benchValues(format);
const kafka = new EoKafka();
const topic = unique('bench-kafka');
const table = { namespace: ['bench'], name: 'events' };
const pipeline = embeddedPipelineFile();

await kafka.createTopic(topic, 6);
const producedAt = performance.now();
await produceRange(await kafka.producer(), topic, 6, 0, records, 10_000, produced.valueOf);
console.log(`produced ${records} ${format} records in ${((performance.now() - producedAt) / 1000).toFixed(1)} s`);

const extraEnv: Record<string, string> = {};
if (produced.registryUrl !== undefined) extraEnv['THUND_KAFKA_SCHEMA_REGISTRY_URL'] = produced.registryUrl;
if (values['duckdb-memory-limit'] !== undefined) extraEnv['THUND_SERVE_DUCKDB_MEMORY_LIMIT'] = values['duckdb-memory-limit'];
// A CPU profile and memory samples of the service (bench/kafka/profile-service.mjs) land in this folder.
if (values['node-options'] !== undefined) extraEnv['NODE_OPTIONS'] = values['node-options'];
if (values['cpu-prof-dir'] !== undefined) Object.assign(extraEnv, { NODE_OPTIONS: `--import=${join(import.meta.dirname, 'profile-service.mjs')}`, THUND_BENCH_PROFILE_DIR: values['cpu-prof-dir'] });
const serve = await ServeProcess.start({ valueFormat: format, pipeline, brokers: kafka.brokers, topic, group: unique('g'), table: 'bench.events', commitRecords: Number(values['commit-records']), commitIntervalMs: 5_000, duckdbThreads: 'default', extraEnv });
let peakKiB = 0;
const sampleRss = (): void => {
  try {
    const status = readFileSync(`/proc/${serve.pid}/status`, 'utf8');
    peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  } catch {
    // the process is gone
  }
};
/** CPU seconds (user + system) of the whole service and of its main (JavaScript) thread. */
const cpuSeconds = (): { total: number; main: number } => {
  const ticks = (file: string): number => {
    const fields = readFileSync(file, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  return { total: ticks(`/proc/${serve.pid}/stat`), main: ticks(`/proc/${serve.pid}/task/${serve.pid}/stat`) };
};
/** CPU seconds per thread name (DuckDB workers, V8 GC helpers, libuv pool…), to see where the time outside the main thread goes. */
const cpuByThread = (): Map<string, number> => {
  const byName = new Map<string, number>();
  for (const task of readdirSync(`/proc/${serve.pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${serve.pid}/task/${task}/comm`, 'utf8').trim();
      const fields = readFileSync(`/proc/${serve.pid}/task/${task}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      byName.set(`${name}:${task}`, (byName.get(`${name}:${task}`) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended
    }
  }
  return byName;
};
// Readiness means the first trigger is done, which here is most of the work: timing starts at
// the line the service logs once its group has assigned it the partitions, before its first read.
await waitForLog(serve, 'partitions assigned', 60_000);
const cpuAtStart = cpuSeconds();
const threadsAtStart = cpuByThread();
await waitForPositions(pipeline, table, records, 1_800_000, sampleRss);
// From the service's own log times (milliseconds), not this script's catalog polls (every 500 ms).
const seconds = ((await lastCommitTime(serve, records)) - logTime(serve, 'partitions assigned')) / 1000;
sampleRss();
const cpuAtEnd = cpuSeconds();
const threadsAtEnd = cpuByThread();
serve.kill('SIGTERM');
const exit = await serve.exited;
const landed = await readTable(pipeline, table, DIGEST_SELECT);
const expected = expectedDigest(records);
console.log(`thund serve: ${records} records in ${seconds.toFixed(1)} s = ${Math.round(records / seconds)} records/s; peak RSS ${(peakKiB / 1024).toFixed(0)} MiB; exit ${exit.code}`);
console.log(`table rows ${String(landed.rows[0]?.['n'])}, distinct keys ${String(landed.rows[0]?.['keys'])}, batches ${serve.committedBatches()}`);
const problems = digestProblems('thund table', landed.rows[0], expected);
const cpu = { total: cpuAtEnd.total - cpuAtStart.total, main: cpuAtEnd.main - cpuAtStart.main };
// On a loaded machine wall time says little; CPU time bounds what 2 free cores would do: the
// main thread cannot go faster than its own CPU time, and the process not faster than half its total.
const bound = records / Math.max(cpu.main, cpu.total / 2);
console.log(`cpu: ${cpu.total.toFixed(1)} s in all threads, ${cpu.main.toFixed(1)} s on the main thread; on 2 free cores at most ${Math.round(bound)} records/s`);
// The issue's per-core goal: value bytes landed per CPU second the service used (all threads).
let valueBytes = 0;
for (let i = 0; i < records; i++) {
  const value = produced.valueOf(i);
  valueBytes += typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}
console.log(`value bytes: ${(valueBytes / 1048576).toFixed(1)} MiB, ${(valueBytes / 1048576 / cpu.total).toFixed(1)} MiB/s per core used (goal >= 10)`);
const threadCpu = [...threadsAtEnd].map(([name, s]) => [name, s - (threadsAtStart.get(name) ?? 0)] as const).filter(([, s]) => s >= 0.05).sort((a, b) => b[1] - a[1]);
console.log(`cpu by thread: ${threadCpu.map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}`);
// The reference: Spark Structured Streaming (Kafka source, Iceberg sink, available-now) on the same topic.
if (values['no-spark'] !== true) {
  const spark = await runSparkReference({ brokers: kafka.brokers, topic, digestSelect: DIGEST_SELECT, ...(format === 'avro' ? { avroSchema: JSON.stringify(AVRO_VALUE_SCHEMA) } : {}) });
  problems.push(...digestProblems('spark table', spark.digest, expected));
  console.log(
    `spark structured streaming: ${spark.records} records in ${spark.seconds.toFixed(1)} s = ${Math.round(spark.recordsPerSecond)} records/s; ` +
      `peak RSS ${spark.peakRssMiB.toFixed(0)} MiB (startup ${spark.startupSeconds.toFixed(1)} s); thund/spark ${(records / seconds / spark.recordsPerSecond).toFixed(2)}x`,
  );
}
await kafka.close();
await produced.stop();
if (problems.length > 0) throw new Error(`the landed tables do not hold what was produced:\n${problems.join('\n')}`);

async function waitForLog(service: ServeProcess, message: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!service.logs.some((line) => line['msg'] === message)) {
    if (Date.now() > deadline) throw new Error(`no "${message}" from thund serve after ${timeoutMs} ms; stderr: ${service.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The time of the service's first log line with this message. */
function logTime(service: ServeProcess, message: string): number {
  const line = service.logs.find((logged) => logged['msg'] === message);
  if (line === undefined) throw new Error(`thund serve did not log "${message}"`);
  return Date.parse(String(line['time']));
}

/** The log time of the commit that brought the rows read to `records` (its log line may follow the catalog by a moment). */
async function lastCommitTime(service: ServeProcess, records: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    let read = 0;
    for (const line of service.logs) {
      if (line['msg'] !== 'batch committed') continue;
      read += Number(line['rowsRead'] ?? 0);
      if (read >= records) return Date.parse(String(line['time']));
    }
    if (Date.now() > deadline) throw new Error(`thund serve logged commits of ${read} rows read, not ${records}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
