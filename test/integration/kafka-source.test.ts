/**
 * The Kafka source (kafkajs behind the ConsumerClient adapter, in the test's thread and in a worker
 * thread as `thund serve` runs it) against the test stack's broker:
 * positions come from the caller, never from the consumer group; reopening from a position set
 * yields exactly the remainder; poison records come out as dead-letter candidates at their offsets
 * while the rest continue; two members of one group split the partitions and the assignment hook
 * tells each which ones it gained and lost.
 */
import type { Message } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { DebeziumDecoder } from '../../connectors/kafka/debezium-decoder.js';
import { JsonDecoder, type JsonObject } from '../../connectors/kafka/json-decoder.js';
import { KafkaSourceError } from '../../connectors/kafka/kafka-source-error.js';
import { headerText } from '../../connectors/kafka/raw-record.js';
import { positionsAfter, mergePositions, type AssignmentChange, type SourcePosition, type SourceRecord } from '../../connectors/streaming-source.js';
import { drainFor, KafkaFixture, pollUntil, positionsByPartition, uniqueName, type ClientKind } from './kafka-support/kafka-fixture.js';

const TIMEOUT_MS = 60_000;

interface Sent {
  readonly partition: number;
  readonly offset: bigint;
  readonly key: string;
  readonly value: JsonObject;
  readonly trace: string;
}

/**
 * Records `from` … `from + count - 1` of one round-robin sequence over `partitions` (record i goes to
 * partition i mod partitions, at offset i div partitions): call with consecutive ranges.
 */
async function produceJson(fixture: KafkaFixture, topic: string, partitions: number, count: number, from = 0): Promise<Sent[]> {
  const sent: Sent[] = [];
  const messages: Message[] = [];
  for (let i = from; i < from + count; i++) {
    const partition = i % partitions;
    const value = { i, name: `name-${i}`, amount: i * 1.5 };
    messages.push({ partition, key: `k-${i}`, value: JSON.stringify(value), headers: { trace: `t-${i}` } });
    const offset = BigInt(Math.floor(i / partitions));
    sent.push({ partition, offset, key: `k-${i}`, value, trace: `t-${i}` });
  }
  await fixture.produce(topic, messages);
  return sent;
}

/** What a record looks like for comparison with what was sent. */
function seen(record: SourceRecord<JsonObject>): Sent {
  return { partition: record.partition, offset: record.offset, key: record.key?.toString('utf8') ?? '', value: record.value, trace: headerText(record, 'trace') ?? '' };
}

const byCoordinates = (a: Sent, b: Sent): number => a.partition - b.partition || Number(a.offset - b.offset);

const fixtures: Readonly<Record<ClientKind, KafkaFixture>> = { 'in-thread': new KafkaFixture('in-thread'), worker: new KafkaFixture('worker') };

afterAll(async () => {
  await Promise.all(Object.values(fixtures).map((f) => f.closeAll()));
});

