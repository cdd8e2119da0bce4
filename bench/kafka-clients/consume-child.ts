/**
 * One client's run of bench/kafka-clients, in a process of its own so that its CPU time and peak
 * RSS are the client's alone: reads the whole topic once and prints one `RESULT {json}` line.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CLIENTS, type ChildResult, type ClientName } from './clients.js';
import { Tally, type ConsumeLoop } from './consume-loop.js';

async function loopOf(client: ClientName): Promise<ConsumeLoop> {
  switch (client) {
    case 'kafkajs':
      return (await import('./kafkajs-loop.js')).kafkajsLoop;
    case 'platformatic':
      return (await import('./platformatic-loop.js')).platformaticLoop;
    case 'confluent':
      return (await import('./confluent-loop.js')).confluentLoop;
  }
}

const statusMiB = (field: 'VmRSS' | 'VmHWM'): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

const { values } = parseArgs({ options: { client: { type: 'string' }, brokers: { type: 'string' }, topic: { type: 'string' }, group: { type: 'string' }, records: { type: 'string' } } });
const client = values.client as ClientName;
if (!CLIENTS.includes(client) || !values.brokers || !values.topic || !values.group || !values.records) throw new Error('usage: consume-child.ts --client kafkajs|platformatic|confluent --brokers B --topic T --group G --records N');
const loop = await loopOf(client);
const loadedRssMiB = statusMiB('VmRSS');
const tally = new Tally(Number(values.records));
const cpuAtStart = process.cpuUsage();
const consumed = loop({ brokers: values.brokers.split(','), topic: values.topic, groupId: values.group, records: Number(values.records) }, tally);
await tally.done;
const cpu = process.cpuUsage(cpuAtStart);
const result: ChildResult = {
  client,
  records: tally.records,
  valueBytes: tally.valueBytes,
  seconds: (tally.lastAt - tally.firstAt) / 1000,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  loadedRssMiB,
  peakRssMiB: statusMiB('VmHWM'),
};
console.log(`RESULT ${JSON.stringify(result)}`);
// Leaving the group is not measured; a client slow to close must not hold the run up.
await Promise.race([consumed, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
process.exit(0);
