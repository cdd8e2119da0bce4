/**
 * Every transform on every source type it accepts at the type's extreme values (transform-extremes.ts),
 * in TypeScript (apply.ts) and inside DuckDB (duckdb-sql.ts): each gives the spec's value, and a
 * value the result type cannot hold is refused with a typed error, never a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { registerTransformFunctions } from '../../../src/duckdb/transform-udfs.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { partitionValueFromDuckDb } from '../../../src/iceberg/partition-values.js';
import { bindTransform } from '../../../src/iceberg/transforms/apply.js';
import { transformSql } from '../../../src/iceberg/transforms/duckdb-sql.js';
import { canTransform } from '../../../src/iceberg/transforms/result-type.js';
import { parseTransform } from '../../../src/iceberg/transforms/transform.js';
import { primitive } from '../../../src/iceberg/types.js';
import { EXTREME_CASES, EXTREME_TRANSFORMS, expectedValue, REFUSED } from './transform-extremes.js';

const site = { partitionField: 'p', sourceColumn: 'c' };
const applicable = (c: (typeof EXTREME_CASES)[number]) => EXTREME_TRANSFORMS.filter((t) => canTransform(parseTransform(t), c.type));

describe('transforms at extreme values, in TypeScript', () => {
  for (const c of EXTREME_CASES) {
    it(c.name, () => {
      for (const t of applicable(c)) {
        const bound = bindTransform(parseTransform(t), c.type, site);
        const expected = expectedValue(c, t);
        if (expected === REFUSED) expect(() => bound.apply(c.value), `${t} of ${c.name}`).toThrow(IcebergFormatError);
        else expect(bound.apply(c.value), `${t} of ${c.name}`).toEqual(expected);
      }
    });
  }

  it('covers every source type with at least two extremes', () => {
    const kinds = EXTREME_CASES.map((c) => c.type.kind);
    for (const kind of ['int', 'long', 'decimal', 'date', 'time', 'timestamp', 'timestamptz', 'timestamp_ns', 'string', 'uuid', 'binary']) {
      expect(kinds.filter((k) => k === kind).length, kind).toBeGreaterThanOrEqual(2);
    }
  });

  it('names the column type and the digits in a refused decimal truncate', () => {
    const bound = bindTransform(parseTransform('truncate[10]'), EXTREME_CASES.find((c) => c.name === 'decimal(9, 2) min')!.type, site);
    expect(() => bound.apply(-999999999n)).toThrow(/truncate\[10\] gives -1000000000, more digits than decimal\(9, 2\) holds/);
  });

  it('wraps int truncation the way Java int arithmetic does where W is above 2^30', () => {
    // (v % W) + W leaves the int range in Java and wraps; Java readers prune with the same value.
    const truncateMax = bindTransform(parseTransform('truncate[2147483647]'), primitive('int'), site);
    expect(truncateMax.apply(2147483646)).toBe(-2147483647);
    expect(truncateMax.apply(-2147483648)).toBe(2);
    expect(bindTransform(parseTransform('truncate[1073741825]'), primitive('int'), site).apply(-1)).toBe(-1073741825);
    expect(bindTransform(parseTransform('truncate[2147483647]'), primitive('long'), site).apply(-(1n << 63n))).toBe(9223372034707292163n);
  });
});

describe('transforms at extreme values, inside DuckDB', () => {
  let session: DuckDbSession;
  beforeAll(async () => {
    session = await DuckDbSession.open({ threads: 1 });
    registerTransformFunctions(session.connection);
  });
  afterAll(() => session.close());

  for (const c of EXTREME_CASES) {
    it(c.name, async () => {
      const transforms = applicable(c).filter((t) => expectedValue(c, t) !== REFUSED);
      const bound = transforms.map((t) => bindTransform(parseTransform(t), c.type, site));
      const sql = transforms.map((t) => transformSql(parseTransform(t), c.sql, c.type, site));
      const [row] = (await session.connection.runAndReadAll(`SELECT ${sql.join(', ')}`)).getRows();
      transforms.forEach((t, i) => {
        expect(partitionValueFromDuckDb(bound[i]!.resultType, row![i]), `${t} of ${c.name}`).toEqual(expectedValue(c, t));
      });
    });
  }

  it('wraps int truncation as Java does where W is above 2^30', async () => {
    const int = primitive('int');
    const [row] = (
      await session.connection.runAndReadAll(
        `SELECT ${transformSql(parseTransform('truncate[2147483647]'), 'CAST(2147483646 AS INTEGER)', int, site)}, ` +
          `${transformSql(parseTransform('truncate[2147483647]'), 'CAST(-2147483648 AS INTEGER)', int, site)}, ` +
          `${transformSql(parseTransform('truncate[1073741825]'), 'CAST(-1 AS INTEGER)', int, site)}, ` +
          `${transformSql(parseTransform('truncate[2147483647]'), `CAST(${-(1n << 63n)} AS BIGINT)`, primitive('long'), site)}`,
      )
    ).getRows();
    expect(row).toEqual([-2147483647, 2, -1073741825, 9223372034707292163n]);
  });
});
