/**
 * hasFieldsOutside: top-level keys of checked JSON bytes and of parsed values, against the
 * columns a batch was read with. Keys inside nested values and inside strings do not count.
 */
import { describe, expect, it } from 'vitest';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import type { Batch, KafkaMessage } from 'kafkajs';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { checkedJsonLines, packBatch, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import type { JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';
import { hasFieldsOutside } from '../../../src/engine/graph/streaming/new-fields.js';
import { decodedRecord, rawRecord } from '../kafka/records.js';

const KNOWN = ['id', 'name', 'nested', 'tags'];

const records = (values: string[]): JsonRecord[] =>
  decodeRecords(new JsonDecoder(), values.map((v, i) => rawRecord(v, { offset: BigInt(i) }))).records as JsonRecord[];

describe('hasFieldsOutside', () => {
  it('reads the field names the consumer found while packing a batch (one list per packed batch), not the bytes', () => {
    const message = (offset: number, value: string): KafkaMessage => ({ offset: String(offset), timestamp: '1', key: null, value: Buffer.from(value), attributes: 0 }) as KafkaMessage;
    const packed = (values: string[]): JsonRecord[] => {
      const batch = { topic: 't', partition: 0, fetchedOffset: '0', messages: values.map((v, i) => message(i, v)), lastOffset: () => String(values.length - 1) } as unknown as Batch;
      return decodeRecords(new JsonDecoder(), unpackBatch(packBatch(batch, 0, checkedJsonLines)).records).records as JsonRecord[];
    };
    const same = packed(['{"id":1,"name":"a"}', '{"id":2,"name":"b"}', '{"name":"c","id":3}']);
    expect(same[0]?.fieldNames).toBe(same[2]?.fieldNames);
    expect(hasFieldsOutside(same, KNOWN)).toBe(false);
    // A key only one record has, after many with the same keys; and one whose bytes differ in length.
    expect(hasFieldsOutside(packed([...Array.from({ length: 50 }, (_, i) => `{"id":${i},"name":"a"}`), '{"id":1,"name":"a","extra":2}']), KNOWN)).toBe(true);
    expect(hasFieldsOutside(packed(['{"id":1,"name":"a"}', '{"id":1,"names":"a"}']), KNOWN)).toBe(true);
  });

  it('sees no new field when every top-level key is a column', () => {
    const batch = records([
      '{"id":1,"name":"a"}',
      ' { "id" : 2 , "name" : "x\\"y}{" , "tags" : [1,{"z":2}] } ',
      '{"nested":{"deep":{"other":[{"k":"}"}]}},"id":-1.5e3}',
      '{}',
      '{"id":null,"name":true}',
    ]);
    expect(batch.every((r) => r.json !== undefined)).toBe(true);
    expect(hasFieldsOutside(batch, KNOWN)).toBe(false);
  });

  it('finds a new top-level key in checked bytes, after nested values and strings holding braces and quotes', () => {
    expect(hasFieldsOutside(records(['{"id":1}', '{"name":"a\\\\","nested":{"x":"}"},"extra":1}']), KNOWN)).toBe(true);
    expect(hasFieldsOutside(records(['{"id":1,"ñame":2}']), KNOWN)).toBe(true);
    // The reader matches names exactly: another case is another field.
    expect(hasFieldsOutside(records(['{"id":1,"NAME":2}']), KNOWN)).toBe(true);
  });

  it('finds the end of long strings (searched natively past the first bytes) across escaped quotes and backslashes', () => {
    const long = 'y'.repeat(30);
    // Values whose escaped quotes and backslashes fall before and after the natively searched part.
    const known = [
      `{"name":"${long}\\""}`,
      `{"name":"${long}\\\\","id":1}`,
      `{"name":"${'z'.repeat(23)}\\\\","id":1}`,
      `{"name":"${'z'.repeat(23)}\\"${long}","id":1}`,
      `{"name":"a\\"${long}\\\\\\"${long}\\\\","nested":{"x":"${long}\\"}"}}`,
    ];
    // Every value is valid JSON, passed as checked bytes (not a dead letter).
    expect(records(known).filter((r) => r.json !== undefined)).toHaveLength(known.length);
    expect(hasFieldsOutside(records(known), KNOWN)).toBe(false);
    expect(hasFieldsOutside(records([`{"name":"${long}\\\\","${long}":1}`]), KNOWN)).toBe(true);
    expect(hasFieldsOutside(records([`{"name":"${'z'.repeat(23)}\\"${long}","fresh":1}`]), KNOWN)).toBe(true);
  });

  it('decodes escaped keys before comparing them', () => {
    const batch = records(['{"i\\u0064":1}']);
    expect(hasFieldsOutside(batch, KNOWN)).toBe(false);
    expect(hasFieldsOutside(records(['{"n\\u0065w":1}']), KNOWN)).toBe(true);
  });

  it('reads the keys of values that were parsed instead of checked', () => {
    const parsed = (value: Record<string, unknown>): JsonRecord => decodedRecord(records(['{}'])[0] as JsonRecord, value);
    expect(hasFieldsOutside([parsed({ id: 1, name: 'a' })], KNOWN)).toBe(false);
    expect(hasFieldsOutside([parsed({ id: 1, fresh: 'a' })], KNOWN)).toBe(true);
  });
});
