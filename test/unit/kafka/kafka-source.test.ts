import { beforeEach, describe, expect, it } from 'vitest';
import { JsonDecoder, type JsonObject } from '../../../connectors/kafka/json-decoder.js';
import { KafkaSource } from '../../../connectors/kafka/kafka-source.js';
import { KafkaSourceError } from '../../../connectors/kafka/kafka-source-error.js';
import type { RawRecord } from '../../../connectors/kafka/raw-record.js';
import type { Decoded, RecordDecoder } from '../../../connectors/kafka/record-decoder.js';
import type { AssignmentChange, SourcePosition } from '../../../connectors/streaming-source.js';
import { FakeConsumerClient } from './fake-consumer-client.js';

const p0 = { topic: 't', partition: 0 };
const p1 = { topic: 't', partition: 1 };
const p2 = { topic: 't', partition: 2 };

let client: FakeConsumerClient;

beforeEach(() => {
  client = new FakeConsumerClient();
  client.bounds.set('t', [
    { partition: 0, low: 0n, high: 100n },
    { partition: 1, low: 0n, high: 100n },
    { partition: 2, low: 5n, high: 100n },
  ]);
});

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function openSource(
  start: SourcePosition[],
  options: { listener?: (change: AssignmentChange) => SourcePosition[] | undefined; maxBytes?: number; decoder?: RecordDecoder<JsonObject> } = {},
): Promise<{ source: KafkaSource<JsonObject>; changes: AssignmentChange[] }> {
  const source = new KafkaSource<JsonObject>({
    topics: ['t'],
    decoder: options.decoder ?? new JsonDecoder(),
    client,
    ...(options.maxBytes === undefined ? {} : { maxBufferedBytesPerPartition: options.maxBytes }),
  });
  const changes: AssignmentChange[] = [];
  source.onAssignmentChange((change) => {
    changes.push(change);
    return options.listener?.(change);
  });
  await source.open(start);
  return { source, changes };
}