describe.each(['in-thread', 'worker'] as const)('Kafka source on the test stack broker, consumer %s', (kind) => {
  const fixture = fixtures[kind];

  it('polls every record of 3 partitions with exact keys, values, headers and positions', async () => {
    const topic = await fixture.createTopic(3);
    const sent = await produceJson(fixture, topic, 3, 300);
    const source = fixture.source(topic, uniqueName('thund-src-all'), new JsonDecoder());
    await source.open([]);
    const got = await pollUntil(source, (c) => c.records.length >= sent.length, TIMEOUT_MS);
    expect(got.records.map(seen).sort(byCoordinates)).toEqual([...sent].sort(byCoordinates));
    expect(got.deadLetters).toEqual([]);
    // Within a partition, poll order is offset order, and consecutive ranges join without gaps.
    for (const partition of [0, 1, 2]) {
      const offsets = got.records.filter((r) => r.partition === partition).map((r) => r.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => Number(a - b)));
      const ranges = got.ranges.filter((r) => r.partition === partition);
      expect(ranges[0]?.firstOffset).toBe(0n);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.firstOffset).toBe(ranges[i - 1]?.nextOffset);
    }
    expect(positionsByPartition(mergePositions([], positionsAfter(got.ranges)))).toEqual({ 0: 100n, 1: 100n, 2: 100n });
    expect(positionsByPartition(source.positions())).toEqual({ 0: 100n, 1: 100n, 2: 100n });
    await source.close();
  }, 90_000);

  it('skips aborted transactions and their markers, committed records keeping their offsets (plain and gzip batches)', async () => {
    for (const gzip of [false, true]) {
      const topic = await fixture.createTopic(1);
      const messages = (name: string, count: number): Message[] => Array.from({ length: count }, (_, i) => ({ partition: 0, key: `${name}-${i}`, value: JSON.stringify({ name, i }), headers: { tx: name } }));
      await fixture.produceTransactions(
        topic,
        [
          { messages: messages('first', 2), commit: true },
          { messages: messages('aborted', 3), commit: false },
          { messages: messages('second', 2), commit: true },
        ],
        gzip,
      );
      const source = fixture.source(topic, uniqueName('thund-src-tx'), new JsonDecoder());
      await source.open([]);
      const got = await pollUntil(source, (c) => c.records.some((r) => r.key?.toString('utf8') === 'second-1'), TIMEOUT_MS);
      const more = await drainFor(source, 1_000);
      // Each transaction's marker takes an offset: 0-1 first, 2 its marker, 3-5 aborted, 6 marker, 7-8 second, 9 marker.
      const landed = [...got.records, ...more.records].map((r) => ({ key: r.key?.toString('utf8'), offset: r.offset, value: r.value, tx: headerText(r, 'tx') }));
      expect(landed).toEqual([
        { key: 'first-0', offset: 0n, value: { name: 'first', i: 0 }, tx: 'first' },
        { key: 'first-1', offset: 1n, value: { name: 'first', i: 1 }, tx: 'first' },
        { key: 'second-0', offset: 7n, value: { name: 'second', i: 0 }, tx: 'second' },
        { key: 'second-1', offset: 8n, value: { name: 'second', i: 1 }, tx: 'second' },
      ]);
      // Past the last committed record; the marker after it may or may not have been fetched yet.
      expect([9n, 10n]).toContain(positionsByPartition(source.positions())[0]);
      await source.close();
    }
  }, 90_000);

  it('reopened from a mid-stream position set, returns exactly the remainder and ignores the group’s committed offsets', async () => {
    const topic = await fixture.createTopic(3);
    const sent = await produceJson(fixture, topic, 3, 300);
    const groupId = uniqueName('thund-src-resume');
    // Offsets committed to the group must not matter: the positions given to open() win.
    await fixture.commitGroupOffsets(groupId, topic, [0, 1, 2].map((partition) => ({ partition, offset: '0' })));
    const start: SourcePosition[] = [
      { topic, partition: 0, nextOffset: 40n },
      { topic, partition: 1, nextOffset: 10n },
      { topic, partition: 2, nextOffset: 99n },
    ];
    const expected = sent.filter((s) => s.offset >= (start.find((p) => p.partition === s.partition)?.nextOffset ?? 0n));
    expect(expected).toHaveLength(60 + 90 + 1);

    const source = fixture.source(topic, groupId, new JsonDecoder());
    await source.open(start);
    const got = await pollUntil(source, (c) => c.records.length >= expected.length, TIMEOUT_MS);
    const more = await drainFor(source, 1_500);
    expect([...got.records, ...more.records].map(seen).sort(byCoordinates)).toEqual(expected.sort(byCoordinates));
    expect(got.ranges.filter((r) => r.partition === 2)).toEqual([{ topic, partition: 2, firstOffset: 99n, nextOffset: 100n }]);
    expect(positionsByPartition(source.positions())).toEqual({ 0: 100n, 1: 100n, 2: 100n });
    await source.close();
  }, 90_000);

  it('returns poison records as dead-letter candidates with their offsets and bytes while the rest continue', async () => {
    const topic = await fixture.createTopic(3);
    const poison: Array<Buffer | string> = ['{"i": ', '[1, 2, 3]', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), 'plain text'];
    const messages: Message[] = [];
    const next = [0n, 0n, 0n];
    const good: Array<{ partition: number; offset: bigint; value: JsonObject }> = [];
    const bad: Array<{ partition: number; offset: bigint; value: Buffer }> = [];
    for (let i = 0; i < 90; i++) {
      const partition = i % 3;
      const offset = next[partition] as bigint;
      next[partition] = offset + 1n;
      if (i % 7 === 3) {
        const value = poison[(i / 7) % poison.length | 0] as Buffer | string;
        messages.push({ partition, key: `k-${i}`, value });
        bad.push({ partition, offset, value: Buffer.isBuffer(value) ? value : Buffer.from(value) });
      } else {
        messages.push({ partition, key: `k-${i}`, value: JSON.stringify({ i }) });
        good.push({ partition, offset, value: { i } });
      }
    }
    await fixture.produce(topic, messages);

    const source = fixture.source(topic, uniqueName('thund-src-poison'), new JsonDecoder());
    await source.open([]);
    const got = await pollUntil(source, (c) => c.records.length + c.deadLetters.length >= messages.length, TIMEOUT_MS);
    const coordinates = (a: { partition: number; offset: bigint }, b: { partition: number; offset: bigint }): number => a.partition - b.partition || Number(a.offset - b.offset);
    expect(got.records.map((r) => ({ partition: r.partition, offset: r.offset, value: r.value })).sort(coordinates)).toEqual(good.sort(coordinates));
    expect(got.deadLetters.map((d) => ({ partition: d.partition, offset: d.offset, value: d.value })).sort(coordinates)).toEqual(bad.sort(coordinates));
    expect(got.deadLetters.every((d) => d.topic === topic && d.code === 'DECODE_FAILED' && d.reason.length > 0 && d.key !== null)).toBe(true);
    expect(source.totals()).toEqual({ records: good.length, deadLetters: bad.length, skipped: 0 });
    // Dead letters consume their offsets like any record: every partition ends at its high watermark.
    expect(positionsByPartition(source.positions())).toEqual({ 0: 30n, 1: 30n, 2: 30n });
    await source.close();
  }, 90_000);

  it('decodes Debezium change events with their keys, counting delete tombstones (null values) as skipped', async () => {
    const topic = await fixture.createTopic(1);
    const source = { connector: 'postgresql', db: 'shop', table: 'users' };
    const event = (op: string, before: unknown, after: unknown): string => JSON.stringify({ before, after, source, op, ts_ms: 1_764_000_000_000 });
    const ann = { id: 1, name: 'ann' };
    const annB = { id: 1, name: 'ann b.' };
    const bob = { id: 2, name: 'bob' };
    await fixture.produce(topic, [
      { key: '{"id":1}', value: event('r', null, ann) },
      { key: '{"id":2}', value: event('c', null, bob) },
      { key: '{"id":1}', value: event('u', ann, annB) },
      { key: '{"id":2}', value: event('d', bob, null) },
      { key: '{"id":2}', value: null },
      { key: '{"id":3}', value: event('c', null, null) },
    ]);
    const cdc = fixture.source(topic, uniqueName('thund-src-cdc'), new DebeziumDecoder(new JsonDecoder()));
    await cdc.open([]);
    const got = await pollUntil(cdc, (c) => c.records.length + c.deadLetters.length >= 5, TIMEOUT_MS);
    expect(got.records.map((r) => [r.offset, r.key?.toString('utf8'), r.value.rows])).toEqual([
      [0n, '{"id":1}', [{ rowKind: '+I', row: ann }]],
      [1n, '{"id":2}', [{ rowKind: '+I', row: bob }]],
      [2n, '{"id":1}', [{ rowKind: '-U', row: ann }, { rowKind: '+U', row: annB }]],
      [3n, '{"id":2}', [{ rowKind: '-D', row: bob }]],
    ]);
    expect(got.deadLetters.map((d) => [d.offset, d.reason])).toEqual([[5n, 'Debezium op "c" without a "after" row image']]);
    expect(cdc.totals()).toEqual({ records: 4, deadLetters: 1, skipped: 1 });
    expect(positionsByPartition(cdc.positions())).toEqual({ 0: 6n });
    await cdc.close();
  }, 90_000);

  it('refuses to start from a position beyond the end of the log (topic deleted and recreated) with a clear error', async () => {
    const topic = await fixture.createTopic(1);
    await produceJson(fixture, topic, 1, 10);
    const source = fixture.source(topic, uniqueName('thund-src-recreated'), new JsonDecoder());
    await source.open([{ topic, partition: 0, nextOffset: 500n }]);
    const error = await pollUntil(source, () => false, TIMEOUT_MS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KafkaSourceError);
    expect((error as KafkaSourceError).message).toBe(
      `Partition ${topic}/0: the committed position 500 is beyond the end of the log (10); was the topic deleted and recreated?`,
    );
    await source.close();
  }, 90_000);

  it('stops fetching a partition whose unpolled backlog exceeds the bound, and delivers it all once polled', async () => {
    const topic = await fixture.createTopic(1);
    // Many small sends make small record batches: a fetch returns at least one whole record batch.
    const sent: Sent[] = [];
    for (let from = 0; from < 2_000; from += 20) sent.push(...(await produceJson(fixture, topic, 1, 20, from)));
    const recordBytes = (s: Sent): number => s.key.length + JSON.stringify(s.value).length;
    const bound = 4_000;
    const fetchBytes = 2_048;
    const source = fixture.source(topic, uniqueName('thund-src-bounded'), new JsonDecoder(), { bufferedBytes: bound, fetchBytes });
    await source.open([]);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Nothing polled for 2 s: at most the bound plus one fetch is buffered, not the backlog.
    const buffered = source.bufferedRecords();
    expect(buffered).toBeGreaterThan(0);
    expect(buffered).toBeLessThanOrEqual(Math.ceil((bound + fetchBytes) / Math.min(...sent.map(recordBytes))));
    const got = await pollUntil(source, (c) => c.records.length >= sent.length, TIMEOUT_MS);
    expect(got.records.map(seen)).toEqual(sent);
    await source.close();
  }, 90_000);

  it('splits partitions between two members of one group, telling each what it gained and lost', async () => {
    const topic = await fixture.createTopic(4);
    const groupId = uniqueName('thund-src-group');
    const firstWave = await produceJson(fixture, topic, 4, 80);
    // The "table": committed positions both members read back when they gain a partition.
    let committed: SourcePosition[] = [];
    const changes: Record<'a' | 'b', AssignmentChange[]> = { a: [], b: [] };
    const hook = (member: 'a' | 'b') => (change: AssignmentChange) => {
      changes[member].push(change);
      return committed.filter((p) => change.assigned.some((tp) => tp.partition === p.partition));
    };

    const a = fixture.source(topic, groupId, new JsonDecoder());
    a.onAssignmentChange(hook('a'));
    await a.open([]);
    const aFirst = await pollUntil(a, (c) => c.records.length >= firstWave.length, TIMEOUT_MS);
    expect(aFirst.records.map(seen).sort(byCoordinates)).toEqual([...firstWave].sort(byCoordinates));
    committed = mergePositions(committed, positionsAfter(aFirst.ranges));
    expect(changes.a.map((c) => c.assigned.map((tp) => tp.partition).sort())).toEqual([[0, 1, 2, 3]]);

    const b = fixture.source(topic, groupId, new JsonDecoder());
    b.onAssignmentChange(hook('b'));
    await b.open([]);
    // a learns of the rebalance on its next heartbeat; keep it polling meanwhile.
    await pollUntil(a, () => changes.a.length >= 2 && changes.b.length >= 1, TIMEOUT_MS);
    const [aAfter, bAfter] = [changes.a.at(-1) as AssignmentChange, changes.b.at(-1) as AssignmentChange];
    const partitionsOf = (tps: AssignmentChange['current']): number[] => tps.map((tp) => tp.partition).sort();
    expect(partitionsOf(bAfter.current)).toHaveLength(2);
    expect(partitionsOf(aAfter.current)).toHaveLength(2);
    expect([...partitionsOf(aAfter.current), ...partitionsOf(bAfter.current)].sort()).toEqual([0, 1, 2, 3]);
    expect(partitionsOf(aAfter.revoked)).toEqual(partitionsOf(bAfter.current));
    expect(aAfter.assigned).toEqual([]);
    expect(partitionsOf(bAfter.assigned)).toEqual(partitionsOf(bAfter.current));

    const secondWave = await produceJson(fixture, topic, 4, 120, 80);
    let fromA = { records: [] as SourceRecord<JsonObject>[], deadLetters: [], ranges: [], polls: 0 } as Awaited<ReturnType<typeof pollUntil<JsonObject>>>;
    let fromB = fromA;
    const deadline = Date.now() + TIMEOUT_MS;
    while (fromA.records.length + fromB.records.length < secondWave.length && Date.now() < deadline) {
      fromA = await pollUntil(a, (c) => c.polls > fromA.polls, TIMEOUT_MS, fromA);
      fromB = await pollUntil(b, (c) => c.polls > fromB.polls, TIMEOUT_MS, fromB);
    }
    // Each member reads only its own partitions, from the committed positions: together exactly the second wave.
    expect(fromA.records.every((r) => partitionsOf(aAfter.current).includes(r.partition))).toBe(true);
    expect(fromB.records.every((r) => partitionsOf(bAfter.current).includes(r.partition))).toBe(true);
    expect([...fromA.records, ...fromB.records].map(seen).sort(byCoordinates)).toEqual(secondWave.sort(byCoordinates));
    await b.close();
    await a.close();
  }, 120_000);
});
