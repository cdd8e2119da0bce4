/**
 * bench/kafka-latency (issue 19): end-to-end latency of `thund serve` in steady state, from a
 * record's produce time to the moment a reader polling the catalog first sees a snapshot holding
 * it. A fresh 6-partition topic is served by the built CLI on an embedded catalog (the pipeline
 * of bench/kafka: JSON values of ~200 bytes, two DuckDB threads) at the service's default commit
 * interval and batch size unless given; paced producers (child processes, Kafka's Java client by
 * default: kafkajs needs about as much CPU per record as the service) offer `--rate` records/s
 * for `--seconds`, each value carrying its send time in `produced_ms`; the table's metadata is
 * polled every `--poll-ms`. Afterwards the rows each append snapshot added are read
 * back, every record checked to have landed exactly once, and latency p50/p90/p99/max printed
 * (to first seen, and to the snapshot's timestamp-ms) against the goal: commit interval + 5 s.
 * Also: the achieved produce rate, the service's peak RSS and CPU, the lag when the producers
 * stopped, the load average, the service's time waiting for a CPU, and its pace from its log. Needs `npm run build` and the
 * stack env file sourced.
 *
 *   npx tsx bench/kafka-latency/run.ts [--rate 50000] [--seconds 300] [--commit-interval-ms N]
 *     [--commit-records N] [--producer java|kafkajs] [--producers 1] [--poll-ms 200]
 */
import { rm } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { serveSettings } from '../../src/app/serve/serve-config.js';
import { embeddedPipelineFile, EoKafka, unique } from '../../test/integration/kafka-eo-support/eo-stack.js';
import { ServeProcess, sleep } from '../../test/integration/kafka-eo-support/serve-process.js';
import { sampleProcessTreeRss } from '../kafka/process-tree-rss.js';
import { commitTimeline, describeTimeline } from './commit-timeline.js';
import { PacedProducers } from './producers.js';
import { recordLatency, type Percentiles } from './record-latency.js';
import { schedTotals } from './sched-stat.js';
import { SnapshotWatch } from './snapshot-watch.js';

