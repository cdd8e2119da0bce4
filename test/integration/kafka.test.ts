/**
 * The Kafka broker of the test stack, spoken to with kafkajs (the client Thund's Kafka source
 * uses): keyed messages over several partitions come back whole through a consumer group, and a
 * transaction's aborted messages stay invisible to a read_committed consumer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { requireServiceEnv } from '../stack/service.js';

const CONSUME_TIMEOUT_MS = 45_000;

interface Received {
  readonly key: string;
  readonly value: string;
  readonly partition: number;
}

let kafka: Kafka;
let admin: Admin;
const opened: Array<Producer | Consumer | Admin> = [];

// Inside each test rather than in beforeAll, so a missing broker fails the tests instead of skipping them.
async function connect(): Promise<void> {
  if (admin !== undefined) return;
  const brokers = requireServiceEnv('THUND_TEST_KAFKA_BROKERS').split(',');
  kafka = new Kafka({ clientId: 'thund-it', brokers, logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  opened.push(admin);
  await admin.connect();
}

afterAll(async () => {
  for (const client of opened) await client.disconnect().catch(() => undefined);
});

const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

async function createTopic(numPartitions: number): Promise<string> {
  await connect();
  const topic = uniqueName('thund-it');
  const created = await admin.createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], waitForLeaders: true });
  expect(created).toBe(true);
  return topic;
}

/** Runs a consumer from the beginning of `topic` until `done` says so; fails on timeout. */
async function consume(topic: string, options: { readUncommitted: boolean; done: (received: readonly Received[]) => boolean }): Promise<Received[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('thund-it-group'), readUncommitted: options.readUncommitted, maxWaitTimeInMs: 200 });
  opened.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const received: Received[] = [];
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({ key: message.key?.toString('utf8') ?? '', value: message.value?.toString('utf8') ?? '', partition });
      if (options.done(received)) finish();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CONSUME_TIMEOUT_MS)));
  const outcome = await Promise.race([finished.then(() => 'done' as const), timedOut]);
  clearTimeout(timer);
  await consumer.disconnect();
  if (outcome === 'timeout') {
    throw new Error(`consumer on ${topic} timed out after ${CONSUME_TIMEOUT_MS} ms with ${received.length} messages`);
  }
  return received;
}

describe('kafka broker (test stack)', () => {
  it('returns 100 keyed messages over 3 partitions through a consumer group', async () => {
    const topic = await createTopic(3);
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics[0]?.partitions).toHaveLength(3);

    const sent = Array.from({ length: 100 }, (_, i) => ({ key: `key-${i}`, value: `value-${i}-${randomUUID()}` }));
    const producer = kafka.producer();
    opened.push(producer);
    await producer.connect();
    await producer.send({ topic, messages: sent });
    await producer.disconnect();

    const received = await consume(topic, { readUncommitted: false, done: (r) => r.length >= sent.length });

    const pairs = (list: ReadonlyArray<{ key: string; value: string }>): string[] => list.map((m) => `${m.key}=${m.value}`).sort();
    expect(pairs(received)).toEqual(pairs(sent));
    // The default partitioner hashes keys: every key lands in one partition, and more than one partition is used.
    const partitionOfKey = new Map<string, number>();
    for (const message of received) {
      expect(partitionOfKey.get(message.key) ?? message.partition).toBe(message.partition);
      partitionOfKey.set(message.key, message.partition);
    }
    expect(new Set(received.map((m) => m.partition)).size).toBeGreaterThan(1);

    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0)).toBe(sent.length);
  }, 90_000);

  it('hides an aborted transaction from read_committed consumers, not from read_uncommitted ones', async () => {
    const topic = await createTopic(1);
    const producer = kafka.producer({ transactionalId: uniqueName('thund-it-tx'), idempotent: true, maxInFlightRequests: 1 });
    opened.push(producer);
    await producer.connect();

    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [0, 1, 2].map((i) => ({ key: `aborted-${i}`, value: `aborted-${i}` })) });
    await aborted.abort();

    const committed = await producer.transaction();
    await committed.send({ topic, messages: [0, 1, 2].map((i) => ({ key: `committed-${i}`, value: `committed-${i}` })) });
    await committed.commit();
    await producer.disconnect();

    // One partition, committed after aborted: once the last committed message is in, everything before it was seen.
    const lastCommitted = (r: readonly Received[]): boolean => r.some((m) => m.key === 'committed-2');
    const readCommitted = await consume(topic, { readUncommitted: false, done: lastCommitted });
    expect(readCommitted.map((m) => m.key)).toEqual(['committed-0', 'committed-1', 'committed-2']);

    const readUncommitted = await consume(topic, { readUncommitted: true, done: lastCommitted });
    expect(readUncommitted.map((m) => m.key)).toEqual(['aborted-0', 'aborted-1', 'aborted-2', 'committed-0', 'committed-1', 'committed-2']);
  }, 120_000);
});
