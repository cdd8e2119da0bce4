import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { parseJson, stringifyJson } from '../../../src/iceberg/json.js';

describe('parseJson', () => {
  it('keeps safe integers as numbers and turns larger ones into bigint', () => {
    const v = parseJson('{"a": 1, "b": 9223372036854775807, "c": -9223372036854775808, "d": 9007199254740991, "e": 9007199254740992}', 't');
    expect(v).toEqual({ a: 1, b: 9223372036854775807n, c: -9223372036854775808n, d: 9007199254740991, e: 9007199254740992n });
  });

  it('parses fractions and exponents as numbers, like JSON.parse', () => {
    const text = '[1.5, -0.25, 1e3, 2E-2, 12345678901234567890.5, 1e400, -0, 0]';
    expect(parseJson(text, 't')).toEqual(JSON.parse(text));
  });

  it('decodes escapes, unicode escapes and surrogate pairs', () => {
    const text = String.raw`["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u4E2D", "\ud83d\ude00", "héllo 😀"]`;
    expect(parseJson(text, 't')).toEqual(JSON.parse(text));
    expect((parseJson(text, 't') as string[])[2]).toBe('😀');
  });

  it('matches JSON.parse on nested structures and literals', () => {
    const text = ' {"x": [true, false, null, {"y": []}, {}], "z": "" } ';
    expect(parseJson(text, 't')).toEqual(JSON.parse(text));
  });

  it('adds "__proto__" as an own key instead of changing the prototype', () => {
    const v = parseJson('{"__proto__": {"polluted": 1}}', 't') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
  });

  it.each([
    ['{"a":1} x', 8],
    ['{"a":01}', 6],
    ['[1,]', 3],
    ['{"a" 1}', 5],
    ['"abc', 4],
    ['"\\x"', 1],
    ['"\\u12g4"', 1],
    ['"a\nb"', 2],
    ['', 0],
    ['tru', 0],
    ['[1 2]', 3],
  ])('rejects %j with the source and offset', (text, offset) => {
    let error: unknown;
    try {
      parseJson(text, 'file.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IcebergFormatError);
    expect((error as Error).message).toContain('file.json');
    expect((error as Error).message).toContain(`offset ${offset}`);
  });
});

describe('stringifyJson', () => {
  it('writes bigint as a bare integer that parses back exactly', () => {
    const value = { id: 9223372036854775807n, neg: -3051729675574597004n, small: 5n, n: 1.5 };
    const text = stringifyJson(value);
    expect(text).toBe('{"id":9223372036854775807,"neg":-3051729675574597004,"small":5,"n":1.5}');
    expect(parseJson(text, 't')).toEqual({ ...value, small: 5 });
  });

  it('matches JSON.stringify for plain values, with and without indentation', () => {
    const value = { a: [1, 'x\n"é😀', null, true, { b: undefined, c: [] }, undefined], d: {}, e: -0.5e-7 };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it('refuses non-finite numbers', () => {
    expect(() => stringifyJson({ a: Number.NaN })).toThrow(IcebergFormatError);
  });
});
