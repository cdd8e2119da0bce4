/**
 * The Kafka offset stream over a hand-driven consumer client: a read returns exactly the records
 * of its ranges and keeps what was fetched past them for the next read (no seek when it starts
 * there), a range ending in control records (transaction markers) completes once fetching passed
 * its end, dead letters come back in offset order with the records, a read that starts elsewhere
 * seeks and forgets what it kept, a partition whose range is complete stops fetching, and a read
 * told to stop ends with what it has.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { debeziumEnvelopeDecoder } from '../../../connectors/kafka/debezium-envelope-decoder.js';
import { debeziumEnvelopeLines } from '../../../connectors/kafka/debezium-line-packer.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { KafkaOffsetStream } from '../../../connectors/kafka/kafka-offset-stream.js';
import { packBatch, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import type { PartitionOffsets } from '../../../connectors/source.js';
import { topicPartitionKey, type PositionRange } from '../../../connectors/streaming-source.js';
import { FakeConsumerClient } from './fake-consumer-client.js';

const P0 = { topic: 't', partition: 0 };
const P1 = { topic: 't', partition: 1 };
const LIMITS = { maxBytes: 1 << 20, idleMs: 2_000 };
const range = (tp: typeof P0, first: number, next: number): PositionRange => ({ ...tp, firstOffset: BigInt(first), nextOffset: BigInt(next) });
const json = (n: number): string => JSON.stringify({ n });

let fake: FakeConsumerClient;
let stream: KafkaOffsetStream;

beforeEach(() => {
  fake = new FakeConsumerClient();
  fake.bounds.set('t', [
    { partition: 0, low: 0n, high: 100n },
    { partition: 1, low: 0n, high: 100n },
  ]);
  stream = new KafkaOffsetStream({ settings: { topics: ['t'], brokers: ['127.0.0.1:1'], decoder: new JsonDecoder(), checkJson: true, readAheadBytes: 16 * 1024 * 1024 }, reader: 'p.f', client: () => fake });
});
afterEach(async () => {
  await stream.close();
});

/** Starts a read, then assigns (first read) and delivers while it polls. */
async function readWhile(ranges: PositionRange[], act: () => void | Promise<void>) {
  const reading = stream.read(ranges, LIMITS);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await act();
  return reading;
}

const offsets = (read: Awaited<ReturnType<KafkaOffsetStream['read']>>): string[] => read.records.map((r) => `${r.partition}@${r.offset}`);

