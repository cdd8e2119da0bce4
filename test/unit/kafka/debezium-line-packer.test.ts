/**
 * Debezium JSON envelopes written into staged lines in the Kafka consumer's worker: the lines are
 * those the engine writes for the envelope decoder's values on the main thread, values that are
 * not plain envelopes get none and are decoded (or dead-lettered, naming the record and the
 * reason) on the main thread as before, and every value's fetched bytes travel with it.
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { debeziumEnvelopeDecoder } from '../../../connectors/kafka/debezium-envelope-decoder.js';
import { debeziumEnvelopeLines } from '../../../connectors/kafka/debezium-line-packer.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { packBatch, transferables, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import { stagedLines, type JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import { decodedRecord } from './records.js';

const source = { connector: 'postgresql', db: 'shop', table: 'users', lsn: 24023128, name: 'café "shop"' };
const ann = { id: 1, name: 'ann', tags: ['a', 'b'], address: { city: 'Lisbon', zip: null } };
const ann2 = { id: 1, name: 'ann b.', tags: [], address: null };

const envelope = (fields: Record<string, unknown>): string => JSON.stringify({ source, ts_ms: 1_764_000_000_200, ...fields });
const wrapped = (fields: Record<string, unknown>): string => JSON.stringify({ schema: { type: 'struct', fields: [{ field: 'op', type: 'string' }] }, payload: JSON.parse(envelope(fields)) });

/** Values by what they are; `lined` says whether the worker writes their line. */
const cases: Array<{ value: string | null; lined: boolean }> = [
  { value: envelope({ before: null, after: ann, op: 'c' }), lined: true },
  { value: null, lined: false },
  { value: envelope({ before: ann2, after: null, op: 'd' }), lined: true },
  { value: envelope({ before: ann2, op: 'd' }), lined: true },
  { value: wrapped({ before: ann, after: ann2, op: 'u' }), lined: true },
  { value: envelope({ before: null, after: ann2, op: 'u' }), lined: true },
  { value: envelope({ op: 'r', after: ann }), lined: true },
  { value: JSON.stringify({ op: 't', ts_ms: null }), lined: true },
  { value: envelope({ before: ann, after: ann2, op: 'c' }), lined: true },
  { value: envelope({ before: ann, after: ann2, op: 'd' }), lined: true },
  { value: '{broken', lined: false },
  { value: envelope({ before: null, after: ann }), lined: false },
  { value: wrapped({ before: null, after: ann }), lined: false },
  { value: envelope({ op: 'x', after: ann }), lined: false },
  { value: envelope({ op: 'c', after: null }), lined: false },
  { value: envelope({ op: 'd', before: null }), lined: false },
  { value: envelope({ op: 'c', after: [1] }), lined: false },
  { value: JSON.stringify({ schema: {}, payload: [1] }), lined: false },
  { value: '[1,2]', lined: false },
  // Valid envelopes the worker leaves to the decoder, which reads them differently from their bytes.
  { value: '{"op":"\\u0063","after":{"id":2}}', lined: false },
  { value: '{"op":"c","op":"u","after":{"id":2}}', lined: false },
  { value: '{"op":"c","after":{"id":2},"ts_ms":1.5e12}', lined: false },
  { value: '{\n"op":"c","after":{"id":2}}', lined: false },
];

const messages = cases.map(
  ({ value }, i): KafkaMessage =>
    ({
      offset: String(100 + i),
      timestamp: String(1_764_563_000_000 + i),
      key: i === 3 ? null : Buffer.from(i === 2 ? '{"id":"é"}' : `{"id":${i}}`),
      value: value === null ? null : Buffer.from(value),
      headers: i === 4 ? { trace: Buffer.from('t1') } : {},
      attributes: 0,
    }) as KafkaMessage,
);
const batch = { topic: 'shop.public.users', partition: 3, fetchedOffset: '100', messages, lastOffset: () => String(99 + messages.length) } as unknown as Batch;

/** The batch packed (with the worker's lines or without), moved as the worker posts it, and decoded on the main thread. */
function fetched(withLines: boolean, packing: Batch = batch) {
  const packed = packBatch(packing, 0, withLines ? debeziumEnvelopeLines : undefined);
  const raws = unpackBatch(structuredClone(packed, { transfer: transferables(packed) })).records;
  return { raws, decoded: decodeRecords(debeziumEnvelopeDecoder(new JsonDecoder({ alwaysParse: true })), raws) };
}

const text = (records: readonly JsonRecord[]): string => Buffer.concat(stagedLines(records).chunks).toString('utf8');

