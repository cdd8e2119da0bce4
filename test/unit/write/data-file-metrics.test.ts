/**
 * Writes real Parquet files with DuckDB (COPY … FIELD_IDS, RETURN_STATS) and checks that the
 * metrics decode to the true min/max of the data, computed here from the input values.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import { fieldIdsClause, icebergToDuckDbType } from '../../../src/iceberg/duckdb-types.js';
import { assignFreshIds, findField, type UnassignedField } from '../../../src/iceberg/schema.js';
import type { NestedField, PrimitiveType } from '../../../src/iceberg/types.js';
import {
  dataFileMetrics,
  metricsConfigFromProperties,
  normalizeColumnStatistics,
  parseDuckDbStatValue,
  parseMetricsMode,
  type DataFileMetrics,
} from '../../../src/write/data-file-metrics.js';

let conn: DuckDBConnection;
let dir: string;
let fileNo = 0;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  dir = mkdtempSync(join(tmpdir(), 'thund-metrics-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Deterministic PRNG (mulberry32).
let seed = 20260501;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const randInt = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const randBig = (bits: number): bigint => {
  let v = 0n;
  for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(randInt(0, 0xffff));
  return BigInt.asIntN(bits, v);
};
const randBigBelow = (limit: bigint): bigint => {
  const v = randBig(128);
  return (v < 0n ? -v : v) % limit * (rand() < 0.5 ? -1n : 1n);
};
const randFloat32 = (): number => {
  const view = new DataView(new ArrayBuffer(4));
  for (;;) {
    view.setUint32(0, randInt(0, 0xffffffff));
    const f = view.getFloat32(0);
    if (Number.isFinite(f) && f !== 0) return f;
  }
};
const randFloat64 = (): number => {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, randInt(0, 0xffffffff));
    view.setUint32(4, randInt(0, 0xffffffff));
    const f = view.getFloat64(0);
    if (Number.isFinite(f) && f !== 0) return f;
  }
};
const ALPHABET = ['a', 'b', 'z', 'A', ' ', "'", '"', 'é', 'ß', '中', '\uD7FF', '\uE000', '\uFFFD', '𝄞', '😀', '\u{10FFFF}'];
const randString = (maxLen: number): string => {
  let s = '';
  const n = randInt(0, maxLen);
  for (let i = 0; i < n; i++) s += ALPHABET[randInt(0, ALPHABET.length - 1)];
  return s;
};
const randBytes = (maxLen: number): Uint8Array => Uint8Array.from({ length: randInt(0, maxLen) }, () => (rand() < 0.2 ? 0xff : randInt(0, 255)));
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const randUuid = (firstNibbleMax: number): string => {
  const hex = randInt(0, firstNibbleMax).toString(16) + Array.from({ length: 31 }, () => randInt(0, 15).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const decimalText = (unscaled: bigint, scale: number): string => {
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return unscaled < 0n ? `-${text}` : text;
};

/** A test column: its Iceberg type, a generator of values (JS single-value form) and the SQL literal for one. */
interface Column {
  readonly name: string;
  readonly type: PrimitiveType;
  readonly gen: () => unknown;
  readonly sql: (v: unknown) => string;
}

const dec = (precision: number, scale: number): Column => ({
  name: `dec${precision}`,
  type: { kind: 'decimal', precision, scale },
  gen: () => randBigBelow(10n ** BigInt(precision)),
  sql: (v) => `CAST(${sqlString(decimalText(v as bigint, scale))} AS DECIMAL(${precision},${scale}))`,
});

