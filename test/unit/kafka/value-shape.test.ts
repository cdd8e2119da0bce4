/**
 * Value shapes: the byte check's (json-object-check.ts) and a parsed value's (shapeOfValue) agree;
 * scalars do not change a shape, while anything that changes how DuckDB types or reads a value
 * does (a key, its order or depth, a fraction, a null, an array's length).
 */
import type { Batch, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { checkedShape, isStageableJsonObject } from '../../../connectors/kafka/json-object-check.js';
import { checkedJsonLines, packBatch, unpackBatch } from '../../../connectors/kafka/packed-batch.js';
import { shapeOfValue, shapeWith } from '../../../connectors/kafka/value-shape.js';

function bytesShape(json: string): number {
  expect(isStageableJsonObject(Buffer.from(json), [])).toBe(true);
  return checkedShape();
}

const SAME_SHAPE = [
  ['{"a":1,"b":"x","c":{"d":[1,2],"e":null,"f":true}}', '{"a":-70,"b":"another","c":{"d":[3,4],"e":null,"f":false}}'],
  ['{"é":1.5,"n":{"m":{}}}', '{"é":-2.25,"n":{"m":{}}}'],
  ['{}', ' { } '],
];
const OTHER_SHAPES = [
  '{"a":1,"b":"x"}',
  '{"b":"x","a":1}',
  '{"a":1.5,"b":"x"}',
  '{"a":null,"b":"x"}',
  '{"a":true,"b":"x"}',
  '{"a":"1","b":"x"}',
  '{"a":1,"b":"x","c":2}',
  '{"a":{"b":"x"}}',
  '{"a":{"b":"x","c":1}}',
  '{"a":[1]}',
  '{"a":[1,2]}',
  '{"a":[{"b":1}]}',
  '{"a":[{"c":1}]}',
  '{"ab":1}',
  '{"a":{"b":1}}',
];

describe('value shapes', () => {
  it('are the same for values that differ only in their scalars, from bytes and from parsed values alike', () => {
    for (const [one, other] of SAME_SHAPE as [string, string][]) {
      expect(bytesShape(one)).toBe(bytesShape(other));
      expect(shapeOfValue(JSON.parse(one))).toBe(bytesShape(one));
      expect(shapeOfValue(JSON.parse(other))).toBe(bytesShape(other));
    }
  });

  it('differ for every change in keys, their order or nesting, a kind of value or an array length', () => {
    const shapes = OTHER_SHAPES.map(bytesShape);
    expect(new Set(shapes).size).toBe(OTHER_SHAPES.length);
    expect(OTHER_SHAPES.map((json) => shapeOfValue(JSON.parse(json)))).toEqual(shapes);
    for (const shape of shapes) expect(Number.isSafeInteger(shape) && shape >= 0).toBe(true);
  });

  it('count a number with an exponent as one with a fraction in bytes (DuckDB reads both as DOUBLE), a parsed integer as an integer', () => {
    expect(bytesShape('{"a":1e3}')).toBe(bytesShape('{"a":1.5}'));
    expect(shapeOfValue(JSON.parse('{"a":1e3}'))).toBe(bytesShape('{"a":1000}'));
  });

  it('take one more token apart: a Debezium op', () => {
    const shape = bytesShape('{"op":"c","after":{"id":1}}');
    expect(shapeWith(shape, 0x63)).not.toBe(shapeWith(shape, 0x75));
    expect(shapeWith(shape, 0x63)).toBe(shapeWith(bytesShape('{"op":"u","after":{"id":7}}'), 0x63));
  });

  it('leave out what JSON.stringify leaves out of a parsed value', () => {
    expect(shapeOfValue({ a: 1, b: undefined, c: () => 1 })).toBe(bytesShape('{"a":1}'));
    expect(shapeOfValue({ a: [undefined], n: Number.NaN })).toBe(bytesShape('{"a":[null],"n":null}'));
  });

  it('of a fetched batch travel with its records from the worker', () => {
    const values = [SAME_SHAPE[0]![0]!, SAME_SHAPE[0]![1]!, OTHER_SHAPES[0]!, 'not json'];
    const messages = values.map((value, i) => ({ offset: String(i), timestamp: '0', key: null, value: Buffer.from(value), headers: {}, attributes: 0 }) as KafkaMessage);
    const batch = { topic: 't', partition: 0, fetchedOffset: '0', messages, lastOffset: () => String(values.length - 1) } as unknown as Batch;
    const records = unpackBatch(packBatch(batch, 0, checkedJsonLines)).records;
    expect(records.map((r) => r.shape)).toEqual([bytesShape(values[0]!), bytesShape(values[0]!), bytesShape(values[2]!), undefined]);
  });
});
