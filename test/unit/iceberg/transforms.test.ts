/**
 * Partition transforms in TypeScript against the spec's vectors (ICEBERG.md §5, the Iceberg
 * spec's Appendix B hash table): parsing, result types, source checks and values.
 */
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { applyTransform, bindTransform } from '../../../src/iceberg/transforms/apply.js';
import { bucketHash, bucketHashInput } from '../../../src/iceberg/transforms/bucket.js';
import { murmur3Hash, murmur3HashLong } from '../../../src/iceberg/transforms/murmur3.js';
import { canTransform, transformResultType } from '../../../src/iceberg/transforms/result-type.js';
import { bucket, parseTransform, transformToString, truncate } from '../../../src/iceberg/transforms/transform.js';
import type { Transform } from '../../../src/iceberg/transforms/transform.js';
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import type { IcebergType, PrimitiveType } from '../../../src/iceberg/types.js';
import { daysOf, HASH_VECTORS, SPEC_INSTANT } from './transforms-spec-vectors.js';

const T = (kind: Parameters<typeof primitive>[0]): PrimitiveType => primitive(kind);
const TS = SPEC_INSTANT;

describe('transform strings', () => {
  it('parses and prints every transform', () => {
    for (const text of ['identity', 'bucket[16]', 'truncate[4]', 'year', 'month', 'day', 'hour', 'void']) {
      expect(transformToString(parseTransform(text))).toBe(text);
    }
    expect(parseTransform('bucket[16]')).toEqual({ kind: 'bucket', numBuckets: 16 });
    expect(parseTransform(' Truncate[ 4 ] ')).toEqual({ kind: 'truncate', width: 4 });
    expect(parseTransform('days')).toEqual({ kind: 'day' });
    expect(parseTransform('alwaysNull')).toEqual({ kind: 'void' });
  });

  it('keeps an unknown transform as text and refuses to compute with it', () => {
    const unknown = parseTransform('zorder[3]');
    expect(unknown).toEqual({ kind: 'unknown', text: 'zorder[3]' });
    expect(transformToString(unknown)).toBe('zorder[3]');
    expect(canTransform(unknown, T('int'))).toBe(false);
    expect(() => transformResultType(unknown, T('int'), { partitionField: 'z' })).toThrow(/Partition field z: unknown transform 'zorder\[3\]'/);
  });

  it('refuses a zero or negative bucket count or width', () => {
    expect(() => parseTransform('bucket[0]')).toThrow(IcebergFormatError);
    expect(() => truncate(0)).toThrow(/truncate parameter/);
    expect(() => bucket(-1)).toThrow(/bucket parameter/);
  });
});

