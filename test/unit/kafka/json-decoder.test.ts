import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../connectors/kafka/decode-error.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { rawRecord } from './records.js';

describe('JSON decoder', () => {
  it('turns a record into its object, keeping coordinates, key and headers', () => {
    const header = { key: 'trace', value: Buffer.from('abc') };
    const raw = rawRecord('{"id": 7, "name": "café", "tags": ["a"]}', { headers: [header] });
    const batch = decodeRecords(new JsonDecoder(), [raw]);
    expect(batch.deadLetters).toEqual([]);
    expect(batch.records.map(({ topic, partition, offset, timestampMs, key, headers, value }) => ({ topic, partition, offset, timestampMs, key, headers, value }))).toEqual([
      { topic: 'orders', partition: 2, offset: 41n, timestampMs: raw.timestampMs, key: Buffer.from('k-1'), headers: [header], value: { id: 7, name: 'café', tags: ['a'] } },
    ]);
  });

  it('hands a stageable object on as its fetched bytes and parses it only when the value is read', () => {
    const raw = rawRecord('{"id": 7, "name": "café"}');
    const [record] = decodeRecords(new JsonDecoder(), [raw]).records;
    expect(record?.json).toBe(raw.value);
    expect(record?.raw).toBe(raw.value);
    expect(record?.value).toEqual({ id: 7, name: 'café' });
  });

  it('decodes values the byte check does not vouch for, keeping their fetched bytes', () => {
    const values = ['{"_kafka_offset": 1, "id": 2}', '{"a":\n1}', '{"\\u0061": 1}'];
    const batch = decodeRecords(new JsonDecoder(), values.map((v, i) => rawRecord(v, { offset: BigInt(i) })));
    expect(batch.records.map((r) => [r.json, r.value, r.raw?.toString('utf8')])).toEqual([
      [undefined, { _kafka_offset: 1, id: 2 }, values[0]],
      [undefined, { a: 1 }, values[1]],
      [undefined, { a: 1 }, values[2]],
    ]);
  });

  it('parses every value when alwaysParse is set', () => {
    const [record] = decodeRecords(new JsonDecoder({ alwaysParse: true }), [rawRecord('{"id": 1}')]).records;
    expect([record?.json, record?.value]).toEqual([undefined, { id: 1 }]);
  });

  it('keeps integers beyond 2^53 exact when asked to', () => {
    const raw = rawRecord('{"id": 9007199254740993}');
    expect(new JsonDecoder({ exactIntegers: true }).decode(raw)).toEqual({ value: { id: 9007199254740993n } });
  });

  it('throws a DecodeError with the coordinates, raw bytes and reason for bad JSON', () => {
    const raw = rawRecord('{"id": 7,', { offset: 1234n });
    let caught: unknown;
    try {
      new JsonDecoder().decode(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DecodeError);
    const error = caught as DecodeError;
    expect([error.record.topic, error.record.partition, error.record.offset]).toEqual(['orders', 2, 1234n]);
    expect(error.raw).toEqual(Buffer.from('{"id": 7,'));
    expect(error.reason).toMatch(/^invalid JSON/);
    expect(error.code).toBe('DECODE_FAILED');
    expect(error.retryable).toBe(false);
  });

  it('makes bad records dead-letter candidates in order while the rest decode', () => {
    const raws = [
      rawRecord('{"n":1}', { offset: 10n }),
      rawRecord('not json', { offset: 11n }),
      rawRecord('[1,2]', { offset: 12n }),
      rawRecord(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), { offset: 13n }),
      rawRecord(null, { offset: 14n }),
      rawRecord('{"n":2}', { offset: 15n }),
    ];
    const batch = decodeRecords(new JsonDecoder(), raws);
    expect(batch.records.map((r) => [r.offset, r.value])).toEqual([
      [10n, { n: 1 }],
      [15n, { n: 2 }],
    ]);
    expect(batch.deadLetters.map((d) => [d.offset, d.code, d.value?.toString('latin1')])).toEqual([
      [11n, 'DECODE_FAILED', 'not json'],
      [12n, 'DECODE_FAILED', '[1,2]'],
      [13n, 'DECODE_FAILED', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]).toString('latin1')],
    ]);
    expect(batch.deadLetters[1]?.reason).toBe('expected a JSON object, got an array');
    expect(batch.deadLetters[2]?.reason).toMatch(/invalid JSON or UTF-8/);
    expect(batch.skipped).toEqual({ tombstone: 1 });
  });
});