const COLUMNS: Column[] = [
  { name: 'b', type: { kind: 'boolean' }, gen: () => rand() < 0.5, sql: (v) => String(v) },
  { name: 'i', type: { kind: 'int' }, gen: () => randInt(-(2 ** 31), 2 ** 31 - 1), sql: (v) => `${v}::INTEGER` },
  { name: 'l', type: { kind: 'long' }, gen: () => randBig(64), sql: (v) => `${v}::BIGINT` },
  { name: 'f', type: { kind: 'float' }, gen: randFloat32, sql: (v) => `(${v})::DOUBLE::FLOAT` },
  { name: 'd', type: { kind: 'double' }, gen: randFloat64, sql: (v) => `(${v})::DOUBLE` },
  dec(4, 2),
  dec(9, 3),
  dec(18, 4),
  dec(38, 9),
  { name: 'dt', type: { kind: 'date' }, gen: () => randInt(-800_000, 800_000), sql: (v) => `(DATE '1970-01-01' + (${v})::INTEGER)` },
  { name: 'tm', type: { kind: 'time' }, gen: () => BigInt(randInt(0, 86_399_999)) * 1000n + BigInt(randInt(0, 999)), sql: (v) => `(TIME '00:00:00' + to_microseconds(${v}::BIGINT))` },
  { name: 'ts', type: { kind: 'timestamp' }, gen: () => randBigBelow(10n ** 16n), sql: (v) => `make_timestamp(${v}::BIGINT)` },
  { name: 'tstz', type: { kind: 'timestamptz' }, gen: () => randBigBelow(10n ** 16n), sql: (v) => `make_timestamp(${v}::BIGINT)::TIMESTAMPTZ` },
  { name: 'tsns', type: { kind: 'timestamp_ns' }, gen: () => randBigBelow(9n * 10n ** 18n), sql: (v) => `make_timestamp_ns(${v}::BIGINT)` },
  { name: 's', type: { kind: 'string' }, gen: () => randString(30), sql: (v) => sqlString(v as string) },
  { name: 'bl', type: { kind: 'binary' }, gen: () => randBytes(24), sql: (v) => `unhex('${hexOf(v as Uint8Array)}')` },
  { name: 'u', type: { kind: 'uuid' }, gen: () => randUuid(7), sql: (v) => `${sqlString(v as string)}::UUID` },
];

// Expected values come from JS Date (proleptic Gregorian UTC), independent of the parser.
const utcMs = (y: number, m: number, d: number, hh = 0, mi = 0, ss = 0): number => {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  date.setUTCHours(hh, mi, ss, 0);
  return date.getTime();
};
const days = (y: number, m: number, d: number): number => utcMs(y, m, d) / 86_400_000;
function trueCompare(type: PrimitiveType, a: unknown, b: unknown): number {
  switch (type.kind) {
    case 'string':
      return Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'));
    case 'binary':
      return Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array));
    case 'uuid':
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 'boolean':
      return Number(a) - Number(b);
    default:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
}

interface Written {
  readonly fields: NestedField[];
  readonly stats: unknown;
  readonly count: string;
}

/** Write `rows` (arrays of SQL expressions, null → NULL) with ids and return RETURN_STATS' row. */
async function writeParquet(fields: NestedField[], rows: string[][], timeZone = 'Asia/Kolkata'): Promise<Written> {
  await conn.run(`SET TimeZone='UTC'`);
  const names = fields.map((f) => `"${f.name.replaceAll('"', '""')}"`);
  const selects = rows.map((r) => `SELECT ${r.map((e, i) => `CAST(${e} AS ${icebergToDuckDbType(fields[i]!.type)}) AS ${names[i]}`).join(', ')}`);
  await conn.run(`CREATE OR REPLACE TABLE t AS ${selects.join(' UNION ALL ')}`);
  await conn.run(`SET TimeZone='${timeZone}'`);
  const file = join(dir, `f${fileNo++}.parquet`);
  const reader = await conn.runAndReadAll(`COPY t TO '${file}' (FORMAT parquet, ${fieldIdsClause({ fields })}, RETURN_STATS true)`);
  const row = reader.getRowObjectsJson()[0] as Record<string, unknown>;
  return { fields, stats: row['column_statistics'], count: String(row['count']) };
}

function decoded(metrics: DataFileMetrics, field: NestedField): { lower: unknown; upper: unknown } {
  const type = field.type as PrimitiveType;
  const lo = metrics.lowerBounds.get(field.id);
  const up = metrics.upperBounds.get(field.id);
  return { lower: lo && decodeSingleValue(type, lo), upper: up && decodeSingleValue(type, up) };
}