describe('Debezium JSON envelopes staged in the worker', () => {
  it('carry the shapes of their lines: the same for envelopes that differ in scalars only, another for another op or row structure', () => {
    const shapesOf = (values: string[]): ReadonlySet<number> => {
      const msgs = values.map((value, i) => ({ offset: String(i), timestamp: '0', key: null, value: Buffer.from(value), headers: {}, attributes: 0 }) as KafkaMessage);
      const packed = packBatch({ ...batch, messages: msgs, lastOffset: () => String(values.length - 1) } as unknown as Batch, 0, debeziumEnvelopeLines);
      return new Set(unpackBatch(packed).records.map((record) => record.shape as number));
    };
    const first = shapesOf([envelope({ before: null, after: ann, op: 'c' }), envelope({ before: ann, after: ann2, op: 'u' })]);
    expect(first.size).toBe(2);
    const bob = { ...ann, id: 2, name: 'bob', tags: ['c', 'd'] };
    expect(shapesOf([envelope({ before: bob, after: { ...ann2, id: 2 }, op: 'u' }), envelope({ before: null, after: bob, op: 'c' })])).toEqual(first);
    for (const other of [envelope({ before: null, after: ann, op: 'r' }), envelope({ before: null, after: { ...ann, email: 'a@b' }, op: 'c' }), envelope({ before: null, after: { ...ann, id: 1.5 }, op: 'c' })]) {
      expect([...shapesOf([other])].some((shape) => first.has(shape))).toBe(false);
    }
  });

  it('get their lines there, except tombstones and values that are not plain envelopes; the fetched values travel too', () => {
    const { raws } = fetched(true);
    expect(raws.map((r) => r.stagedLine !== undefined)).toEqual(cases.map((c) => c.lined));
    expect(raws.map((r) => r.value?.toString('utf8') ?? null)).toEqual(cases.map((c) => c.value));
  });

  it('are, byte for byte, the lines the engine writes for the values the main thread decodes', () => {
    const { decoded } = fetched(true);
    const lined = decoded.records.filter((r) => r.stagedLine !== undefined) as JsonRecord[];
    expect(lined).toHaveLength(cases.filter((c) => c.lined).length);
    const fromWorker = text(lined);
    expect(fromWorker).toBe(text(lined.map((r) => decodedRecord(r, r.value))));
    // Deletes stage their before image only, creates their after image only.
    expect(JSON.parse(fromWorker.split('\n')[1] as string)).toMatchObject({ _kafka_offset: 102, op: 'd', before: { name: 'ann b.' }, after: null, ts_ms: 1_764_000_000_200 });
    expect(JSON.parse(fromWorker.split('\n')[3] as string)).toMatchObject({ _kafka_offset: 104, op: 'u', before: ann, after: { name: 'ann b.' }, source, _kafka_headers: [{ key: 'trace', value: 't1' }] });
    expect(JSON.parse(fromWorker.split('\n')[6] as string)).toEqual(expect.objectContaining({ _kafka_offset: 107, op: 't', before: null, after: null, source: null, ts_ms: null }));
    expect(JSON.parse(fromWorker.split('\n')[7] as string)).toMatchObject({ op: 'c', before: null, after: { name: 'ann b.' } });
    expect(lined.every((r) => r.fieldNames?.join() === 'op,before,after,source,ts_ms')).toBe(true);
  });

  it('keep every digit of integers beyond 2^53 and the row images as written', () => {
    const value = '{"op":"u","before":null,"after":{"id":9007199254740993, "ratio":1.0},"source":{"lsn":1}}';
    const exact = fetched(true, { ...batch, messages: [{ ...messages[0], value: Buffer.from(value) }] } as unknown as Batch).decoded.records as JsonRecord[];
    expect(text(exact)).toContain(',"op":"u","before":null,"after":{"id":9007199254740993, "ratio":1.0},"source":{"lsn":1},"ts_ms":null}\n');
  });

  it('land what the main thread alone lands: the same values, tombstones skipped, malformed values dead-lettered with their reasons', () => {
    const withLines = fetched(true).decoded;
    const bare = fetched(false).decoded;
    expect(withLines.records.map((r) => [r.offset, r.value, r.raw])).toEqual(bare.records.map((r) => [r.offset, r.value, r.raw]));
    expect(withLines.skipped).toEqual({ tombstone: 1 });
    expect(bare.skipped).toEqual({ tombstone: 1 });
    expect(withLines.deadLetters).toEqual(bare.deadLetters);
    expect(withLines.deadLetters.map((d) => [d.topic, d.partition, d.offset, d.reason])).toEqual([
      ['shop.public.users', 3, 110n, expect.stringMatching(/^invalid JSON/)],
      ['shop.public.users', 3, 111n, expect.stringMatching(/^not a Debezium envelope: .*\(op\)$/)],
      ['shop.public.users', 3, 112n, expect.stringMatching(/^not a Debezium envelope: .*\(op\)$/)],
      ['shop.public.users', 3, 113n, expect.stringMatching(/^not a Debezium envelope: .*\(op\)$/)],
      ['shop.public.users', 3, 114n, 'Debezium op "c" without a "after" row image'],
      ['shop.public.users', 3, 115n, 'Debezium op "d" without a "before" row image'],
      ['shop.public.users', 3, 116n, expect.stringMatching(/^not a Debezium envelope: expected an object \(after\)$/)],
      ['shop.public.users', 3, 117n, expect.stringMatching(/^not a Debezium envelope: /)],
      ['shop.public.users', 3, 118n, 'expected a JSON object, got an array'],
    ]);
    expect(withLines.deadLetters[0]?.value?.toString('utf8')).toBe('{broken');
    // Left to the decoder: an escaped op, an op given twice (the last wins), a ts_ms in exponent form, a value over two lines.
    expect(withLines.records.slice(-4).map((r) => [r.value['op'], r.value['ts_ms'], r.stagedLine])).toEqual([
      ['c', null, undefined],
      ['u', null, undefined],
      ['c', 1.5e12, undefined],
      ['c', null, undefined],
    ]);
  });
});
