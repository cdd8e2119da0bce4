/**
 * The extreme values of every source type Spark reads (test/unit/iceberg/transform-extremes.ts),
 * one row each, written by Thund's partitioned writer under every transform the type accepts and
 * read back by Spark with Iceberg's Java runtime through `WHERE c = v OR …`, one read per column. Java prunes files by
 * projecting each predicate through the partition transforms with its own code: a row whose file
 * carries any partition value Java computes differently (truncate of the minimum int, a year
 * before 1970, a multi-byte truncated string, …) would be pruned and missing from the result.
 * Left out: time and timestamp_ns (Spark has no such types), floats (identity only), fixed (DuckDB
 * writes a fixed column as a Parquet BYTE_ARRAY, which Iceberg's Spark reader refuses; and Iceberg
 * Java up to 1.11 reads an Avro `fixed` partition value as length-prefixed bytes,
 * apache/iceberg#17501, so it cannot read the spec's encoding Thund writes), and the timestamptz
 * of year 1 (the reader script's Python datetime cannot hold it in its zone).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { icebergToDuckDbType } from '../../src/iceberg/duckdb-types.js';
import { decimalText } from '../../src/iceberg/partition-values.js';
import { canTransform } from '../../src/iceberg/transforms/result-type.js';
import { civilFromDays, floorDiv } from '../../src/iceberg/transforms/time.js';
import { parseTransform } from '../../src/iceberg/transforms/transform.js';
import { primitive, type PrimitiveType } from '../../src/iceberg/types.js';
import { EXTREME_CASES, EXTREME_TRANSFORMS, REFUSED, type ExtremeCase } from '../unit/iceberg/transform-extremes.js';
import { committedPartitionedTable } from './committed-partitioned-table.js';
import { readWithSpark } from './spark.js';

const TABLE = 'lake.extremes';
const SPARK_KINDS = new Set(['int', 'long', 'decimal', 'date', 'timestamp', 'timestamptz', 'string', 'uuid', 'binary']);
const long = (c: ExtremeCase): boolean => (typeof c.value === 'string' || c.value instanceof Uint8Array) && c.value.length > 60;
const CASES = EXTREME_CASES.filter(
  (c) => SPARK_KINDS.has(c.type.kind) && !Object.values(c.expected).includes(REFUSED) && c.name !== 'timestamptz 0001-01-01',
);

/** One column per source type (long strings and binaries apart: no identity, whose folder name would be too long). */
const columnKey = (c: ExtremeCase): string => `${JSON.stringify(c.type)}${long(c) ? ' long' : ''}`;
const COLUMN_KEYS = [...new Set(CASES.map(columnKey))];
const columnOf = (c: ExtremeCase): string => `c${COLUMN_KEYS.indexOf(columnKey(c))}`;

const pad = (n: number | bigint, width: number): string => String(n).padStart(width, '0');
function isoDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}
function isoTimestamp(micros: bigint): string {
  const days = floorDiv(micros, 86_400_000_000n);
  let rest = micros - days * 86_400_000_000n;
  const hms = [3_600_000_000n, 60_000_000n, 1_000_000n].map((unit) => {
    const part = rest / unit;
    rest %= unit;
    return pad(part, 2);
  });
  return `${isoDate(Number(days))} ${hms.join(':')}.${pad(rest, 6)}`;
}

/** The case's value as a Spark SQL literal of the column's Spark type. */
function sparkLiteral(type: PrimitiveType, value: unknown): string {
  switch (type.kind) {
    case 'int':
      return `CAST(${String(value)} AS INT)`;
    case 'long':
      return `CAST('${String(value)}' AS BIGINT)`;
    case 'decimal':
      return `CAST('${decimalText(value as bigint, type.scale)}' AS DECIMAL(${type.precision}, ${type.scale}))`;
    case 'date':
      return `DATE '${isoDate(value as number)}'`;
    case 'timestamp':
      return `TIMESTAMP_NTZ '${isoTimestamp(value as bigint)}'`;
    case 'timestamptz':
      return `TIMESTAMP '${isoTimestamp(value as bigint)}'`; // the reader's session zone is UTC
    case 'string':
    case 'uuid':
      return `'${String(value)}'`;
    default:
      return `X'${Buffer.from(value as Uint8Array).toString('hex')}'`;
  }
}

let warehouse: string;
let session: DuckDbSession;

beforeAll(async () => {
  session = await DuckDbSession.open();
  const typeOf = new Map(CASES.map((c) => [columnOf(c), c.type]));
  const columns = COLUMN_KEYS.map((_, i) => `c${i}`);
  const rows = CASES.map((c, id) => {
    const values = columns.map((name) => (name === columnOf(c) ? c.sql : `CAST(NULL AS ${icebergToDuckDbType(typeOf.get(name)!)})`));
    return `SELECT ${id} AS id, ${values.map((v, i) => `${v} AS c${i}`).join(', ')}`;
  });
  let files: DataFile[];
  ({ warehouse, files } = await committedPartitionedTable({
    session,
    prefix: 'partition-extremes-readers',
    table: TABLE,
    fields: [
      { id: 1, name: 'id', required: true, type: primitive('int') },
      ...columns.map((name, i) => ({ id: i + 2, name, required: false, type: typeOf.get(name)! })),
    ],
    partitionBy: columns.flatMap((name, i) => {
      const isLong = COLUMN_KEYS[i]!.endsWith(' long');
      return EXTREME_TRANSFORMS.filter((t) => t !== 'void' && canTransform(parseTransform(t), typeOf.get(name)!) && !(isLong && t === 'identity')).map(
        (t) => ({ name: `${name}_${t.replace(/\W/g, '')}`, transform: t, sourceId: i + 2 }),
      );
    }),
    query: rows.join(' UNION ALL '),
  }));
  expect(files).toHaveLength(CASES.length);
}, 120_000);

afterAll(() => {
  session?.close();
  if (warehouse !== undefined) rmSync(warehouse, { recursive: true, force: true });
});

// One read per column, its cases OR-ed: the manifest list's summaries of that column alone decide
// whether Java reads the manifest, so a summary bound in an order Java does not use shows too.
it.each(COLUMN_KEYS.map((_, i) => `c${i}`))('Spark finds every extreme value of %s through its own pruning', async (column) => {
  const cases = CASES.filter((c) => columnOf(c) === column);
  const table = await readWithSpark({
    catalogDb: join(warehouse, 'catalog.db'),
    warehouse: pathToFileURL(warehouse).href,
    catalogName: 'default',
    table: TABLE,
    filter: cases.map((c) => `(${column} = ${sparkLiteral(c.type, c.value)})`).join(' OR '),
  });
  const found = new Set(table.rows.map((row) => row['id']));
  expect(cases.filter((c) => !found.has(CASES.indexOf(c))).map((c) => c.name)).toEqual([]);
  expect(table.rowCount).toBe(cases.length);
}, 900_000);