describe('data file metrics from DuckDB RETURN_STATS (every primitive type)', () => {
  const ROWS = 300;
  const data = COLUMNS.map((c) => Array.from({ length: ROWS }, () => (rand() < 0.1 ? null : c.gen())));
  const { fields } = assignFreshIds(COLUMNS.map((c): UnassignedField => ({ name: c.name, required: false, type: c.type })));
  let written: Written;

  beforeAll(async () => {
    const rows = Array.from({ length: ROWS }, (_, r) => COLUMNS.map((c, ci) => {
      const v = data[ci]![r];
      return v === null ? 'NULL' : c.sql(v);
    }));
    written = await writeParquet(fields, rows);
    expect(written.count).toBe(String(ROWS));
  });

  const truth = (ci: number): { min: unknown; max: unknown; nulls: number } => {
    const type = COLUMNS[ci]!.type;
    const values = data[ci]!.filter((v) => v !== null);
    const sorted = [...values].sort((a, b) => trueCompare(type, a, b));
    return { min: sorted[0], max: sorted[sorted.length - 1], nulls: ROWS - values.length };
  };

  it('full: bounds decode to exactly the true min and max; counts are exact', () => {
    const metrics = dataFileMetrics({ fields }, metricsConfigFromProperties({ 'write.metadata.metrics.default': 'full' }), written.stats);
    COLUMNS.forEach((c, ci) => {
      const field = fields[ci]!;
      const { min, max, nulls } = truth(ci);
      const { lower, upper } = decoded(metrics, field);
      expect(lower, `${c.name} lower`).toEqual(min);
      expect(upper, `${c.name} upper`).toEqual(max);
      expect(metrics.valueCounts.get(field.id), c.name).toBe(BigInt(ROWS));
      expect(metrics.nullValueCounts.get(field.id), c.name).toBe(BigInt(nulls));
      expect(metrics.columnSizes.get(field.id)! > 0n, c.name).toBe(true);
      const isFloat = c.type.kind === 'float' || c.type.kind === 'double';
      expect(metrics.nanValueCounts.get(field.id), c.name).toBe(isFloat ? 0n : undefined);
    });
  });

  it('truncate(16) (the default): string/binary bounds bracket the data; everything else is exact', () => {
    const metrics = dataFileMetrics({ fields }, metricsConfigFromProperties({}), written.stats);
    COLUMNS.forEach((c, ci) => {
      const field = fields[ci]!;
      const { min, max } = truth(ci);
      const { lower, upper } = decoded(metrics, field);
      if (c.type.kind === 'string') {
        expect(Array.from(lower as string).length).toBeLessThanOrEqual(16);
        expect((min as string).startsWith(lower as string)).toBe(true);
        if (upper !== undefined) {
          expect(Array.from(upper as string).length).toBeLessThanOrEqual(16);
          expect(trueCompare(c.type, upper, max)).toBeGreaterThanOrEqual(0);
        }
      } else if (c.type.kind === 'binary') {
        expect((lower as Uint8Array).length).toBeLessThanOrEqual(16);
        expect(Buffer.from(min as Uint8Array).subarray(0, (lower as Uint8Array).length)).toEqual(Buffer.from(lower as Uint8Array));
        if (upper !== undefined) expect(trueCompare(c.type, upper, max)).toBeGreaterThanOrEqual(0);
      } else {
        expect(lower, c.name).toEqual(min);
        expect(upper, c.name).toEqual(max);
      }
    });
  });

  it('per-column modes: none drops everything, counts drops bounds', () => {
    const metrics = dataFileMetrics(
      { fields },
      metricsConfigFromProperties({ 'write.metadata.metrics.column.i': 'none', 'write.metadata.metrics.column.l': 'counts' }),
      written.stats,
    );
    const [i, l] = [fields[1]!, fields[2]!];
    for (const m of [metrics.columnSizes, metrics.valueCounts, metrics.nullValueCounts, metrics.lowerBounds, metrics.upperBounds]) {
      expect(m.has(i.id)).toBe(false);
    }
    expect(metrics.valueCounts.get(l.id)).toBe(BigInt(ROWS));
    expect(metrics.lowerBounds.has(l.id) || metrics.upperBounds.has(l.id)).toBe(false);
    expect(metrics.lowerBounds.has(fields[0]!.id)).toBe(true);
    const none = dataFileMetrics({ fields }, metricsConfigFromProperties({ 'write.metadata.metrics.default': 'None' }), written.stats);
    expect(none.valueCounts.size + none.columnSizes.size + none.lowerBounds.size).toBe(0);
  });

  it('accepts the DuckDBMapValue shape of getRowObjects() as well as JSON rows', async () => {
    const file = join(dir, `f${fileNo++}.parquet`);
    const reader = await conn.runAndReadAll(`COPY t TO '${file}' (FORMAT parquet, ${fieldIdsClause({ fields })}, RETURN_STATS true)`);
    const raw = reader.getRowObjects()[0]!['column_statistics'];
    const a = normalizeColumnStatistics(raw);
    const b = normalizeColumnStatistics(written.stats);
    expect(a.size).toBe(COLUMNS.length);
    expect([...a.entries()].map(([k, v]) => [k, v.get('min'), v.get('max')])).toEqual(
      [...b.entries()].map(([k, v]) => [k, v.get('min'), v.get('max')]),
    );
  });
});

