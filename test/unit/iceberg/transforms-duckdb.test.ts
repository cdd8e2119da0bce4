/**
 * Transforms computed inside DuckDB (transformSql + the murmur3 scalar functions) agree with the
 * spec vectors and with the TypeScript transforms on random values of every source type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { partitionValueFromDuckDb } from '../../../src/iceberg/partition-values.js';
import { bindTransform } from '../../../src/iceberg/transforms/apply.js';
import { bucketOf } from '../../../src/iceberg/transforms/bucket.js';
import { transformSql, valueFormDuckDbType } from '../../../src/iceberg/transforms/duckdb-sql.js';
import { registerTransformFunctions } from '../../../src/duckdb/transform-udfs.js';
import { canTransform } from '../../../src/iceberg/transforms/result-type.js';
import { bucket, parseTransform } from '../../../src/iceberg/transforms/transform.js';
import type { Transform } from '../../../src/iceberg/transforms/transform.js';
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import type { PrimitiveType } from '../../../src/iceberg/types.js';
import { HASH_VECTORS, SPEC_INSTANT } from './transforms-spec-vectors.js';

let session: DuckDbSession;

beforeAll(async () => {
  session = await DuckDbSession.open({ threads: 2 });
  registerTransformFunctions(session.connection);
  registerTransformFunctions(session.connection); // a second call is harmless
  // A zone far from UTC: timestamptz transforms must not depend on the session time zone.
  await session.run("SET TimeZone = 'America/Los_Angeles'");
});

afterAll(() => session.close());

async function rows(sql: string): Promise<unknown[][]> {
  return (await session.connection.runAndReadAll(sql)).getRows() as unknown[][];
}

const site = { partitionField: 'p', sourceColumn: 'c' };

function sqlOf(transform: Transform, source: string, type: PrimitiveType): string {
  return transformSql(transform, source, type, site);
}

describe('transformSql on the spec vectors', () => {
  it('runs in a session whose time zone is not UTC', async () => {
    expect((await rows("SELECT current_setting('TimeZone')"))[0]![0]).toBe('America/Los_Angeles');
  });

  it('buckets every vector as the spec hash says', async () => {
    for (const v of HASH_VECTORS.filter((x) => x.sql !== undefined)) {
      const ns = [1, 16, 100, 2147483647];
      const got = (await rows(`SELECT ${ns.map((n) => sqlOf(bucket(n), v.sql!, v.type)).join(', ')}`))[0]!;
      expect(got, v.name).toEqual(ns.map((n) => bucketOf(v.hash, n)));
    }
  });

  it('gives the identity value form equal to the JS single-value form', async () => {
    for (const v of HASH_VECTORS.filter((x) => x.sql !== undefined)) {
      const [[raw]] = (await rows(`SELECT ${sqlOf(parseTransform('identity'), v.sql!, v.type)}`)) as [[unknown]];
      expect(partitionValueFromDuckDb(v.type, raw), v.name).toEqual(v.value);
    }
  });

  it('gives the spec time transform values, rounding toward −∞ before the epoch', async () => {
    const cases: [string, PrimitiveType, number[]][] = [
      ["TIMESTAMPTZ '2017-11-16 22:31:08+00'", primitive('timestamptz'), [47, 574, 17486, 419686]],
      ["TIMESTAMP '2017-11-16 22:31:08'", primitive('timestamp'), [47, 574, 17486, 419686]],
      ["TIMESTAMP_NS '2017-11-16 22:31:08.000000001'", primitive('timestamp_ns'), [47, 574, 17486, 419686]],
      ["TIMESTAMPTZ '1969-12-31 23:59:59.999999+00'", primitive('timestamptz'), [-1, -1, -1, -1]],
      ["TIMESTAMP '1969-12-31 23:59:59.999999'", primitive('timestamp'), [-1, -1, -1, -1]],
      ["TIMESTAMP_NS '1969-12-31 23:59:59.999999999'", primitive('timestamp_ns'), [-1, -1, -1, -1]],
    ];
    for (const [literal, type, expected] of cases) {
      const exprs = ['year', 'month', 'day', 'hour'].map((t) => sqlOf(parseTransform(t), literal, type));
      expect((await rows(`SELECT ${exprs.join(', ')}`))[0], literal).toEqual(expected);
    }
    const dates = ['year', 'month', 'day'].map((t) => sqlOf(parseTransform(t), "DATE '2017-11-16'", primitive('date')));
    expect((await rows(`SELECT ${dates.join(', ')}`))[0]).toEqual([47, 574, 17486]);
    const before = ['year', 'month', 'day'].map((t) => sqlOf(parseTransform(t), "DATE '1969-12-31'", primitive('date')));
    expect((await rows(`SELECT ${before.join(', ')}`))[0]).toEqual([-1, -1, -1]);
    expect(SPEC_INSTANT).toBe(1510871468000000n);
  });

  it('gives the spec truncate examples', async () => {
    const [got] = await rows(
      `SELECT ${[
        sqlOf(parseTransform('truncate[10]'), 'CAST(1 AS INTEGER)', primitive('int')),
        sqlOf(parseTransform('truncate[10]'), 'CAST(-1 AS INTEGER)', primitive('int')),
        sqlOf(parseTransform('truncate[10]'), 'CAST(-1 AS BIGINT)', primitive('long')),
        sqlOf(parseTransform('truncate[50]'), 'CAST(10.65 AS DECIMAL(9, 2))', decimal(9, 2)),
        sqlOf(parseTransform('truncate[3]'), "'iceberg'", primitive('string')),
      ].join(', ')}`,
    );
    expect(got).toEqual([0, -10, -10n, 1050n, 'ice']);
  });

  it('computes timestamptz_ns transforms on its DuckDB form (TIMESTAMP_NS at UTC), not on the session zone', async () => {
    const cases: [string, number[]][] = [
      ["TIMESTAMP_NS '2017-11-16 22:31:08.000000001'", [47, 574, 17486, 419686]],
      ["TIMESTAMP_NS '1969-12-31 23:59:59.999999999'", [-1, -1, -1, -1]],
      ["TIMESTAMP_NS '1677-09-21 00:12:43.145225'", [-293, -3508, -106752, -2562048]],
    ];
    for (const [literal, expected] of cases) {
      const exprs = ['year', 'month', 'day', 'hour'].map((t) => sqlOf(parseTransform(t), literal, primitive('timestamptz_ns')));
      expect((await rows(`SELECT ${exprs.join(', ')}`))[0], literal).toEqual(expected);
      const js = ['year', 'month', 'day', 'hour'].map((t) => bindTransform(parseTransform(t), primitive('timestamptz_ns'), site));
      const [[nanos]] = (await rows(`SELECT epoch_ns(${literal})`)) as [[bigint]];
      expect(js.map((b) => b.apply(nanos)), literal).toEqual(expected);
    }
  });

  it('refuses unknown, variant and geometry sources of non-void transforms', () => {
    for (const type of [primitive('unknown'), primitive('variant'), { kind: 'geometry' } as PrimitiveType]) {
      expect(() => sqlOf(parseTransform('identity'), 'x', type), type.kind).toThrow(IcebergFormatError);
      expect(() => sqlOf(bucket(4), 'x', type), type.kind).toThrow(IcebergFormatError);
    }
  });

  it('yields typed NULLs for void and for NULL input', async () => {
    const [got] = await rows(
      `SELECT ${sqlOf(parseTransform('void'), "DATE '2017-11-16'", primitive('date'))},` +
        ` ${sqlOf(bucket(4), 'CAST(NULL AS VARCHAR)', primitive('string'))},` +
        ` ${sqlOf(parseTransform('day'), 'CAST(NULL AS TIMESTAMP)', primitive('timestamp'))}`,
    );
    expect(got).toEqual([null, null, null]);
  });
});

// ---- random values of every source type, as JS values and as DuckDB expressions ----

const randomInt = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));
const randomBigInt = (bits: number): bigint => {
  let v = 0n;
  for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(randomInt(0, 0xffff));
  return BigInt.asIntN(bits, v);
};
const CODE_POINTS = [[0x20, 0x7e], [0xa0, 0x24f], [0x391, 0x3c9], [0x4e00, 0x4eff], [0x1f600, 0x1f64f], [0x1d11e, 0x1d11e], [0x10000, 0x1000f]];
const randomString = (): string => {
  const n = randomInt(0, 12);
  let s = '';
  for (let i = 0; i < n; i++) {
    const [lo, hi] = CODE_POINTS[randomInt(0, CODE_POINTS.length - 1)]!;
    s += String.fromCodePoint(randomInt(lo!, hi!));
  }
  return s;
};
const randomBytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => randomInt(0, 255));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const DAY_US = 86_400_000_000n;

/** Decimal literal text of an unscaled value, built independently of the code under test. */
function decimalLiteral(unscaled: bigint, scale: number): string {
  const digits = String(unscaled < 0n ? -unscaled : unscaled).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return `${unscaled < 0n ? '-' : ''}${text}`;
}