it('returns a range\'s records, keeps what was fetched past it for the next read, and completes a range that ends in control records', async () => {
  const first = await readWhile([range(P0, 0, 3)], async () => {
    fake.assign([P0, P1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    fake.deliver(P0, 0n, [0, 1, 2, 3, 4, 5].map(json));
  });
  expect(offsets(first)).toEqual(['0@0', '0@1', '0@2']);
  expect(first.reached).toEqual([{ ...P0, nextOffset: 3n }]);
  const seeks = fake.seeks.length;

  // Starts where the last read stopped: no seek, the kept records come first.
  const second = await stream.read([range(P0, 3, 6)], LIMITS);
  expect(offsets(second)).toEqual(['0@3', '0@4', '0@5']);
  expect(fake.seeks).toHaveLength(seeks);

  // Offset 8 is a transaction marker: the fetch ends at 9 with records 6 and 7 only.
  const third = await readWhile([range(P0, 6, 9)], () => void fake.deliver(P0, 6n, [json(6), json(7)], 9n));
  expect(offsets(third)).toEqual(['0@6', '0@7']);
  expect(third.reached).toEqual([{ ...P0, nextOffset: 9n }]);
});

it('hands out dead letters in offset order with the records, seeks for a read that starts elsewhere, and pauses a completed partition', async () => {
  const first = await readWhile([range(P0, 0, 2), range(P1, 0, 3)], async () => {
    fake.assign([P0, P1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    fake.deliver(P0, 0n, [json(0), json(1), json(2)]);
    fake.deliver(P1, 0n, [json(10), '{"broken": ', json(12), json(13)]);
  });
  expect(offsets(first)).toEqual(['0@0', '0@1', '1@0', '1@2']);
  expect(first.deadLetters.map((d) => `${d.partition}@${d.offset}`)).toEqual(['1@1']);
  expect(first.reached).toEqual([
    { ...P0, nextOffset: 2n },
    { ...P1, nextOffset: 3n },
  ]);
  expect(fake.isPaused(P0) && fake.isPaused(P1)).toBe(true);

  // Planned again from other positions: P1 is sought back to 1; its kept record 3 is forgotten.
  const again = await readWhile([range(P1, 1, 3)], () => void fake.deliver(P1, 1n, ['{"broken": ', json(12)]));
  expect(fake.seeks.at(-1)).toBe('t/1@1');
  expect(fake.isPaused(P0)).toBe(true);
  expect(offsets(again)).toEqual(['1@2']);
  expect(again.deadLetters.map((d) => `${d.partition}@${d.offset}`)).toEqual(['1@1']);
});

it('a read whose records do not come ends with what it has once its signal is aborted, not after waiting out its idle time', async () => {
  const stop = new AbortController();
  const reading = stream.read([range(P0, 0, 10)], { ...LIMITS, idleMs: 60_000, signal: stop.signal });
  await new Promise((resolve) => setTimeout(resolve, 20));
  fake.assign([P0]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The end offsets promise 3 to 9, no fetch brings them (the group moved the partition, say).
  fake.deliver(P0, 0n, [0, 1, 2].map(json));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const abortedAt = Date.now();
  stop.abort();
  const read = await reading;
  expect(Date.now() - abortedAt).toBeLessThan(1_000);
  expect(offsets(read)).toEqual(['0@0', '0@1', '0@2']);
  expect(read.reached).toEqual([{ ...P0, nextOffset: 3n }]);
  // The next read takes up where it stopped.
  const rest = await readWhile([range(P0, 3, 5)], () => void fake.deliver(P0, 3n, [3, 4].map(json)));
  expect(offsets(rest)).toEqual(['0@3', '0@4']);
}, 10_000);

it('bounds a read by the key and value bytes fetched, not by the staged lines the worker wrote besides', async () => {
  await stream.close();
  stream = new KafkaOffsetStream({ settings: { topics: ['t'], brokers: ['127.0.0.1:1'], decoder: debeziumEnvelopeDecoder(new JsonDecoder()), checkJson: false, debeziumJson: true, readAheadBytes: 16 * 1024 * 1024 }, reader: 'p.f', client: () => fake });
  const values = [1, 2, 3, 4].map((id) => Buffer.from(JSON.stringify({ op: 'c', before: null, after: { id, name: `name-${id}` }, source: { lsn: id } })));
  const messages = values.map((value, i) => ({ offset: String(i), timestamp: '0', key: Buffer.from(`k${i}`), value, attributes: 0 }) as KafkaMessage);
  const fetched = unpackBatch(packBatch({ ...P0, fetchedOffset: '0', messages, lastOffset: () => '3' } as unknown as Batch, 0, debeziumEnvelopeLines));
  expect(fetched.records.every((r) => r.stagedLine !== undefined)).toBe(true);
  const twoRecords = 2 * 2 + (values[0] as Buffer).length + (values[1] as Buffer).length;
  const reading = stream.read([range(P0, 0, 4)], { ...LIMITS, maxBytes: twoRecords });
  await new Promise((resolve) => setTimeout(resolve, 20));
  fake.assign([P0]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  fake.deliverFetched(fetched);
  expect(offsets(await reading)).toEqual(['0@0', '0@1']);
});

it('a client that gave up fails the read in progress; the next read starts a new client at the range asked for', async () => {
  const clients: FakeConsumerClient[] = [];
  const recovering = new KafkaOffsetStream({
    settings: { topics: ['t'], brokers: ['127.0.0.1:1'], decoder: new JsonDecoder(), checkJson: true, readAheadBytes: 16 * 1024 * 1024 },
    reader: 'p.f',
    client: () => {
      const client = new FakeConsumerClient();
      client.bounds.set('t', [{ partition: 0, low: 0n, high: 100n }]);
      clients.push(client);
      return client;
    },
  });
  const deliverOnce = async (client: () => FakeConsumerClient, from: number): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    client().assign([P0]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    client().deliver(P0, BigInt(from), [from, from + 1].map(json));
  };
  try {
    const reading = recovering.read([range(P0, 0, 2)], LIMITS);
    await deliverOnce(() => clients[0]!, 0);
    expect(offsets(await reading)).toEqual(['0@0', '0@1']);

    // Failing in the middle of a read fails that read.
    const failing = recovering.read([range(P0, 2, 4)], LIMITS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clients[0]!.fail(new Error('Connection error: connect ECONNREFUSED'));
    await expect(failing).rejects.toThrow(/Kafka consumer stopped: Connection error/);
    expect(clients[0]!.stopped).toBe(false);

    const again = recovering.read([range(P0, 2, 4)], LIMITS);
    await deliverOnce(() => clients[1]!, 2);
    expect(offsets(await again)).toEqual(['0@2', '0@3']);
    expect(clients).toHaveLength(2);
    expect(clients[0]!.stopped).toBe(true);
  } finally {
    await recovering.close();
  }
});

it('without a read_ahead_bytes of its own, fetches ahead as much as the last read took (within the per-partition bound), not just the default', async () => {
  const mib = JSON.stringify({ s: 'x'.repeat(1024 * 1024 - 8) });
  const bufferedAfterBigRead = async (readAheadBytes: number | undefined, nextMiB = 10): Promise<boolean> => {
    await stream.close();
    fake = new FakeConsumerClient();
    fake.bounds.set('t', [
      { partition: 0, low: 0n, high: 100n },
      { partition: 1, low: 0n, high: 100n },
    ]);
    const settings = { topics: ['t'], brokers: ['127.0.0.1:1'], decoder: new JsonDecoder(), checkJson: true };
    stream = new KafkaOffsetStream({ settings: readAheadBytes === undefined ? settings : { ...settings, readAheadBytes }, reader: 'p.f', client: () => fake });
    // 24 MiB in one read: the default read-ahead is 16 MiB over the two partitions, 8 MiB each.
    // The bounds a round reads first (from the broker, which this test has none of).
    const bounds = (stream as unknown as { lastBounds: Map<string, PartitionOffsets> }).lastBounds;
    for (const tp of [P0, P1]) bounds.set(topicPartitionKey(tp), { ...tp, low: 0n, high: 100n });
    const reading = stream.read([range(P0, 0, 24)], { ...LIMITS, maxBytes: 64 * 1024 * 1024 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    fake.assign([P0, P1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    fake.deliver(P0, 0n, Array.from({ length: 24 }, () => mib));
    const read = await reading;
    expect(read.records).toHaveLength(24);
    expect(fake.isPaused(P0)).toBe(false);
    // The next MiBs are fetched while the batch lands: beyond the bound a partition pauses.
    fake.deliver(P0, 24n, Array.from({ length: nextMiB }, () => mib));
    return !fake.isPaused(P0);
  };
  // Adaptive: the last read took 24 MiB, 12 MiB a partition, so the 10 MiB fit; 14 do not (the
  // engine reads the next batch ahead itself: twice the last read only added memory).
  expect(await bufferedAfterBigRead(undefined)).toBe(true);
  expect(await bufferedAfterBigRead(undefined, 14)).toBe(false);
  // A read-ahead set by the user stays as set: 16 MiB, 8 MiB a partition.
  expect(await bufferedAfterBigRead(16 * 1024 * 1024)).toBe(false);
});
