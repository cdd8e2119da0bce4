/**
 * The spec's bucket hash vectors (Iceberg spec Appendix B; ICEBERG.md §5), each with its value in
 * the JS single-value form and as a DuckDB literal of the source column type.
 */
import { decimal, fixed, primitive } from '../../../src/iceberg/types.js';
import type { PrimitiveType } from '../../../src/iceberg/types.js';

export const microsOf = (iso: string): bigint => BigInt(Date.parse(iso)) * 1000n;
export const daysOf = (isoDate: string): number => Date.parse(`${isoDate}T00:00:00Z`) / 86_400_000;
/** 2017-11-16T22:31:08Z in µs. */
export const SPEC_INSTANT = microsOf('2017-11-16T22:31:08Z');

export interface HashVector {
  readonly name: string;
  readonly type: PrimitiveType;
  readonly value: unknown;
  /** DuckDB literal of the value, typed as duckdb-types.ts maps the Iceberg type; undefined if DuckDB has no such type. */
  readonly sql: string | undefined;
  readonly hash: number;
}

const T = primitive;

export const HASH_VECTORS: readonly HashVector[] = [
  { name: 'int 34', type: T('int'), value: 34, sql: 'CAST(34 AS INTEGER)', hash: 2017239379 },
  { name: 'long 34L', type: T('long'), value: 34n, sql: 'CAST(34 AS BIGINT)', hash: 2017239379 },
  { name: 'decimal 14.20', type: decimal(9, 2), value: 1420n, sql: 'CAST(14.20 AS DECIMAL(9, 2))', hash: -500754589 },
  { name: 'date 2017-11-16', type: T('date'), value: daysOf('2017-11-16'), sql: "DATE '2017-11-16'", hash: -653330422 },
  { name: 'time 22:31:08', type: T('time'), value: ((22n * 60n + 31n) * 60n + 8n) * 1_000_000n, sql: "TIME '22:31:08'", hash: -662762989 },
  { name: 'timestamp 2017-11-16T22:31:08', type: T('timestamp'), value: SPEC_INSTANT, sql: "TIMESTAMP '2017-11-16 22:31:08'", hash: -2047944441 },
  {
    name: 'timestamp 2017-11-16T22:31:08.000001',
    type: T('timestamp'),
    value: SPEC_INSTANT + 1n,
    sql: "TIMESTAMP '2017-11-16 22:31:08.000001'",
    hash: -1207196810,
  },
  {
    name: 'timestamptz 2017-11-16T14:31:08-08:00',
    type: T('timestamptz'),
    value: microsOf('2017-11-16T14:31:08-08:00'),
    sql: "TIMESTAMPTZ '2017-11-16 14:31:08-08:00'",
    hash: -2047944441,
  },
  {
    name: 'timestamptz 2017-11-16T14:31:08.000001-08:00',
    type: T('timestamptz'),
    value: microsOf('2017-11-16T14:31:08-08:00') + 1n,
    sql: "TIMESTAMPTZ '2017-11-16 14:31:08.000001-08:00'",
    hash: -1207196810,
  },
  {
    name: 'timestamp_ns 2017-11-16T22:31:08.000001001',
    type: T('timestamp_ns'),
    value: SPEC_INSTANT * 1000n + 1001n,
    sql: "TIMESTAMP_NS '2017-11-16 22:31:08.000001001'",
    hash: -1207196810,
  },
  {
    name: 'timestamptz_ns 2017-11-16T14:31:08.000001001-08:00',
    type: T('timestamptz_ns'),
    value: microsOf('2017-11-16T14:31:08-08:00') * 1000n + 1001n,
    // DuckDB form of timestamptz_ns: TIMESTAMP_NS holding the UTC wall clock.
    sql: "TIMESTAMP_NS '2017-11-16 22:31:08.000001001'",
    hash: -1207196810,
  },
  { name: 'string iceberg', type: T('string'), value: 'iceberg', sql: "'iceberg'", hash: 1210000089 },
  {
    name: 'uuid f79c3e09-677c-4bbd-a479-3f349cb785e7',
    type: T('uuid'),
    value: 'f79c3e09-677c-4bbd-a479-3f349cb785e7',
    sql: "UUID 'f79c3e09-677c-4bbd-a479-3f349cb785e7'",
    hash: 1488055340,
  },
  { name: 'fixed 00 01 02 03', type: fixed(4), value: Uint8Array.of(0, 1, 2, 3), sql: "unhex('00010203')", hash: -188683207 },
  { name: 'binary 00 01 02 03', type: T('binary'), value: Uint8Array.of(0, 1, 2, 3), sql: "unhex('00010203')", hash: -188683207 },
  { name: 'string 34', type: T('string'), value: '34', sql: "'34'", hash: -427558391 },
];
