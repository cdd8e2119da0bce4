/**
 * Every partition transform on every source type it accepts, at the type's extreme values, with
 * the partition value the spec defines. Bucket, time and truncate values were computed with
 * pyiceberg 0.12 (an independent implementation), except truncate of int and long where the
 * formula leaves the type's range: there pyiceberg gives an out-of-range Python int and Java's
 * TruncateUtil (what Spark writes, and what Java readers prune with) wraps in two's complement;
 * those Java values were printed by TruncateUtil's expressions run on a JVM. Shared by the JS and
 * DuckDB transform tests and the partitioned-writer manifest test.
 */
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import type { PrimitiveType } from '../../../src/iceberg/types.js';

/** The transforms every case is checked under (where the source type accepts them). */
export const EXTREME_TRANSFORMS = [
  'identity',
  'void',
  'bucket[16]',
  'bucket[2147483647]',
  'truncate[3]',
  'truncate[10]',
  'year',
  'month',
  'day',
  'hour',
] as const;
export type ExtremeTransform = (typeof EXTREME_TRANSFORMS)[number];

/** A value the spec cannot store in the result type: the transform must refuse it. */
export const REFUSED = Symbol('refused');

export interface ExtremeCase {
  readonly name: string;
  readonly type: PrimitiveType;
  /** The JS single-value form. */
  readonly value: unknown;
  /** A DuckDB expression of the value, typed as duckdb-types.ts maps the Iceberg type. */
  readonly sql: string;
  /** Expected partition values (identity and void are implied: the value itself, null). */
  readonly expected: Partial<Record<ExtremeTransform, unknown>>;
}

const T = primitive;
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;
const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const LONG_STRING = `${'€𝄞'.repeat(3)}${'x'.repeat(40)}`;
const WIDE_STRING = `${'ü'.repeat(1000)}😀`;

/** Year, month, day and hour of the first µs of 0001-01-01, 1969-12-31T23:59:59.999999 and 9999-12-31T23:59:59.999999. */
const FIRST = { year: -1969, month: -23628, day: -719162, hour: -17259888 };
const BEFORE_EPOCH = { year: -1, month: -1, day: -1, hour: -1 };
const LAST = { year: 8029, month: 96359, day: 2932896, hour: 70389527 };
const dateParts = ({ year, month, day }: { year: number; month: number; day: number }) => ({ year, month, day });

