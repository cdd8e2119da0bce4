import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import {
  compareValues,
  decodeSingleValue,
  encodeSingleValue,
  truncateLowerBound,
  truncateUpperBound,
} from '../../../src/iceberg/bounds.js';
import type { PrimitiveType } from '../../../src/iceberg/types.js';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
const T = (kind: string): PrimitiveType => ({ kind }) as PrimitiveType;
const dec = (precision: number, scale: number): PrimitiveType => ({ kind: 'decimal', precision, scale });

function roundTrip(type: PrimitiveType, value: unknown, expectedHex: string): void {
  const bytes = encodeSingleValue(type, value);
  expect(hex(bytes)).toBe(expectedHex);
  expect(decodeSingleValue(type, bytes)).toEqual(value);
}

describe('single-value encoding: every vector in ICEBERG.md §4', () => {
  it('int 34', () => roundTrip(T('int'), 34, '22 00 00 00'));
  it('date 2017-11-16 = 17486', () => roundTrip(T('date'), 17486, '4e 44 00 00'));
  it('timestamp 2017-11-16T22:31:08', () => roundTrip(T('timestamp'), 1510871468000000n, '00 c3 26 2d 21 5e 05 00'));
  it('decimal 14.20', () => roundTrip(dec(4, 2), 1420n, '05 8c'));
  it('decimal 0', () => roundTrip(dec(9, 2), 0n, '00'));
  it('decimal 1.28', () => roundTrip(dec(9, 2), 128n, '00 80'));
  it('double 1.0', () => roundTrip(T('double'), 1.0, '00 00 00 00 00 00 f0 3f'));
  it('uuid f79c3e09-677c-4bbd-a479-3f349cb785e7', () =>
    roundTrip(T('uuid'), 'f79c3e09-677c-4bbd-a479-3f349cb785e7', 'f7 9c 3e 09 67 7c 4b bd a4 79 3f 34 9c b7 85 e7'));
  it('boolean', () => {
    roundTrip(T('boolean'), false, '00');
    roundTrip(T('boolean'), true, '01');
    expect(decodeSingleValue(T('boolean'), Uint8Array.of(7))).toBe(true);
  });
  it('string is UTF-8 with no length prefix', () => roundTrip(T('string'), 'iceberg é𝄞', '69 63 65 62 65 72 67 20 c3 a9 f0 9d 84 9e'));
  it('fixed and binary are raw bytes', () => {
    roundTrip({ kind: 'fixed', length: 3 }, Uint8Array.of(1, 2, 255), '01 02 ff');
    roundTrip(T('binary'), Uint8Array.of(), '');
  });
});