describe('Kafka source positions and rebalances (fake client)', () => {
  it('keeps new partitions paused until their start is known, then seeks to listener, start or earliest positions', async () => {
    const { source, changes } = await openSource([{ ...p1, nextOffset: 20n }], { listener: () => [{ ...p0, nextOffset: 7n }] });
    client.assign([p0, p1, p2]);
    expect([client.isPaused(p0), client.isPaused(p1), client.isPaused(p2)]).toEqual([true, true, true]);
    await settle();
    expect(changes).toEqual([{ generation: 1, assigned: [p0, p1, p2], revoked: [], current: [p0, p1, p2] }]);
    expect(client.seeks).toEqual(['t/0@7', 't/1@20', 't/2@5']);
    expect(client.paused.size).toBe(0);
    expect(source.positions()).toEqual([
      { ...p0, nextOffset: 7n },
      { ...p1, nextOffset: 20n },
      { ...p2, nextOffset: 5n },
    ]);
  });

  it('returns polled records with the ranges they cover and advances positions', async () => {
    const { source } = await openSource([{ ...p0, nextOffset: 3n }]);
    client.assign([p0, p1]);
    await settle();
    client.deliver(p0, 3n, ['{"a":1}', '{"a":2}']);
    client.deliver(p1, 0n, ['{"b":1}', 'bad', '{"b":3}']);
    const batch = await source.poll(10, 1000);
    expect(batch.records.map((r) => [r.partition, r.offset, r.value])).toEqual([
      [0, 3n, { a: 1 }],
      [0, 4n, { a: 2 }],
      [1, 0n, { b: 1 }],
      [1, 2n, { b: 3 }],
    ]);
    expect(batch.deadLetters.map((d) => [d.partition, d.offset])).toEqual([[1, 1n]]);
    expect(batch.ranges).toEqual([
      { ...p0, firstOffset: 3n, nextOffset: 5n },
      { ...p1, firstOffset: 0n, nextOffset: 3n },
    ]);
    expect(source.positions()).toEqual([
      { ...p0, nextOffset: 5n },
      { ...p1, nextOffset: 3n },
    ]);
    expect(source.totals()).toEqual({ records: 4, deadLetters: 1, skipped: 0 });
    const empty = await source.poll(10, 20);
    expect([empty.records.length, empty.ranges.length]).toEqual([0, 0]);
  });

  it('honours maxRecords, leaving the rest for the next poll', async () => {
    const { source } = await openSource([]);
    client.assign([p0]);
    await settle();
    client.deliver(p0, 0n, ['{"i":0}', '{"i":1}', '{"i":2}']);
    expect((await source.poll(2, 100)).records.map((r) => r.offset)).toEqual([0n, 1n]);
    expect((await source.poll(2, 100)).records.map((r) => r.offset)).toEqual([2n]);
  });

  it('on a rebalance drops revoked partitions, re-seeks kept ones where fetching stopped and resolves new ones', async () => {
    const { source, changes } = await openSource([], { listener: (change) => change.assigned.map((tp) => ({ ...tp, nextOffset: 50n })) });
    client.assign([p0, p1]);
    await settle();
    client.deliver(p0, 50n, ['{"x":1}'], 52n);
    client.deliver(p1, 50n, ['{"y":1}']);
    client.seeks.length = 0;
    client.assign([p0, p2]);
    expect(client.seeks).toEqual(['t/0@52']);
    await settle();
    expect(changes[1]).toEqual({ generation: 2, assigned: [p2], revoked: [p1], current: [p0, p2] });
    expect(client.seeks).toEqual(['t/0@52', 't/2@50']);
    const batch = await source.poll(10, 100);
    expect(batch.records.map((r) => [r.partition, r.offset])).toEqual([[0, 50n]]);
    expect(source.assignment()).toEqual([p0, p2]);
  });

  it('pauses a partition whose buffered bytes reach the bound and resumes it once polled below half of it', async () => {
    const { source } = await openSource([], { maxBytes: 30 });
    client.assign([p0, p1]);
    await settle();
    client.deliver(p0, 0n, ['{"v":"0123456789"}', '{"v":"0123456789"}']);
    expect([client.isPaused(p0), client.isPaused(p1)]).toEqual([true, false]);
    await source.poll(1, 100);
    // 18 bytes wait: under the bound, but not under half of it.
    expect(client.isPaused(p0)).toBe(true);
    await source.poll(1, 100);
    expect(client.isPaused(p0)).toBe(false);
  });

  it('pauses and resumes on the engine’s request, all partitions or named ones', async () => {
    const { source } = await openSource([]);
    client.assign([p0, p1]);
    await settle();
    source.pause();
    expect(client.paused).toEqual(new Set(['t/0', 't/1']));
    source.resume([p1]);
    expect(client.paused).toEqual(new Set(['t/0']));
    source.resume();
    expect(client.paused.size).toBe(0);
    source.pause([p1]);
    expect(client.paused).toEqual(new Set(['t/1']));
  });

  it('seek drops buffered records of the partition and restarts it at the given offset', async () => {
    const { source } = await openSource([]);
    client.assign([p0]);
    await settle();
    client.deliver(p0, 0n, ['{"i":0}', '{"i":1}']);
    source.seek([{ ...p0, nextOffset: 1n }]);
    expect(client.seeks.at(-1)).toBe('t/0@1');
    client.stale = true;
    client.deliver(p0, 2n, ['{"i":2}']);
    client.stale = false;
    client.deliver(p0, 1n, ['{"i":1}']);
    expect((await source.poll(10, 100)).records.map((r) => r.offset)).toEqual([1n]);
  });

  it('fails instead of re-reading when a partition goes back (topic recreated or offsets reset)', async () => {
    const { source } = await openSource([{ ...p0, nextOffset: 40n }]);
    client.assign([p0]);
    await settle();
    client.deliver(p0, 0n, ['{"i":0}']);
    await expect(source.poll(10, 100)).rejects.toThrow(/t\/0 went back from offset 40 to 0/);
  });

  it('fails with a clear error when the table position is outside the log', async () => {
    const behind = await openSource([{ ...p2, nextOffset: 2n }]);
    client.assign([p2]);
    await settle();
    await expect(behind.source.poll(1, 50)).rejects.toThrow(/records from offset 2 to 4 were deleted/);

    client = new FakeConsumerClient();
    client.bounds.set('t', [{ partition: 0, low: 0n, high: 10n }]);
    const ahead = await openSource([{ ...p0, nextOffset: 11n }]);
    client.assign([p0]);
    await settle();
    const error = await ahead.source.poll(1, 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KafkaSourceError);
    expect((error as KafkaSourceError).message).toMatch(/position 11 is beyond the end of the log \(10\)/);
  });

  it('keeps records in the buffer when preparing them fails, and returns them on the next poll', async () => {
    let failures = 1;
    const inner = new JsonDecoder();
    const flaky: RecordDecoder<JsonObject> = {
      format: 'flaky',
      prepare: async () => {
        if (failures-- > 0) throw new Error('registry down');
      },
      decode: (record: RawRecord): Decoded<JsonObject> => inner.decode(record),
    };
    const { source } = await openSource([], { decoder: flaky });
    client.assign([p0]);
    await settle();
    client.deliver(p0, 0n, ['{"i":0}']);
    await expect(source.poll(10, 100)).rejects.toThrow('registry down');
    expect((await source.poll(10, 100)).records.map((r) => r.value)).toEqual([{ i: 0 }]);
  });

  it('surfaces a client failure from the next poll and stops the client on close', async () => {
    const { source } = await openSource([]);
    client.fail(new Error('broker gone'));
    await expect(source.poll(1, 1000)).rejects.toThrow(/Kafka consumer stopped: broker gone/);
    await source.close();
    expect(client.stopped).toBe(true);
  });
});
