/**
 * A kafkajs batch packed in the consumer's worker thread and unpacked on the main thread gives
 * back every record exactly: coordinates, timestamps, null and empty keys and values, repeated
 * headers, and the JSON byte check of the decoder.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { packBatch, transferables, unpackBatch } from '../../../connectors/kafka/packed-batch.js';

const messages: KafkaMessage[] = [
  { offset: '41', timestamp: '1764563000123', key: Buffer.from('k-1'), value: Buffer.from('{"a":1}'), headers: {}, attributes: 0 },
  { offset: '42', timestamp: '1764563000124', key: null, value: null, headers: { trace: [Buffer.from('t1'), Buffer.from('t2')], kind: Buffer.from('x') }, attributes: 0 },
  { offset: '43', timestamp: '1764563000125', key: Buffer.alloc(0), value: Buffer.from('[1,2]'), attributes: 0 },
  { offset: '9007199254740993', timestamp: '1764563000126', key: Buffer.from('ü'), value: Buffer.from('{"_kafka_offset":3}'), attributes: 0 },
] as KafkaMessage[];

const batch = { topic: 'orders', partition: 5, fetchedOffset: '40', messages, lastOffset: () => '9007199254740995' } as unknown as Batch;

describe('packed batches', () => {
  it('unpack to the records that were packed, with keys and values as views on one transferred buffer', () => {
    const packed = packBatch(batch, 3, true);
    expect(transferables(packed)).toHaveLength(5);
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
    const checked = unpackBatch(packBatch(batch, 0, true)).records;
    const unchecked = unpackBatch(packBatch(batch, 0, false)).records;
    expect(checked.map((r) => r.stageableJson)).toEqual(unchecked.map((r) => decoder.passesAsJson(r)));
    expect(checked.map((r) => r.stageableJson)).toEqual([true, false, false, false]);
    expect(unchecked.every((r) => r.stageableJson === undefined)).toBe(true);
  });
});
