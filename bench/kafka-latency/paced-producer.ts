/**
 * One paced producer, run as its own process by producers.ts so its CPU does not delay the
 * bench's snapshot polling: every slice it sends the records that are due by then at `--rate`
 * records/s for `--seconds`, round-robin over the partitions, each value carrying its send time
 * in `produced_ms`. Sends overlap (kafkajs pipelines them on one connection) up to a bound; a
 * slice that finds the bound reached sends nothing and the next one sends what is due by then,
 * so a producer that cannot keep up shows as a lower achieved rate, not as a growing queue; it
 * stops at the deadline whatever it has sent.
 * Prints one JSON line every 10 s ({sent, seconds}) and a last one with done: true.
 *
 *   node --import tsx paced-producer.ts --brokers B --topic T --partitions 6 --rate R --seconds S --first-id N
 */
import { parseArgs } from 'node:util';
import { Kafka, logLevel, type Message } from 'kafkajs';

const { values } = parseArgs({
  options: {
    brokers: { type: 'string' },
    topic: { type: 'string' },
    partitions: { type: 'string', default: '6' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    'first-id': { type: 'string', default: '0' },
    'slice-ms': { type: 'string', default: '25' },
    'max-in-flight': { type: 'string', default: '8' },
  },
});
const topic = values.topic as string;
const partitions = Number(values.partitions);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const firstId = Number(values['first-id']);
const sliceMs = Number(values['slice-ms']);
const maxInFlight = Number(values['max-in-flight']);

const kafka = new Kafka({ clientId: 'thund-bench-latency', brokers: (values.brokers as string).split(','), logLevel: logLevel.NOTHING });
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();

const note = 'x'.repeat(110);
const message = (n: number, now: number): Message => {
  const id = firstId + n;
  return { partition: n % partitions, key: `k-${id}`, value: `{"id":${id},"produced_ms":${now},"name":"customer-${id}","amount":${id * 1.25},"city":"Lisbon","note":"${note}"}` };
};

const report = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
const started = performance.now();
const total = Math.round(rate * seconds);
let sent = 0;
let inFlight = 0;
let failure: unknown;
let nextReport = 10_000;
const sends = new Set<Promise<void>>();
/** Records per send: a catch-up send stays well under the broker's 1 MB batch limit per partition. */
const MAX_SEND = 5_000;

while (failure === undefined) {
  const elapsed = performance.now() - started;
  if (elapsed >= nextReport) {
    report({ sent, seconds: elapsed / 1000 });
    nextReport += 10_000;
  }
  if (sent >= total || elapsed >= seconds * 1000) break;
  const due = Math.min(total, Math.floor((elapsed / 1000) * rate));
  while (due > sent && inFlight < maxInFlight) {
    const now = Date.now();
    const messages: Message[] = [];
    const upTo = Math.min(due, sent + MAX_SEND);
    for (let n = sent; n < upTo; n++) messages.push(message(n, now));
    sent = upTo;
    inFlight += 1;
    const send: Promise<void> = producer
      .send({ topic, messages, acks: -1 })
      .then(
        () => undefined,
        (error: unknown) => void (failure ??= error),
      )
      .finally(() => {
        inFlight -= 1;
        sends.delete(send);
      });
    sends.add(send);
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(1, sliceMs - ((performance.now() - started) % sliceMs))));
}
await Promise.all(sends);
await producer.disconnect();
if (failure !== undefined) {
  process.stderr.write(`paced producer failed: ${failure instanceof Error ? failure.message : String(failure)}\n`);
  process.exit(1);
}
report({ sent, seconds: (performance.now() - started) / 1000, done: true });