describe('single-value encoding: more cases', () => {
  it('negative decimals use minimal big-endian two\'s complement (Java BigInteger.toByteArray)', () => {
    roundTrip(dec(4, 2), -1n, 'ff');
    roundTrip(dec(4, 2), -128n, '80');
    roundTrip(dec(4, 2), -129n, 'ff 7f');
    roundTrip(dec(4, 2), 127n, '7f');
    roundTrip(dec(4, 2), -1234n, 'fb 2e');
    roundTrip(dec(9, 2), -32768n, '80 00');
    roundTrip(dec(9, 2), 32768n, '00 80 00');
    roundTrip(dec(38, 0), 10n ** 38n - 1n, '4b 3b 4c a8 5a 86 c4 7a 09 8a 22 3f ff ff ff ff');
    roundTrip(dec(38, 0), -(10n ** 38n - 1n), 'b4 c4 b3 57 a5 79 3b 85 f6 75 dd c0 00 00 00 01');
  });
  it('negative ints, longs and times are little-endian two\'s complement', () => {
    roundTrip(T('int'), -1, 'ff ff ff ff');
    roundTrip(T('date'), -1, 'ff ff ff ff');
    roundTrip(T('long'), -2n, 'fe ff ff ff ff ff ff ff');
    roundTrip(T('timestamptz'), -1n, 'ff ff ff ff ff ff ff ff');
    roundTrip(T('timestamp_ns'), 9223372036854775807n, 'ff ff ff ff ff ff ff 7f');
    roundTrip(T('time'), 86400000000n, '00 60 d7 1d 14 00 00 00');
  });
  it('floats keep -0.0 and infinities', () => {
    roundTrip(T('double'), -0, '00 00 00 00 00 00 00 80');
    roundTrip(T('float'), -0, '00 00 00 80');
    roundTrip(T('float'), 1.5, '00 00 c0 3f');
    roundTrip(T('float'), -Infinity, '00 00 80 ff');
    expect(Object.is(decodeSingleValue(T('double'), encodeSingleValue(T('double'), -0)), -0)).toBe(true);
  });
  it('reads promoted 4-byte values as long / double (Java Conversions)', () => {
    expect(decodeSingleValue(T('long'), Uint8Array.of(0xfe, 0xff, 0xff, 0xff))).toBe(-2n);
    expect(decodeSingleValue(T('double'), Uint8Array.of(0, 0, 0xc0, 0x3f))).toBe(1.5);
  });
  it('uuid decodes to lowercase and encodes either case', () => {
    const bytes = encodeSingleValue(T('uuid'), 'F79C3E09-677C-4BBD-A479-3F349CB785E7');
    expect(decodeSingleValue(T('uuid'), bytes)).toBe('f79c3e09-677c-4bbd-a479-3f349cb785e7');
  });
  it('rejects values that do not fit the type', () => {
    const bad = (type: PrimitiveType, v: unknown): void => expect(() => encodeSingleValue(type, v)).toThrow(IcebergFormatError);
    bad(T('int'), 2 ** 31);
    bad(T('int'), 1.5);
    bad(T('long'), 1n << 63n);
    bad(dec(4, 2), 10000n);
    bad(dec(4, 2), 1.5);
    bad(T('uuid'), 'not-a-uuid');
    bad({ kind: 'fixed', length: 2 }, Uint8Array.of(1));
    bad(T('string'), 'a\uD800b');
    bad(T('unknown'), null);
    expect(() => decodeSingleValue(T('int'), Uint8Array.of(1, 2))).toThrow(/4 bytes/);
    expect(() => decodeSingleValue(T('string'), Uint8Array.of(0xff))).toThrow();
    expect(() => decodeSingleValue(dec(4, 2), Uint8Array.of())).toThrow(IcebergFormatError);
  });
});