describe('result types and accepted sources', () => {
  const site = { partitionField: 'p', sourceColumn: 'c' };
  it('gives the spec result type of each transform', () => {
    const ts = T('timestamptz');
    expect(transformResultType(parseTransform('identity'), ts, site)).toEqual(ts);
    expect(transformResultType(parseTransform('bucket[8]'), T('string'), site)).toEqual(T('int'));
    expect(transformResultType(parseTransform('truncate[2]'), decimal(9, 2), site)).toEqual(decimal(9, 2));
    expect(transformResultType(parseTransform('year'), ts, site)).toEqual(T('int'));
    expect(transformResultType(parseTransform('month'), T('date'), site)).toEqual(T('int'));
    expect(transformResultType(parseTransform('day'), T('timestamp_ns'), site)).toEqual(T('date'));
    expect(transformResultType(parseTransform('hour'), ts, site)).toEqual(T('int'));
    expect(transformResultType(parseTransform('void'), T('double'), site)).toEqual(T('double'));
  });

  it('refuses sources the spec does not allow, naming field, column and transform', () => {
    const refused: [string, IcebergType][] = [
      ['bucket[4]', T('double')],
      ['bucket[4]', T('boolean')],
      ['truncate[4]', T('date')],
      ['truncate[4]', fixed(3)],
      ['year', T('time')],
      ['hour', T('date')],
      ['day', T('long')],
      ['identity', { kind: 'struct', fields: [] }],
    ];
    for (const [text, type] of refused) {
      expect(canTransform(parseTransform(text), type), `${text} on ${type.kind}`).toBe(false);
      expect(() => transformResultType(parseTransform(text), type, site), `${text} on ${type.kind}`).toThrow(IcebergFormatError);
    }
    expect(() => transformResultType(parseTransform('bucket[4]'), T('double'), site)).toThrow(
      /Partition field p: transform bucket\[4\] cannot be applied to source column c of type double \(it accepts int, long, decimal/,
    );
    expect(() => transformResultType(parseTransform('identity'), { kind: 'struct', fields: [] }, site)).toThrow(/must be primitive/);
  });
});

describe('bucket', () => {
  it('hashes every spec vector', () => {
    for (const { name, type, value, hash } of HASH_VECTORS) expect(bucketHash(type, value), name).toBe(hash);
  });

  it('feeds murmur3 the spec byte forms', () => {
    expect([...bucketHashInput(T('int'), 34)]).toEqual([34, 0, 0, 0, 0, 0, 0, 0]);
    expect([...bucketHashInput(T('date'), -1)]).toEqual([255, 255, 255, 255, 255, 255, 255, 255]);
    expect([...bucketHashInput(decimal(9, 2), 1420n)]).toEqual([0x05, 0x8c]);
    expect([...bucketHashInput(T('uuid'), 'f79c3e09-677c-4bbd-a479-3f349cb785e7')]).toEqual([
      0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7,
    ]);
    for (const { name, type, value, hash } of HASH_VECTORS) expect(murmur3Hash(bucketHashInput(type, value)), name).toBe(hash);
  });

  it('matches the spec hashes of values that are not bucket sources (murmur3 itself)', () => {
    expect(murmur3HashLong(1n)).toBe(1392991556); // boolean true, hashed as long 1
    const double = (v: number): Uint8Array => {
      const out = new Uint8Array(8);
      new DataView(out.buffer).setFloat64(0, v, true);
      return out;
    };
    expect(murmur3Hash(double(1.0))).toBe(-142385009);
    expect(murmur3Hash(double(0.0))).toBe(1669671676);
    expect(murmur3Hash(new Uint8Array(0))).toBe(0);
  });

  it('gives the spec bucket numbers', () => {
    const cases: [PrimitiveType, unknown, number, number][] = [
      [T('int'), 34, 3, 79],
      [T('string'), 'iceberg', 9, 89],
      [decimal(9, 2), 1420n, 3, 59],
    ];
    for (const [type, value, b16, b100] of cases) {
      expect(applyTransform(bucket(16), type, value)).toBe(b16);
      expect(applyTransform(bucket(100), type, value)).toBe(b100);
    }
  });

  it('the long path and the byte path agree on random longs, negative ones included', () => {
    for (let i = 0; i < 2000; i++) {
      const v = BigInt.asIntN(64, BigInt(Math.floor(Math.random() * 2 ** 32)) * BigInt(Math.floor(Math.random() * 2 ** 32)) - (1n << 62n));
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setBigInt64(0, v, true);
      expect(murmur3HashLong(v)).toBe(murmur3Hash(bytes));
    }
  });
});

describe('truncate', () => {
  it('gives the spec examples', () => {
    expect(applyTransform(truncate(10), T('int'), 1)).toBe(0);
    expect(applyTransform(truncate(10), T('int'), -1)).toBe(-10);
    expect(applyTransform(truncate(10), T('long'), -1n)).toBe(-10n);
    expect(applyTransform(truncate(50), decimal(9, 2), 1065n)).toBe(1050n); // 10.65 → 10.50
    expect(applyTransform(truncate(3), T('string'), 'iceberg')).toBe('ice');
    expect([...(applyTransform(truncate(2), T('binary'), Uint8Array.of(1, 2, 3)) as Uint8Array)]).toEqual([1, 2]);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(applyTransform(truncate(2), T('string'), '𝄞𝄞𝄞')).toBe('𝄞𝄞');
    expect(applyTransform(truncate(1), T('string'), 'é𝄞')).toBe('é');
    expect(applyTransform(truncate(4), T('string'), '')).toBe('');
  });
});

describe('time transforms', () => {
  const ts = T('timestamptz');
  it('give the spec values for 2017-11-16T22:31:08Z', () => {
    expect(applyTransform(parseTransform('day'), ts, TS)).toBe(17486);
    expect(applyTransform(parseTransform('hour'), ts, TS)).toBe(419686);
    expect(applyTransform(parseTransform('month'), ts, TS)).toBe(574);
    expect(applyTransform(parseTransform('year'), ts, TS)).toBe(47);
    expect(applyTransform(parseTransform('day'), T('date'), daysOf('2017-11-16'))).toBe(17486);
    expect(applyTransform(parseTransform('month'), T('date'), daysOf('2017-11-16'))).toBe(574);
    expect(applyTransform(parseTransform('year'), T('timestamp_ns'), TS * 1000n)).toBe(47);
  });

  it('round toward −∞ before the epoch', () => {
    for (const [transform, expected] of [['day', -1], ['hour', -1], ['month', -1], ['year', -1]] as const) {
      expect(applyTransform(parseTransform(transform), ts, -1n), transform).toBe(expected);
      expect(applyTransform(parseTransform(transform), T('timestamp_ns'), -1n), `${transform} ns`).toBe(expected);
    }
    expect(applyTransform(parseTransform('year'), T('date'), -1)).toBe(-1);
    expect(applyTransform(parseTransform('month'), T('date'), daysOf('1969-01-31'))).toBe(-12);
    expect(applyTransform(parseTransform('year'), T('date'), daysOf('1900-03-01'))).toBe(-70);
  });

  it('agree with the JS calendar on random instants over ±2000 years', () => {
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor((Math.random() - 0.5) * 2 * 2000 * 365.25 * 86_400_000);
      const micros = BigInt(ms) * 1000n + BigInt(Math.floor(Math.random() * 1000));
      const d = new Date(ms);
      const years = d.getUTCFullYear() - 1970;
      expect(applyTransform(parseTransform('year'), ts, micros)).toBe(years);
      expect(applyTransform(parseTransform('month'), ts, micros)).toBe(years * 12 + d.getUTCMonth());
      expect(applyTransform(parseTransform('day'), ts, micros)).toBe(Math.floor(ms / 86_400_000));
      expect(applyTransform(parseTransform('hour'), ts, micros)).toBe(Math.floor(ms / 3_600_000));
    }
  });
});

describe('identity and void', () => {
  it('pass values through, null stays null, and refuse values of the wrong form', () => {
    const id: Transform = parseTransform('identity');
    expect(applyTransform(id, T('long'), 5n)).toBe(5n);
    expect(applyTransform(id, T('long'), null)).toBeNull();
    expect(applyTransform(parseTransform('void'), T('long'), 5n)).toBeNull();
    expect(() => applyTransform(id, T('int'), 'x')).toThrow(IcebergFormatError);
    for (const text of ['bucket[4]', 'truncate[4]', 'day', 'year']) {
      const source = text === 'day' || text === 'year' ? T('date') : T('int');
      expect(bindTransform(parseTransform(text), source, { partitionField: 'p' }).apply(null), text).toBeNull();
    }
  });
});
