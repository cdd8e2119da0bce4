/**
 * The Confluent header's registry id read in place (no payload view, no object per value) is the
 * id the full parse gives, up to 2^32 - 1, and nothing for a value without a header.
 */
import { expect, it } from 'vitest';
import { confluentSchemaId, encodeConfluentWire, parseConfluentWire } from '../../../connectors/kafka/confluent-wire.js';

it('reads the id the full parse reads, unsigned, and none for short values, other magic bytes and null', () => {
  for (const id of [0, 1, 300, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 5, 2 ** 32 - 1]) {
    const value = encodeConfluentWire(id, Buffer.from([2, 4, 6]));
    const parsed = parseConfluentWire(value);
    expect('schemaId' in parsed && parsed.schemaId).toBe(id);
    expect(confluentSchemaId(value)).toBe(id);
    expect(confluentSchemaId(value.subarray(0, 5))).toBe(id);
  }
  expect(confluentSchemaId(Buffer.from([0, 0, 0, 1]))).toBeUndefined();
  expect(confluentSchemaId(Buffer.from([1, 0, 0, 0, 1, 9]))).toBeUndefined();
  expect(confluentSchemaId(Buffer.from('{"id":1}'))).toBeUndefined();
  expect(confluentSchemaId(null)).toBeUndefined();
});
