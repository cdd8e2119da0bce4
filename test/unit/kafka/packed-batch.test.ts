/**
 * A kafkajs batch packed in the consumer's worker thread and unpacked on the main thread gives
 * back every record exactly: coordinates, timestamps, null and empty keys and values, repeated
 * headers, and the JSON byte check of the decoder.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { checkedJsonLines, packBatch, transferables, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import { stagedLines, type JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import { decodedRecord } from './records.js';

const messages: KafkaMessage[] = [
  { offset: '41', timestamp: '1764563000123', key: Buffer.from('k-1'), value: Buffer.from('{"a":1}'), headers: {}, attributes: 0 },
  { offset: '42', timestamp: '1764563000124', key: null, value: null, headers: { trace: [Buffer.from('t1'), Buffer.from('t2')], kind: Buffer.from('x') }, attributes: 0 },
  { offset: '43', timestamp: '1764563000125', key: Buffer.alloc(0), value: Buffer.from('[1,2]'), attributes: 0 },
  { offset: '9007199254740993', timestamp: '1764563000126', key: Buffer.from('ü'), value: Buffer.from('{"_kafka_offset":3}'), attributes: 0 },
] as KafkaMessage[];

const batch = { topic: 'orders', partition: 5, fetchedOffset: '40', messages, lastOffset: () => '9007199254740995' } as unknown as Batch;

describe('packed batches', () => {
  it('unpack to the records that were packed, with keys and values as views on one transferred buffer', () => {
    const packed = packBatch(batch, 3, checkedJsonLines);
    expect(transferables(packed)).toHaveLength(8);
    const copy = structuredClone(packed, { transfer: transferables(packed) });
    expect(packed.bytes.byteLength).toBe(0);
    const fetched = unpackBatch(copy);
    expect(fetched).toMatchObject({ topic: 'orders', partition: 5, fetchOffset: 40n, nextOffset: 9007199254740996n });
    expect(copy.epoch).toBe(3);
    const seen = fetched.records.map((r) => ({
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestampMs: r.timestampMs,
      key: r.key?.toString('utf8') ?? null,
      value: r.value?.toString('utf8') ?? null,
      headers: r.headers.map((h) => [h.key, h.value?.toString('utf8') ?? null]),
    }));
    expect(seen).toEqual(
      messages.map((m) => ({
        topic: 'orders',
        partition: 5,
        offset: BigInt(m.offset),
        timestampMs: Number(m.timestamp),
        key: m.key?.toString('utf8') ?? null,
        value: m.value?.toString('utf8') ?? null,
        headers: Object.entries(m.headers ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one) => [k, one?.toString() ?? null])),
      })),
    );
  });

  it('carry the JSON decoder’s own verdict on each value when asked to check, and none otherwise', () => {
    const decoder = new JsonDecoder();
    const checked = unpackBatch(packBatch(batch, 0, checkedJsonLines)).records;
    const unchecked = unpackBatch(packBatch(batch, 0)).records;
    expect(checked.map((r) => r.stageableJson)).toEqual(unchecked.map((r) => decoder.passesAsJson(r)));
    expect(checked.map((r) => r.stageableJson)).toEqual([true, false, false, false]);
    expect(unchecked.every((r) => r.stageableJson === undefined)).toBe(true);
  });
});

describe('staged lines written while packing', () => {
  const values = ['{"id":1,"name":"café"}', ' {  } ', '{ "nested" : {"a":[1,2]} }\t', '{"na\\u006de":"y","id":4}', '{"big":9007199254740993,"id":2}', '{"id":3,"name":"x"}'];
  const jsonMessages = values.map(
    (value, i): KafkaMessage =>
      ({
        offset: String(9007199254740990 + i),
        timestamp: String(1764563000000 + i),
        key: i === 1 ? null : Buffer.from(i === 2 ? 'k"é' : `k-${i}`),
        value: Buffer.from(value),
        headers: i === 4 ? { trace: [Buffer.from('t1'), Buffer.from('t2')] } : {},
        attributes: 0,
      }) as KafkaMessage,
  );
  const jsonBatch = { topic: 'or"ders', partition: 7, fetchedOffset: '0', messages: jsonMessages, lastOffset: () => '9007199254740995' } as unknown as Batch;

  it('are the lines the engine writes for the same records, copied in runs around a value without one', () => {
    const packed = packBatch(jsonBatch, 0, checkedJsonLines);
    const fetched = decodeRecords(new JsonDecoder(), unpackBatch(structuredClone(packed, { transfer: transferables(packed) })).records).records as JsonRecord[];
    expect(fetched.map((r) => r.stagedLine !== undefined)).toEqual([true, true, true, false, true, true]);
    // The same records without their lines: the engine writes each line itself.
    const bare = fetched.map((r) => decodedRecord(r, r.value));
    const fromWorker = stagedLines(fetched);
    const fromEngine = stagedLines(bare);
    expect(Buffer.concat(fromWorker.chunks).toString('utf8').split('\n').map((line) => (line === '' ? line : JSON.parse(line.replace(/"big":\d+/, '"big":0'))))).toEqual(
      Buffer.concat(fromEngine.chunks).toString('utf8').split('\n').map((line) => (line === '' ? line : JSON.parse(line.replace(/"big":\d+/, '"big":0')))),
    );
    expect(Buffer.concat(fromWorker.chunks).toString('utf8')).toContain('"_kafka_offset":9007199254740994,');
    expect(Buffer.concat(fromWorker.chunks).toString('utf8')).toContain('"big":9007199254740993,');
    expect(fromWorker.longestLine).toBe(fromEngine.longestLine);
  });

  it('travel in a lines buffer no larger than the lines, even when a value fails the check or a key needs escaping', () => {
    const lines = packBatch(jsonBatch, 0, checkedJsonLines).json?.lines as Uint8Array;
    expect(lines.buffer.byteLength).toBeLessThan(lines.byteLength * 1.15);
  });

  it('keep each value exactly as fetched, its size and its top-level field names', () => {
    const records = unpackBatch(packBatch(jsonBatch, 0, checkedJsonLines)).records;
    expect(records.map((r) => r.value?.toString('utf8'))).toEqual(values);
    // A value kept in its staged line counts as the line, which is what the record holds.
    expect(records.map((r) => r.byteLength)).toEqual(records.map((r, i) => (jsonMessages[i]?.key?.length ?? 0) + (r.stagedLine === undefined ? (jsonMessages[i]?.value?.length ?? 0) : (r.stagedLine.end - r.stagedLine.start))));
    expect(records.filter((r) => r.stagedLine !== undefined).every((r, i) => (r.byteLength as number) > (jsonMessages[i]?.value?.length ?? 0))).toBe(true);
    // What a batch's byte bound counts: the key and the value as fetched, wherever it is kept.
    expect(records.map((r) => r.fetchedBytes)).toEqual(jsonMessages.map((m) => (m.key?.length ?? 0) + (m.value?.length ?? 0)));
    expect(new Set(records[0]?.fieldNames)).toEqual(new Set(['id', 'name', 'nested', 'big']));
    expect(records[3]?.fieldNames).toBeUndefined();
  });
});