// The service's own defaults (serve-config.ts), used unless a flag says otherwise.
const defaults = serveSettings({ 'kafka-brokers': 'localhost:9092', topic: 't', group: 'g', table: 'n.t' }, {});
const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '50000' },
    seconds: { type: 'string', default: '300' },
    'commit-interval-ms': { type: 'string', default: String(defaults.commitIntervalMs) },
    'commit-records': { type: 'string', default: String(defaults.commitRecords) },
    producer: { type: 'string', default: 'java' },
    producers: { type: 'string', default: '1' },
    'poll-ms': { type: 'string', default: '200' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const commitIntervalMs = Number(values['commit-interval-ms']);
const commitRecords = Number(values['commit-records']);
const goalMs = commitIntervalMs + 5_000;
const PARTITIONS = 6;

const kafka = new EoKafka();
const topic = unique('bench-latency');
const table = { namespace: ['bench'], name: 'events' };
const pipeline = embeddedPipelineFile();
await kafka.createTopic(topic, PARTITIONS);
const serve = await ServeProcess.start({ pipeline, brokers: kafka.brokers, topic, group: unique('g'), table: 'bench.events', commitRecords, commitIntervalMs, duckdbThreads: 'default' });
const service = sampleProcessTreeRss(serve.pid as number, 500);
await serve.waitReady(120_000);
const watch = await SnapshotWatch.start(pipeline, table, Number(values['poll-ms']));
const loads: number[] = [];
const loadTimer = setInterval(() => loads.push(loadavg()[0] ?? 0), 5_000);
console.log(`commit interval ${commitIntervalMs} ms, ${commitRecords} records per batch at most; offering ${rate} records/s for ${seconds} s from ${values.producers} ${values.producer} producer(s); load average ${loadavg()[0]?.toFixed(1)}`);

const cpuAtStart = service.cpuSeconds();
const schedAtStart = schedTotals(serve.pid as number);
const startedAt = Date.now();
const producers = await PacedProducers.start({ brokers: kafka.brokers, topic, partitions: PARTITIONS, rate, seconds, count: Number(values.producers), kind: values.producer === 'kafkajs' ? 'kafkajs' : 'java' });
const progress = setInterval(() => {
  const elapsed = (Date.now() - startedAt) / 1000;
  console.log(`  ${elapsed.toFixed(0)} s: produced ${producers.sent()} (as of the producers' last report), visible ${watch.committedRecords}, service RSS peak ${service.peakMiB().toFixed(0)} MiB, cpu ${(service.cpuSeconds() - cpuAtStart).toFixed(0)} s, load ${loadavg()[0]?.toFixed(1)}`);
}, 30_000);
const produced = await producers.done.catch((error: unknown) => {
  serve.kill('SIGTERM');
  throw error;
});
clearInterval(progress);
const producedAt = Date.now();
const lagAtEnd = BigInt(produced.records) - watch.committedRecords;
while (watch.committedRecords < BigInt(produced.records)) {
  if (Date.now() - producedAt > 600_000) throw new Error(`only ${watch.committedRecords} of ${produced.records} records visible 10 min after the producers stopped`);
  await sleep(100);
}
const drainedAt = Date.now();
const serviceCpu = service.cpuSeconds() - cpuAtStart;
const schedAtEnd = schedTotals(serve.pid as number);
service.stop();
clearInterval(loadTimer);
serve.kill('SIGTERM');
const exit = await serve.exited;
await watch.stop();

const latency = await recordLatency(pipeline, table, watch.seen);
// Five minutes at 50k/s leave some 3.5 GB in the broker and 150 MB of table: neither is kept.
await kafka.deleteTopic(topic);
await kafka.close();
await rm(dirname(pipeline), { recursive: true, force: true });
const wall = (drainedAt - startedAt) / 1000;
const ms = (p: Percentiles): string => `p50 ${fmt(p.p50)}, p90 ${fmt(p.p90)}, p99 ${fmt(p.p99)}, max ${fmt(p.max)}`;
console.log(`produced ${produced.records} records in ${produced.seconds.toFixed(1)} s = ${Math.round(produced.records / produced.seconds)} records/s (offered ${rate}; slowest 10 s ${Math.round(produced.slowestTenSecondsRate)} records/s); producers' cpu ${produced.cpuSeconds.toFixed(0)} s`);
console.log(`landed ${latency.rows} rows (${latency.distinctOffsets} distinct offsets, ${latency.distinctIds} distinct ids) in ${latency.appendSnapshots} append snapshots, ${latency.dataFiles} data files; exactly once: ${latency.rows === produced.records && latency.distinctOffsets === produced.records && latency.distinctIds === produced.records ? 'yes' : 'NO'}`);
console.log(`latency produce → first seen by a reader polling every ${values['poll-ms']} ms (largest poll gap ${watch.maxPollGapMs} ms): ${ms(latency.seen)}`);
console.log(`latency produce → snapshot timestamp-ms: ${ms(latency.committed)}`);
console.log(`goal p99 ≤ commit interval + 5 s = ${fmt(goalMs)}: ${latency.seen.p99 <= goalMs ? 'met' : 'MISSED'}`);
console.log(`lag when the producers stopped: ${lagAtEnd} records (${(Number(lagAtEnd) / rate).toFixed(1)} s of input); all visible ${((drainedAt - producedAt) / 1000).toFixed(1)} s later`);
console.log(`throughput: ${Math.round(latency.rows / wall)} records/s landed over ${wall.toFixed(0)} s (producers' start to the last record visible)`);
console.log(`thund serve: peak RSS ${service.peakMiB().toFixed(0)} MiB, cpu ${serviceCpu.toFixed(1)} s (${((serviceCpu / wall) * 100).toFixed(0)}% of one core, ${((serviceCpu / latency.rows) * 1e6).toFixed(1)} µs per record); exit ${exit.code}`);
console.log(`thund serve's threads: ${(schedAtEnd.runSeconds - schedAtStart.runSeconds).toFixed(1)} s on a CPU, ${(schedAtEnd.waitSeconds - schedAtStart.waitSeconds).toFixed(1)} s ready but waiting for one (run queue)`);
console.log(`load average (1 min) during the run: mean ${(loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length)).toFixed(1)}, max ${Math.max(0, ...loads).toFixed(1)} on ${availableParallelism()} cores shared with other work`);
for (const line of describeTimeline(commitTimeline(serve.logs), 4)) console.log(`  ${line}`);

function fmt(msValue: number): string {
  return `${(msValue / 1000).toFixed(2)} s`;
}
