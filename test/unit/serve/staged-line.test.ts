import { describe, expect, it } from 'vitest';
import { reservedFieldOf, stagedLine, type JsonRecord } from '../../../src/engine/graph/streaming/batch-staging.js';

const record = (value: Record<string, unknown>, key: Buffer | null = Buffer.from('k"1')): JsonRecord => ({
  topic: 'orders',
  partition: 3,
  offset: 9007199254740993n,
  timestampMs: 1_700_000_000_000,
  key,
  headers: [],
  value,
});

describe('staged batch lines', () => {
  it('puts the coordinates beside the value’s fields as one JSON object, int64 offsets exact', () => {
    const line = stagedLine(record({ id: 1, nested: { a: [1, 2] } }));
    expect(line).toBe('{"_kafka_partition":3,"_kafka_offset":9007199254740993,"_kafka_timestamp":1700000000000,"_kafka_key":"k\\"1","id":1,"nested":{"a":[1,2]}}');
    expect(JSON.parse(line.replace('9007199254740993', '0'))).toMatchObject({ _kafka_key: 'k"1', id: 1, nested: { a: [1, 2] } });
  });

  it('writes an empty value and a null key', () => {
    expect(JSON.parse(stagedLine(record({}, null)))).toEqual({ _kafka_partition: 3, _kafka_offset: 9007199254740993, _kafka_timestamp: 1_700_000_000_000, _kafka_key: null });
  });

  it('finds a value field that collides with a coordinate column', () => {
    expect(reservedFieldOf({ id: 1, _kafka_offset: 2 })).toBe('_kafka_offset');
    expect(reservedFieldOf({ id: 1, offset: 2 })).toBeUndefined();
  });
});
