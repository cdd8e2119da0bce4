/**
 * Partition values as text and paths, following Java's documented formats: Transform
 * toHumanString (ISO dates/times, yyyy-MM, yyyy-MM-dd-HH), BigDecimal.toString and
 * Float/Double.toString (their Javadoc examples), URLEncoder (application/x-www-form-urlencoded).
 */
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../src/errors.js';
import { decimalText, partitionHumanString, partitionPath, partitionValueFromDuckDb, urlEncode } from '../../../src/iceberg/partition-values.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import { microsOf, SPEC_INSTANT } from './transforms-spec-vectors.js';

const human = (transform: string, type: Parameters<typeof primitive>[0], value: unknown): string =>
  partitionHumanString(parseTransform(transform), primitive(type), value);

describe('partitionHumanString', () => {
  it('prints time transform results as Java does', () => {
    expect(human('year', 'int', 47)).toBe('2017');
    expect(human('month', 'int', 574)).toBe('2017-11');
    expect(human('day', 'date', 17486)).toBe('2017-11-16');
    expect(human('hour', 'int', 419686)).toBe('2017-11-16-22');
    expect(human('year', 'int', -1)).toBe('1969');
    expect(human('month', 'int', -1)).toBe('1969-12');
    expect(human('day', 'date', -1)).toBe('1969-12-31');
    expect(human('hour', 'int', -1)).toBe('1969-12-31-23');
  });

  it('prints identity values of date and time types in ISO form', () => {
    expect(human('identity', 'date', 17486)).toBe('2017-11-16');
    expect(human('identity', 'time', ((22n * 60n + 31n) * 60n + 8n) * 1_000_000n)).toBe('22:31:08');
    expect(human('identity', 'time', 1n)).toBe('00:00:00.000001');
    expect(human('identity', 'timestamp', SPEC_INSTANT)).toBe('2017-11-16T22:31:08');
    expect(human('identity', 'timestamp', SPEC_INSTANT + 500_000n)).toBe('2017-11-16T22:31:08.5');
    expect(human('identity', 'timestamp', -1n)).toBe('1969-12-31T23:59:59.999999');
    expect(human('identity', 'timestamptz', microsOf('2017-11-16T14:31:08-08:00'))).toBe('2017-11-16T22:31:08+00:00');
    expect(human('identity', 'timestamp_ns', SPEC_INSTANT * 1000n + 1001n)).toBe('2017-11-16T22:31:08.000001001');
    expect(human('identity', 'timestamptz_ns', -1n)).toBe('1969-12-31T23:59:59.999999999+00:00');
  });

  it('prints other values as Java does (null, numbers, base64 bytes, decimals)', () => {
    expect(human('identity', 'string', null)).toBe('null');
    expect(human('void', 'string', null)).toBe('null');
    expect(human('bucket[16]', 'int', 9)).toBe('9');
    expect(human('identity', 'long', -9223372036854775808n)).toBe('-9223372036854775808');
    expect(human('truncate[3]', 'string', 'ice')).toBe('ice');
    expect(human('identity', 'boolean', true)).toBe('true');
    expect(human('identity', 'uuid', 'f79c3e09-677c-4bbd-a479-3f349cb785e7')).toBe('f79c3e09-677c-4bbd-a479-3f349cb785e7');
    expect(partitionHumanString(parseTransform('identity'), fixed(3), Uint8Array.of(1, 2, 3))).toBe('AQID');
    expect(partitionHumanString(parseTransform('truncate[50]'), decimal(9, 2), 1050n)).toBe('10.50');
  });

  it('prints decimals like BigDecimal.toString (its Javadoc examples)', () => {
    const cases: [bigint, number, string][] = [
      [123n, 0, '123'],
      [-123n, 0, '-123'],
      [123n, -1, '1.23E+3'],
      [123n, -3, '1.23E+5'],
      [123n, 1, '12.3'],
      [123n, 5, '0.00123'],
      [123n, 10, '1.23E-8'],
      [-123n, 12, '-1.23E-10'],
    ];
    for (const [unscaled, scale, text] of cases) expect(decimalText(unscaled, scale), `${unscaled}, ${scale}`).toBe(text);
  });

  it('prints floats and doubles like Float/Double.toString', () => {
    const dbl = (v: number): string => human('identity', 'double', v);
    expect(dbl(1)).toBe('1.0');
    expect(dbl(0.001)).toBe('0.001');
    expect(dbl(1e-4)).toBe('1.0E-4');
    expect(dbl(1e7)).toBe('1.0E7');
    expect(dbl(123456.789)).toBe('123456.789');
    expect(dbl(-0)).toBe('-0.0');
    expect(dbl(NaN)).toBe('NaN');
    expect(dbl(-Infinity)).toBe('-Infinity');
    const flt = (v: number): string => human('identity', 'float', Math.fround(v));
    expect(flt(1.1)).toBe('1.1');
    expect(flt(3.4028234663852886e38)).toBe('3.4028235E38');
  });
});

describe('partitionPath', () => {
  it('encodes names and values like URLEncoder', () => {
    expect(urlEncode('a b/c')).toBe('a+b%2Fc');
    expect(urlEncode('é*._-~!')).toBe('%C3%A9*._-%7E%21');
    expect(urlEncode('2017-11-16T22:31:08+00:00')).toBe('2017-11-16T22%3A31%3A08%2B00%3A00');
  });

  it('joins name=value per field in spec order', () => {
    const fields = [
      { name: 'ts_day', transform: parseTransform('day'), resultType: primitive('date'), fieldId: 1000 },
      { name: 'name bucket', transform: parseTransform('bucket[16]'), resultType: primitive('int'), fieldId: 1001 },
      { name: 'n', transform: parseTransform('identity'), resultType: primitive('string'), fieldId: 1002 },
    ];
    expect(partitionPath(fields, new Map<number, unknown>([[1000, 17486], [1001, 9], [1002, null]]))).toBe(
      'ts_day=2017-11-16/name+bucket=9/n=null',
    );
  });
});

describe('partitionValueFromDuckDb', () => {
  it('takes node-api values into single-value forms and refuses the wrong kind', () => {
    expect(partitionValueFromDuckDb(primitive('date'), 17486)).toBe(17486);
    expect(partitionValueFromDuckDb(decimal(38, 2), 1050n)).toBe(1050n);
    expect(partitionValueFromDuckDb(primitive('binary'), { bytes: Uint8Array.of(1, 2) })).toEqual(Uint8Array.of(1, 2));
    expect(partitionValueFromDuckDb(primitive('int'), null)).toBeNull();
    expect(() => partitionValueFromDuckDb(primitive('long'), 5)).toThrow(IcebergFormatError);
    expect(() => partitionValueFromDuckDb(primitive('string'), 5)).toThrow(/string partition value/);
  });
});