describe('bound truncation (Java convention)', () => {
  const S = T('string');
  const B = T('binary');
  it('keeps values at or under the width', () => {
    expect(truncateLowerBound(S, 'abc', 3)).toBe('abc');
    expect(truncateUpperBound(S, 'abc', 3)).toBe('abc');
    expect(truncateUpperBound(B, Uint8Array.of(1, 2), 2)).toEqual(Uint8Array.of(1, 2));
  });
  it('counts code points, not UTF-16 units', () => {
    const v = '𝄞𝄞𝄞x';
    expect(truncateLowerBound(S, v, 2)).toBe('𝄞𝄞');
    expect(truncateUpperBound(S, v, 2)).toBe('𝄞\u{1D11F}');
  });
  it('increments the last code point and cuts after it', () => {
    expect(truncateLowerBound(S, 'abcdef', 3)).toBe('abc');
    expect(truncateUpperBound(S, 'abcdef', 3)).toBe('abd');
  });
  it('skips the surrogate range: U+D7FF becomes U+E000', () => {
    expect(truncateUpperBound(S, 'a\uD7FFzz', 2)).toBe('a\uE000');
  });
  it('drops U+10FFFF that overflows and moves left; all overflow → no bound', () => {
    expect(truncateUpperBound(S, 'ab\u{10FFFF}\u{10FFFF}c', 4)).toBe('ac');
    expect(truncateUpperBound(S, '\u{10FFFF}\u{10FFFF}x', 2)).toBeNull();
  });
  it('binary: bytes, 0xFF overflows', () => {
    expect(truncateLowerBound(B, Uint8Array.of(1, 2, 3, 4), 2)).toEqual(Uint8Array.of(1, 2));
    expect(truncateUpperBound(B, Uint8Array.of(1, 2, 3, 4), 2)).toEqual(Uint8Array.of(1, 3));
    expect(truncateUpperBound(B, Uint8Array.of(1, 0xff, 3), 2)).toEqual(Uint8Array.of(2));
    expect(truncateUpperBound(B, Uint8Array.of(0xff, 0xff, 3), 2)).toBeNull();
  });
  it('leaves other types (fixed included) unchanged', () => {
    const f = Uint8Array.of(1, 2, 3, 4);
    expect(truncateUpperBound({ kind: 'fixed', length: 4 }, f, 2)).toBe(f);
    expect(truncateLowerBound(T('int'), 5, 1)).toBe(5);
  });
  it('truncated bounds bracket random strings', () => {
    const alphabet = ['a', 'z', 'é', '\uD7FF', '\uE000', '\uFFFF', '𝄞', '\u{10FFFF}'];
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 2000; i++) {
      const len = rnd(8);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[rnd(alphabet.length)];
      const w = 1 + rnd(4);
      const lo = truncateLowerBound(S, s, w) as string;
      const up = truncateUpperBound(S, s, w) as string | null;
      expect(compareValues(S, lo, s)).toBeLessThanOrEqual(0);
      if (up !== null) {
        expect(compareValues(S, up, s)).toBeGreaterThanOrEqual(0);
        expect(Array.from(up).length).toBeLessThanOrEqual(w);
      } else {
        expect(Array.from(s).slice(0, w).every((c) => c === '\u{10FFFF}')).toBe(true);
      }
    }
  });
});

describe('compareValues', () => {
  it('orders strings by UTF-8 bytes, not UTF-16 units', () => {
    const S = T('string');
    // U+FFFD (EF BF BD) < U+1F600 (F0 9F 98 80) in UTF-8, but '\uFFFD' > '\uD83D' in UTF-16.
    expect('\uFFFD' > '😀').toBe(true);
    expect(compareValues(S, '\uFFFD', '😀')).toBe(-1);
    const words = ['b', 'a', '', 'ab', 'é', '\uFFFD', '😀', 'z', '\u{10FFFF}'];
    const enc = new TextEncoder();
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(enc.encode(x)), Buffer.from(enc.encode(y))));
    expect([...words].sort((x, y) => compareValues(S, x, y))).toEqual(byBytes);
  });
  it('orders floats with -0.0 before +0.0 and NaN last', () => {
    const D = T('double');
    expect(compareValues(D, -0, 0)).toBe(-1);
    expect(compareValues(D, 0, -0)).toBe(1);
    expect(compareValues(D, NaN, Infinity)).toBe(1);
    expect(compareValues(D, -Infinity, -1e308)).toBe(-1);
  });
  it('orders uuids and binary as unsigned bytes, decimals and longs as integers', () => {
    expect(compareValues(T('uuid'), '7fffffff-0000-0000-0000-000000000000', '80000000-0000-0000-0000-000000000000')).toBe(-1);
    expect(compareValues(T('binary'), Uint8Array.of(0x7f), Uint8Array.of(0x80))).toBe(-1);
    expect(compareValues(T('binary'), Uint8Array.of(1), Uint8Array.of(1, 0))).toBe(-1);
    expect(compareValues(dec(4, 2), -5n, 3n)).toBe(-1);
    expect(compareValues(T('long'), 1n << 62n, -(1n << 62n))).toBe(1);
    expect(compareValues(T('boolean'), false, true)).toBe(-1);
  });
});