interface SourceCase {
  readonly type: PrimitiveType;
  readonly duckType: string;
  readonly random: () => unknown;
  readonly literal: (v: unknown) => string;
}

const CASES: SourceCase[] = [
  { type: primitive('boolean'), duckType: 'BOOLEAN', random: () => Math.random() < 0.5, literal: (v) => String(v) },
  { type: primitive('int'), duckType: 'INTEGER', random: () => randomInt(-(2 ** 31) + 100, 2 ** 31 - 1), literal: (v) => `CAST(${v} AS INTEGER)` },
  { type: primitive('long'), duckType: 'BIGINT', random: () => randomBigInt(63), literal: (v) => `CAST(${v} AS BIGINT)` },
  { type: primitive('float'), duckType: 'FLOAT', random: () => Math.fround((Math.random() - 0.5) * 1e6), literal: (v) => `CAST(${v} AS FLOAT)` },
  { type: primitive('double'), duckType: 'DOUBLE', random: () => (Math.random() - 0.5) * 1e12, literal: (v) => `CAST(${v} AS DOUBLE)` },
  {
    type: decimal(9, 2),
    duckType: 'DECIMAL(9, 2)',
    random: () => BigInt(randomInt(-999_999_999, 999_999_999)),
    literal: (v) => `CAST('${decimalLiteral(v as bigint, 2)}' AS DECIMAL(9, 2))`,
  },
  {
    type: decimal(38, 10),
    duckType: 'DECIMAL(38, 10)',
    random: () => randomBigInt(120) % 10n ** 38n,
    literal: (v) => `CAST('${decimalLiteral(v as bigint, 10)}' AS DECIMAL(38, 10))`,
  },
  { type: primitive('date'), duckType: 'DATE', random: () => randomInt(-400_000, 400_000), literal: (v) => `(DATE '1970-01-01' + CAST(${v} AS INTEGER))` },
  {
    type: primitive('time'),
    duckType: 'TIME',
    random: () => BigInt(randomInt(0, 86_399_999)) * 1000n + BigInt(randomInt(0, 999)),
    literal: (v) => `(TIME '00:00:00' + to_microseconds(CAST(${v} AS BIGINT)))`,
  },
  {
    type: primitive('timestamp'),
    duckType: 'TIMESTAMP',
    random: () => randomBigInt(64) % (3000n * 365n * DAY_US),
    literal: (v) => `make_timestamp(CAST(${v} AS BIGINT))`,
  },
  {
    type: primitive('timestamptz'),
    duckType: 'TIMESTAMPTZ',
    random: () => randomBigInt(64) % (3000n * 365n * DAY_US),
    literal: (v) => `(TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_microseconds(CAST(${v} AS BIGINT)))`,
  },
  {
    type: primitive('timestamp_ns'),
    duckType: 'TIMESTAMP_NS',
    random: () => randomBigInt(63),
    literal: (v) => `make_timestamp_ns(CAST(${v} AS BIGINT))`,
  },
  {
    type: primitive('timestamptz_ns'),
    duckType: 'TIMESTAMP_NS',
    random: () => randomBigInt(63),
    literal: (v) => `make_timestamp_ns(CAST(${v} AS BIGINT))`,
  },
  { type: primitive('string'), duckType: 'VARCHAR', random: randomString, literal: (v) => `'${(v as string).replaceAll("'", "''")}'` },
  { type: primitive('uuid'), duckType: 'UUID', random: () => crypto.randomUUID(), literal: (v) => `UUID '${v}'` },
  { type: fixed(5), duckType: 'BLOB', random: () => randomBytes(5), literal: (v) => `unhex('${hex(v as Uint8Array)}')` },
  { type: primitive('binary'), duckType: 'BLOB', random: () => randomBytes(randomInt(0, 20)), literal: (v) => `unhex('${hex(v as Uint8Array)}')` },
];