describe('data file metrics: unsafe cases are omitted or widened', () => {
  it('NaN, signed zeros, infinities, uuid halves, all-null, long strings, nested fields', async () => {
    const longA = 'x'.repeat(300) + 'a';
    const longB = 'é'.repeat(200);
    const { fields } = assignFreshIds([
      { name: 'nan', required: false, type: { kind: 'double' } },
      { name: 'zeros', required: false, type: { kind: 'double' } },
      { name: 'fzero', required: false, type: { kind: 'float' } },
      { name: 'inf', required: false, type: { kind: 'float' } },
      { name: 'u_cross', required: false, type: { kind: 'uuid' } },
      { name: 'u_high', required: false, type: { kind: 'uuid' } },
      { name: 'allnull', required: false, type: { kind: 'int' } },
      { name: 'long s', required: false, type: { kind: 'string' } },
      { name: 'st', required: false, type: { kind: 'struct', fields: [{ name: 'x', required: false, type: { kind: 'date' } }] } },
      { name: 'li', required: false, type: { kind: 'list', elementRequired: false, element: { kind: 'int' } } },
      { name: 'mp', required: false, type: { kind: 'map', key: { kind: 'string' }, valueRequired: false, value: { kind: 'long' } } },
    ]);
    const rows = [
      ["'nan'", '0.0', '(-0.0)', "'-inf'", "'7fffffff-ffff-ffff-ffff-ffffffffffff'", "'80000000-0000-0000-0000-000000000000'", 'NULL', sqlString(longA),
        "{'x': DATE '1960-02-29'}", '[1, 2]', "MAP {'k': 5}"],
      ['2.5', '(-0.0)', '1.5', "'inf'", "'80000000-0000-0000-0000-000000000001'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'", 'NULL', sqlString(longB),
        "{'x': DATE '0001-01-01'}", '[]', 'NULL'],
      ['-1.0', '3.0', '2.0', '0.5', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', 'NULL', "MAP {'a': -5, 'b': NULL}"],
    ];
    await writeParquet(fields, rows, 'America/Los_Angeles').then(({ stats }) => {
      const m = dataFileMetrics({ fields }, metricsConfigFromProperties({ 'write.metadata.metrics.default': 'full' }), stats);
      const id = (name: string): NestedField => fields.find((f) => f.name === name)!;
      // NaN present and no NaN pass (nan-counts.ts) results given: no bounds and no NaN count,
      // as DuckDB gives only has_nan (nan-value-counts.test.ts covers the writers' counts).
      expect(m.lowerBounds.has(id('nan').id) || m.upperBounds.has(id('nan').id)).toBe(false);
      expect(m.nanValueCounts.has(id('nan').id)).toBe(false);
      expect(m.valueCounts.get(id('nan').id)).toBe(3n);
      // Zeros: DuckDB treats -0.0 == 0.0, so a zero bound is widened (lower -0.0, upper +0.0).
      const zeros = decoded(m, id('zeros'));
      expect(Object.is(zeros.lower, -0)).toBe(true);
      expect(zeros.upper).toBe(3);
      const fzero = decoded(m, id('fzero'));
      expect(Object.is(fzero.lower, -0)).toBe(true);
      expect(fzero.upper).toBe(2);
      expect(decoded(m, id('inf'))).toEqual({ lower: -Infinity, upper: Infinity });
      // uuids spanning both signed halves: omitted; within the upper half: kept.
      expect(m.lowerBounds.has(id('u_cross').id)).toBe(false);
      expect(decoded(m, id('u_high'))).toEqual({ lower: '80000000-0000-0000-0000-000000000000', upper: 'ffffffff-ffff-ffff-ffff-ffffffffffff' });
      // All null: counts but no bounds.
      expect(m.nullValueCounts.get(id('allnull').id)).toBe(3n);
      expect(m.lowerBounds.has(id('allnull').id)).toBe(false);
      // Strings over DuckDB's own 256-byte stats limit: any bound present must still bracket the data.
      const s = decoded(m, id('long s'));
      const enc = (x: string): Buffer => Buffer.from(x, 'utf8');
      if (s.lower !== undefined) expect(Buffer.compare(enc(s.lower as string), enc(longA))).toBeLessThanOrEqual(0);
      if (s.upper !== undefined) expect(Buffer.compare(enc(s.upper as string), enc(longB))).toBeGreaterThanOrEqual(0);
      // Struct fields get bounds (dates before 1970 and year 1).
      const stx = findField({ fields }, (id('st').type as unknown as { fields: NestedField[] }).fields[0]!.id)!.field;
      expect(decoded(m, stx)).toEqual({ lower: days(1, 1, 1), upper: days(1960, 2, 29) });
      // Fields inside lists and maps: column size only, no counts, no bounds (Java convention).
      for (const f of fields.filter((x) => x.name === 'li' || x.name === 'mp')) {
        const t = f.type;
        const ids = t.kind === 'list' ? [t.elementId] : t.kind === 'map' ? [t.keyId, t.valueId] : [];
        for (const leaf of ids) {
          expect(m.columnSizes.has(leaf)).toBe(true);
          expect(m.valueCounts.has(leaf) || m.nullValueCounts.has(leaf) || m.lowerBounds.has(leaf) || m.upperBounds.has(leaf)).toBe(false);
        }
      }
    });
  });

  it('truncate(16) with only U+10FFFF in the prefix leaves no upper bound', async () => {
    const { fields } = assignFreshIds([{ name: 's', required: false, type: { kind: 'string' } }]);
    const { stats } = await writeParquet(fields, [[sqlString('\u{10FFFF}'.repeat(20))], [sqlString('\u{10FFFF}'.repeat(17))]]);
    const m = dataFileMetrics({ fields }, metricsConfigFromProperties({}), stats);
    expect(m.upperBounds.has(fields[0]!.id)).toBe(false);
    expect(decoded(m, fields[0]!).lower).toBe('\u{10FFFF}'.repeat(16));
  });
});

describe('parsing DuckDB stat text', () => {
  const p = (kind: string, text: string): unknown => parseDuckDbStatValue({ kind } as PrimitiveType, text);
  it('parses the forms DuckDB prints', () => {
    expect(p('timestamp', '2026-11-29 15:56:59.183648')).toBe(BigInt(utcMs(2026, 11, 29, 15, 56, 59)) * 1000n + 183648n);
    expect(p('timestamp', '1969-12-31 23:59:59.5')).toBe(-500000n);
    // 231 BC is astronomical year -230.
    expect(p('timestamp', '0231-05-31 (BC) 00:00:01')).toBe(BigInt(utcMs(-230, 5, 31, 0, 0, 1)) * 1000n);
    expect(p('timestamp', '294000-01-01 00:00:00')).toBe(BigInt(utcMs(27600, 1, 1) / 1000) * 1_000_000n + BigInt(266400 / 400 * 146097) * 86_400_000_000n);
    expect(p('timestamptz', '1969-12-31 23:59:59.5+00')).toBe(-500000n);
    expect(p('timestamptz', '1970-01-01 05:30:00+05:30')).toBe(0n);
    expect(p('timestamptz', '1969-12-31 16:00:00-08')).toBe(0n);
    expect(p('timestamp', '1970-01-01 00:00:00+00')).toBeUndefined();
    expect(p('timestamp_ns', '1960-01-01 00:00:00.123456789')).toBe(BigInt(utcMs(1960, 1, 1)) * 1_000_000n + 123456789n);
    expect(p('date', '0001-01-01')).toBe(days(1, 1, 1));
    expect(p('date', '0001-12-31 (BC)')).toBe(days(0, 12, 31));
    expect(p('date', '1969-12-31')).toBe(-1);
    // 400 Gregorian years are exactly 146097 days.
    expect(p('date', '5000000-01-01')).toBe(days(2000, 1, 1) + ((5_000_000 - 2000) / 400) * 146097);
    expect(p('time', '24:00:00')).toBe(86_400_000_000n);
    expect(p('timestamp', 'infinity')).toBeUndefined();
    expect(p('double', '-0.0')).toBe(-0);
    expect(p('double', 'inf')).toBe(Infinity);
    expect(p('double', '1e-320')).toBe(1e-320);
    expect(p('double', 'nan')).toBeUndefined();
    expect(p('boolean', '1')).toBe(true);
    expect(p('binary', '00FF6162')).toEqual(Uint8Array.of(0, 255, 0x61, 0x62));
    expect(p('binary', 'zz')).toBeUndefined();
    expect(p('uuid', 'F79C3E09-677C-4BBD-A479-3F349CB785E7')).toBe('f79c3e09-677c-4bbd-a479-3f349cb785e7');
    expect(p('int', '2147483648')).toBeUndefined();
    const d = (text: string): unknown => parseDuckDbStatValue({ kind: 'decimal', precision: 4, scale: 2 }, text);
    expect(d('-12.34')).toBe(-1234n);
    expect(d('0.5')).toBe(50n);
    expect(d('1.234')).toBeUndefined();
    expect(d('123.00')).toBeUndefined();
  });

  it('rejects unknown metrics modes, naming the property', () => {
    expect(parseMetricsMode('Truncate(8)', 'x')).toEqual({ kind: 'truncate', length: 8 });
    expect(() => metricsConfigFromProperties({ 'write.metadata.metrics.default': 'truncate(0)' })).toThrow(InvalidInputError);
    expect(() => metricsConfigFromProperties({ 'write.metadata.metrics.column.a': 'most' })).toThrow(/write\.metadata\.metrics\.column\.a/);
  });
});