export const EXTREME_CASES: readonly ExtremeCase[] = [
  { name: 'boolean false', type: T('boolean'), value: false, sql: 'false', expected: {} },
  { name: 'int min', type: T('int'), value: INT_MIN, sql: `CAST(${INT_MIN} AS INTEGER)`, expected: { 'bucket[16]': 8, 'bucket[2147483647]': 74448856, 'truncate[3]': 2147483647, 'truncate[10]': 2147483646 } },
  { name: 'int max', type: T('int'), value: INT_MAX, sql: `CAST(${INT_MAX} AS INTEGER)`, expected: { 'bucket[16]': 14, 'bucket[2147483647]': 1819228606, 'truncate[3]': 2147483646, 'truncate[10]': 2147483640 } },
  { name: 'long min', type: T('long'), value: LONG_MIN, sql: `CAST(${LONG_MIN} AS BIGINT)`, expected: { 'bucket[16]': 5, 'bucket[2147483647]': 1366273829, 'truncate[3]': LONG_MAX, 'truncate[10]': 9223372036854775806n } },
  { name: 'long max', type: T('long'), value: LONG_MAX, sql: `CAST(${LONG_MAX} AS BIGINT)`, expected: { 'bucket[16]': 15, 'bucket[2147483647]': 40977599, 'truncate[3]': 9223372036854775806n, 'truncate[10]': 9223372036854775800n } },
  { name: 'float -0.0', type: T('float'), value: -0, sql: "CAST('-0.0' AS FLOAT)", expected: {} },
  { name: 'float max', type: T('float'), value: 3.4028234663852886e38, sql: 'CAST(3.4028234663852886e38 AS FLOAT)', expected: {} },
  { name: 'double -inf', type: T('double'), value: -Infinity, sql: "CAST('-inf' AS DOUBLE)", expected: {} },
  { name: 'double min subnormal', type: T('double'), value: 5e-324, sql: 'CAST(5e-324 AS DOUBLE)', expected: {} },
  { name: 'decimal(2, 1) min', type: decimal(2, 1), value: -99n, sql: 'CAST(-9.9 AS DECIMAL(2, 1))', expected: { 'bucket[16]': 14, 'bucket[2147483647]': 289008462, 'truncate[3]': -99n, 'truncate[10]': REFUSED } },
  { name: 'decimal(2, 1) max', type: decimal(2, 1), value: 99n, sql: 'CAST(9.9 AS DECIMAL(2, 1))', expected: { 'bucket[16]': 15, 'bucket[2147483647]': 1630721631, 'truncate[3]': 99n, 'truncate[10]': 90n } },
  { name: 'decimal(9, 2) min', type: decimal(9, 2), value: -999999999n, sql: 'CAST(-9999999.99 AS DECIMAL(9, 2))', expected: { 'bucket[16]': 8, 'bucket[2147483647]': 1427550648, 'truncate[3]': -999999999n, 'truncate[10]': REFUSED } },
  { name: 'decimal(9, 2) max', type: decimal(9, 2), value: 999999999n, sql: 'CAST(9999999.99 AS DECIMAL(9, 2))', expected: { 'bucket[16]': 13, 'bucket[2147483647]': 251889389, 'truncate[3]': 999999999n, 'truncate[10]': 999999990n } },
  {
    name: 'decimal(38, 10) min',
    type: decimal(38, 10),
    value: -(10n ** 38n - 1n),
    sql: "CAST('-9999999999999999999999999999.9999999999' AS DECIMAL(38, 10))",
    expected: { 'bucket[16]': 10, 'bucket[2147483647]': 193266010, 'truncate[3]': -(10n ** 38n - 1n), 'truncate[10]': REFUSED },
  },
  {
    name: 'decimal(38, 10) max',
    type: decimal(38, 10),
    value: 10n ** 38n - 1n,
    sql: "CAST('9999999999999999999999999999.9999999999' AS DECIMAL(38, 10))",
    expected: { 'bucket[16]': 6, 'bucket[2147483647]': 1067515814, 'truncate[3]': 10n ** 38n - 1n, 'truncate[10]': 10n ** 38n - 10n },
  },
  { name: 'date 0001-01-01', type: T('date'), value: -719162, sql: "DATE '0001-01-01'", expected: { 'bucket[16]': 9, 'bucket[2147483647]': 581067273, ...dateParts(FIRST) } },
  { name: 'date 1969-12-31', type: T('date'), value: -1, sql: "DATE '1969-12-31'", expected: { 'bucket[16]': 8, 'bucket[2147483647]': 1651860712, ...dateParts(BEFORE_EPOCH) } },
  { name: 'date 9999-12-31', type: T('date'), value: 2932896, sql: "DATE '9999-12-31'", expected: { 'bucket[16]': 9, 'bucket[2147483647]': 1486376633, ...dateParts(LAST) } },
  { name: 'time 00:00:00', type: T('time'), value: 0n, sql: "TIME '00:00:00'", expected: { 'bucket[16]': 12, 'bucket[2147483647]': 1669671676 } },
  { name: 'time 23:59:59.999999', type: T('time'), value: 86399999999n, sql: "TIME '23:59:59.999999'", expected: { 'bucket[16]': 8, 'bucket[2147483647]': 1641029256 } },
  ...(['timestamp', 'timestamptz'] as const).flatMap((kind): ExtremeCase[] => {
    const zone = kind === 'timestamptz' ? '+00' : '';
    const literal = `${kind.toUpperCase()}`;
    return [
      { name: `${kind} 0001-01-01`, type: T(kind), value: -62135596800000000n, sql: `${literal} '0001-01-01 00:00:00${zone}'`, expected: { 'bucket[16]': 0, 'bucket[2147483647]': 571270128, ...FIRST } },
      { name: `${kind} 1969-12-31T23:59:59.999999`, type: T(kind), value: -1n, sql: `${literal} '1969-12-31 23:59:59.999999${zone}'`, expected: { 'bucket[16]': 8, 'bucket[2147483647]': 1651860712, ...BEFORE_EPOCH } },
      { name: `${kind} 9999-12-31T23:59:59.999999`, type: T(kind), value: 253402300799999999n, sql: `${literal} '9999-12-31 23:59:59.999999${zone}'`, expected: { 'bucket[16]': 12, 'bucket[2147483647]': 1400643100, ...LAST } },
    ];
  }),
  {
    name: 'timestamp_ns 1677-09-22 (the first day DuckDB holds)',
    type: T('timestamp_ns'),
    value: -9223286400000000000n,
    sql: "TIMESTAMP_NS '1677-09-22 00:00:00'",
    expected: { 'bucket[16]': 6, 'bucket[2147483647]': 635078742, year: -293, month: -3508, day: -106751, hour: -2562024 },
  },
  {
    name: 'timestamp_ns 2262-04-11T23:47:16.854775 (the last µs DuckDB holds)',
    type: T('timestamp_ns'),
    value: 9223372036854775000n,
    sql: "TIMESTAMP_NS '2262-04-11 23:47:16.854775'",
    expected: { 'bucket[16]': 14, 'bucket[2147483647]': 474878878, year: 292, month: 3507, day: 106751, hour: 2562047 },
  },
  { name: 'string empty', type: T('string'), value: '', sql: "''", expected: { 'bucket[16]': 0, 'bucket[2147483647]': 0, 'truncate[3]': '', 'truncate[10]': '' } },
  {
    name: 'string of 3- and 4-byte UTF-8 longer than W',
    type: T('string'),
    value: LONG_STRING,
    sql: `'${LONG_STRING}'`,
    expected: { 'bucket[16]': 6, 'bucket[2147483647]': 2021856502, 'truncate[3]': '€𝄞€', 'truncate[10]': '€𝄞€𝄞€𝄞xxxx' },
  },
  {
    name: 'string of 1001 code points (2004 bytes)',
    type: T('string'),
    value: WIDE_STRING,
    sql: `'${WIDE_STRING}'`,
    expected: { 'bucket[16]': 5, 'bucket[2147483647]': 1618749765, 'truncate[3]': 'üüü', 'truncate[10]': 'ü'.repeat(10) },
  },
  { name: 'string of 3 emoji (exactly W = 3)', type: T('string'), value: '😀😀😀', sql: "'😀😀😀'", expected: { 'bucket[16]': 1, 'bucket[2147483647]': 623130097, 'truncate[3]': '😀😀😀', 'truncate[10]': '😀😀😀' } },
  {
    name: 'uuid all zeros',
    type: T('uuid'),
    value: '00000000-0000-0000-0000-000000000000',
    sql: "UUID '00000000-0000-0000-0000-000000000000'",
    expected: { 'bucket[16]': 8, 'bucket[2147483647]': 20237816 },
  },
  {
    name: 'uuid all ones',
    type: T('uuid'),
    value: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    sql: "UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff'",
    expected: { 'bucket[16]': 14, 'bucket[2147483647]': 1696150638 },
  },
  { name: 'fixed[3] 00ff80', type: fixed(3), value: bytes('00ff80'), sql: "unhex('00ff80')", expected: { 'bucket[16]': 12, 'bucket[2147483647]': 429297308 } },
  { name: 'binary empty', type: T('binary'), value: bytes(''), sql: "unhex('')", expected: { 'bucket[16]': 0, 'bucket[2147483647]': 0, 'truncate[3]': bytes(''), 'truncate[10]': bytes('') } },
  {
    name: 'binary of 20 0xff bytes',
    type: T('binary'),
    value: bytes('ff'.repeat(20)),
    sql: `unhex('${'ff'.repeat(20)}')`,
    expected: { 'bucket[16]': 9, 'bucket[2147483647]': 1589654889, 'truncate[3]': bytes('ffffff'), 'truncate[10]': bytes('ff'.repeat(10)) },
  },
  {
    name: 'binary of 3000 0xff bytes',
    type: T('binary'),
    value: bytes('ff'.repeat(3000)),
    sql: `unhex('${'ff'.repeat(3000)}')`,
    expected: { 'bucket[16]': 11, 'bucket[2147483647]': 1409478075, 'truncate[3]': bytes('ffffff'), 'truncate[10]': bytes('ff'.repeat(10)) },
  },
];

/** The expected partition value of a case under a transform (identity: the value; void: null). */
export function expectedValue(c: ExtremeCase, transform: ExtremeTransform): unknown {
  if (transform === 'identity') return c.value;
  if (transform === 'void') return null;
  if (!(transform in c.expected)) throw new Error(`the extreme case ${c.name} has no expected ${transform} value`);
  return c.expected[transform];
}
