/**
 * bench/kafka-clients: the Kafka clients Thund could consume with, on the same topic. Produces N
 * JSON records (~200 bytes, 6 partitions, as bench/kafka) to the test stack's Kafka once, then
 * for each client reads the whole topic from the earliest offset in a fresh consumer group, in a
 * child process of its own (consume-child.ts), with the simplest fast loop the client offers,
 * reading every value's length. Rounds alternate the clients' order; the table shows medians.
 * Needs the stack env file sourced.
 *
 *   npx tsx bench/kafka-clients/run.ts [--records 1000000] [--rounds 3] [--clients kafkajs,platformatic,confluent] [--topic existing]
 *
 * Only kafkajs is a dependency: a client whose package is not installed is skipped, with the
 * command that installs it (clients.ts).
 *
 * records/s and MiB/s (value bytes) run from the first record to the last; CPU seconds are user +
 * system of the child's every thread from creating the client to the last record; peak RSS is the
 * child's VmHWM (node + tsx alone are about the "loaded" figure).
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { EoKafka, unique } from '../../test/integration/kafka-eo-support/eo-stack.js';
import { produceRange } from '../../test/integration/kafka-eo-support/produce.js';
import { CLIENT_PACKAGES, CLIENTS, isInstalled, type ChildResult, type ClientName } from './clients.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '3' }, clients: { type: 'string', default: CLIENTS.join(',') }, topic: { type: 'string' } } });
const records = Number(values.records);
const rounds = Number(values.rounds);
const named = values.clients.split(',') as ClientName[];
const unknown = named.filter((c) => !CLIENTS.includes(c));
if (unknown.length > 0) throw new Error(`unknown clients ${unknown.join(', ')}; known: ${CLIENTS.join(', ')}`);
for (const client of named.filter((c) => !isInstalled(c))) console.log(`skipping ${client}: ${CLIENT_PACKAGES[client].name} is not installed; to measure it: ${CLIENT_PACKAGES[client].install}`);
const clients = named.filter(isInstalled);

const kafka = new EoKafka();
const topic = values.topic ?? unique('bench-kafka-clients');
if (values.topic === undefined) {
  await kafka.createTopic(topic, 6);
  const producedAt = performance.now();
  await produceRange(await kafka.producer(), topic, 6, 0, records, 10_000);
  console.log(`produced ${records} records to ${topic} in ${((performance.now() - producedAt) / 1000).toFixed(1)} s`);
}
await kafka.close();

const results = new Map<ClientName, ChildResult[]>(clients.map((c) => [c, []]));
for (let round = 0; round < rounds; round++) {
  const order = clients.map((_, i) => clients[(i + round) % clients.length] as ClientName);
  for (const client of order) {
    const result = await runChild(client);
    results.get(client)?.push(result);
    console.log(`round ${round + 1} ${client}: ${line(result)}`);
  }
}

console.log('\nmedians over the rounds (runs in brackets: records/s)');
console.log('| client | records/s | MiB/s | CPU s | peak RSS MiB | runs records/s |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
for (const [client, runs] of results) {
  const rate = median(runs.map((r) => r.records / r.seconds));
  const mib = median(runs.map((r) => r.valueBytes / r.seconds / 1024 / 1024));
  const cpu = median(runs.map((r) => r.cpuSeconds));
  const rss = median(runs.map((r) => r.peakRssMiB));
  console.log(`| ${client} | ${Math.round(rate)} | ${mib.toFixed(1)} | ${cpu.toFixed(2)} | ${rss.toFixed(0)} | ${runs.map((r) => Math.round(r.records / r.seconds)).join(', ')} |`);
}

function line(r: ChildResult): string {
  return `${Math.round(r.records / r.seconds)} records/s, ${(r.valueBytes / r.seconds / 1024 / 1024).toFixed(1)} MiB/s, cpu ${r.cpuSeconds.toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB (loaded ${r.loadedRssMiB.toFixed(0)} MiB), ${r.seconds.toFixed(1)} s`;
}

function median(list: readonly number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function runChild(client: ClientName): Promise<ChildResult> {
  const args = ['--import', 'tsx', new URL('./consume-child.ts', import.meta.url).pathname, '--client', client, '--brokers', kafka.brokers, '--topic', topic, '--group', unique('bench-g'), '--records', String(records)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const found = /^RESULT (.*)$/m.exec(stdout);
      if (found?.[1] === undefined) reject(new Error(`${client} gave no result (exit ${code}): ${stderr.slice(-2000)}`));
      else resolve(JSON.parse(found[1]) as ChildResult);
    });
  });
}