const TRANSFORMS = ['identity', 'void', 'bucket[1]', 'bucket[16]', 'bucket[1000]', 'bucket[2147483647]', 'truncate[1]', 'truncate[3]', 'truncate[10]', 'truncate[50]', 'year', 'month', 'day', 'hour'].map(
  parseTransform,
);

describe('transformSql agrees with the TypeScript transforms on random values', () => {
  for (const c of CASES) {
    const name = c.type.kind === 'decimal' ? `decimal(${c.type.precision}, ${c.type.scale})` : c.type.kind;
    it(name, async () => {
      const values: unknown[] = [null, ...Array.from({ length: 400 }, c.random)];
      if (c.type.kind === 'string') values.push('', '𝄞', 'é', 'a😀b');
      if (c.type.kind === 'long') values.push(-1n, 0n, 1n << 62n, -(1n << 62n));
      if (c.type.kind === 'timestamptz' || c.type.kind === 'timestamp') values.push(-1n, 0n, -DAY_US, -DAY_US - 1n);
      const table = `t_${name.replace(/\W/g, '_')}`;
      const rowsSql = values.map((v, i) => `(${i}, ${v === null ? `CAST(NULL AS ${c.duckType})` : c.literal(v)})`).join(', ');
      await session.run(`CREATE TABLE ${table} AS SELECT id, CAST(x AS ${c.duckType}) AS x FROM (VALUES ${rowsSql}) v(id, x)`);
      let compared = 0;
      for (const transform of TRANSFORMS.filter((t) => canTransform(t, c.type))) {
        const bound = bindTransform(transform, c.type, site);
        const sql = sqlOf(transform, 'x', c.type);
        const result = await session.connection.runAndReadAll(`SELECT id, ${sql} AS p, typeof(${sql}) AS t FROM ${table} ORDER BY id`);
        for (const [id, raw, duckType] of result.getRows() as [number, unknown, string][]) {
          const where = `${name} ${transform.kind} row ${id} (${String(values[id])})`;
          if (raw !== null) expect(duckType, where).toBe(valueFormDuckDbType(bound.resultType));
          expect(partitionValueFromDuckDb(bound.resultType, raw), where).toEqual(bound.apply(values[id]));
          compared++;
        }
      }
      expect(compared).toBeGreaterThanOrEqual(values.length * 2);
    });
  }
});
