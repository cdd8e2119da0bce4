/**
 * A partition transform as one DuckDB SQL expression over a source column, so a whole batch is
 * partitioned inside DuckDB. The source expression must have the DuckDB type duckdb-types.ts maps
 * the Iceberg source type to. Results are in the *value form* of the result type, which equals
 * the JS single-value form (apply.ts) once read back:
 *   int, date → INTEGER (days) | long, time, timestamp, timestamptz → BIGINT (µs) |
 *   timestamp_ns, timestamptz_ns → BIGINT (ns) | decimal → HUGEINT (unscaled) | string, uuid → VARCHAR
 *   (uuid lowercase) | fixed, binary → BLOB | boolean → BOOLEAN | float → FLOAT | double → DOUBLE.
 * bucket[N] calls the functions src/duckdb/transform-udfs.ts registers (every DuckDbSession has them).
 */
import { IcebergFormatError } from '../../errors.js';
import type { IcebergType, PrimitiveType } from '../types.js';
import { MURMUR3_BYTES_FUNCTION, MURMUR3_LONG_FUNCTION, MURMUR3_UNSCALED_FUNCTION } from './udf-names.js';
import { transformResultType } from './result-type.js';
import type { TransformSite } from './result-type.js';
import type { Transform } from './transform.js';

const MICROS_PER_DAY = '86400000000';
const MICROS_PER_HOUR = '3600000000';

/** The DuckDB type of the value form of an Iceberg primitive type. */
export function valueFormDuckDbType(type: PrimitiveType): string {
  switch (type.kind) {
    case 'boolean':
      return 'BOOLEAN';
    case 'int':
    case 'date':
      return 'INTEGER';
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE';
    case 'decimal':
      return 'HUGEINT';
    case 'string':
    case 'uuid':
      return 'VARCHAR';
    case 'fixed':
    case 'binary':
      return 'BLOB';
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      throw new IcebergFormatError(`values of type ${type.kind} have no DuckDB value form`, { context: { type: type.kind } });
  }
}

/** floor(a / b) for b > 0 in integer arithmetic (DuckDB's // truncates toward zero). */
function floorDiv(a: string, b: string): string {
  return `((${a}) // ${b} - CASE WHEN (${a}) % ${b} < 0 THEN 1 ELSE 0 END)`;
}

function unscaled(x: string, type: PrimitiveType): string {
  if (type.kind !== 'decimal') throw new IcebergFormatError(`expected a decimal, got ${type.kind}`);
  // DECIMAL text always carries exactly `scale` fraction digits, so dropping the point is exact.
  return `CAST(replace(CAST(CAST(${x} AS DECIMAL(${type.precision}, ${type.scale})) AS VARCHAR), '.', '') AS HUGEINT)`;
}

/** µs since the epoch of a timestamp-typed expression (ns floor-divided). */
function epochMicros(x: string, type: PrimitiveType): string {
  switch (type.kind) {
    case 'timestamp':
    case 'timestamptz':
      return `epoch_us(${x})`;
    case 'timestamp_ns':
    case 'timestamptz_ns':
      // Both are TIMESTAMP_NS in DuckDB (timestamptz_ns as the UTC wall clock): no time zone applies.
      return floorDiv(`epoch_ns(${x})`, '1000');
    default:
      throw new IcebergFormatError(`DuckDB has no ${type.kind} column form`, { context: { type: type.kind } });
  }
}

/** Days since 1970-01-01 of a date or timestamp expression, as BIGINT. */
function epochDays(x: string, type: PrimitiveType): string {
  if (type.kind === 'date') return `(CAST(${x} AS DATE) - DATE '1970-01-01')`;
  return floorDiv(epochMicros(x, type), MICROS_PER_DAY);
}

/** A source value in the value form of its own type. */
function valueForm(x: string, type: PrimitiveType): string {
  switch (type.kind) {
    case 'date':
      return `CAST(${epochDays(x, type)} AS INTEGER)`;
    case 'time':
      return `epoch_us(CAST(${x} AS TIME))`;
    case 'timestamp':
    case 'timestamptz':
      return epochMicros(x, type);
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return `epoch_ns(${x})`;
    case 'decimal':
      return unscaled(x, type);
    case 'uuid':
      return `CAST(CAST(${x} AS UUID) AS VARCHAR)`;
    default:
      return `CAST(${x} AS ${valueFormDuckDbType(type)})`;
  }
}

function bucketHash(x: string, type: PrimitiveType): string {
  switch (type.kind) {
    case 'int':
    case 'long':
      return `${MURMUR3_LONG_FUNCTION}(CAST(${x} AS BIGINT))`;
    case 'date':
      return `${MURMUR3_LONG_FUNCTION}(${epochDays(x, type)})`;
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      return `${MURMUR3_LONG_FUNCTION}(${valueForm(x, type)})`;
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return `${MURMUR3_LONG_FUNCTION}(${epochMicros(x, type)})`;
    case 'decimal':
      return `${MURMUR3_UNSCALED_FUNCTION}(${unscaled(x, type)})`;
    case 'string':
      return `${MURMUR3_BYTES_FUNCTION}(encode(CAST(${x} AS VARCHAR)))`;
    case 'uuid':
      return `${MURMUR3_BYTES_FUNCTION}(unhex(replace(CAST(CAST(${x} AS UUID) AS VARCHAR), '-', '')))`;
    default:
      return `${MURMUR3_BYTES_FUNCTION}(CAST(${x} AS BLOB))`;
  }
}

/** `v` wrapped to a `bits`-bit two's-complement value, computed in a wider integer type. */
function wrapSql(v: string, bits: 32 | 64): string {
  const half = (1n << BigInt(bits - 1)).toString();
  const mask = ((1n << BigInt(bits)) - 1n).toString();
  return `((((${v}) + ${half}) & ${mask}) - ${half})`;
}

/** truncate[W] as truncate.ts computes it: Java's int and long arithmetic, wrapping included. */
function truncateSql(x: string, type: PrimitiveType, width: number): string {
  const down = (v: string): string => `(${v} - (((${v} % ${width}) + ${width}) % ${width}))`;
  switch (type.kind) {
    case 'int': {
      const v = `CAST(${x} AS BIGINT)`;
      const remainder = `(${wrapSql(`(${v} % ${width}) + ${width}`, 32)} % ${width})`;
      return `CAST(${wrapSql(`${v} - ${remainder}`, 32)} AS INTEGER)`;
    }
    case 'long':
      return `CAST(${wrapSql(down(`CAST(${x} AS HUGEINT)`), 64)} AS BIGINT)`;
    case 'decimal':
      return down(unscaled(x, type));
    case 'string':
      // left() counts code points, as the spec asks (left_grapheme would count clusters).
      return `left(CAST(${x} AS VARCHAR), ${width})`;
    default:
      return `unhex(left(hex(CAST(${x} AS BLOB)), ${2 * width}))`;
  }
}

/**
 * The SQL expression computing `transform` of `sourceExpression` (already quoted SQL), typed
 * as the value form of the transform's result type. NULL in, NULL out.
 */
export function transformSql(transform: Transform, sourceExpression: string, sourceType: IcebergType, site: TransformSite): string {
  const resultType = transformResultType(transform, sourceType, site);
  const source = sourceType as PrimitiveType;
  const x = `(${sourceExpression})`;
  switch (transform.kind) {
    case 'identity':
      return valueForm(x, source);
    case 'void':
      return `CAST(NULL AS ${valueFormDuckDbType(resultType)})`;
    case 'bucket':
      return `CAST((${bucketHash(x, source)} & 2147483647) % ${transform.numBuckets} AS INTEGER)`;
    case 'truncate':
      return truncateSql(x, source, transform.width);
    case 'day':
      return `CAST(${epochDays(x, source)} AS INTEGER)`;
    case 'hour':
      return `CAST(${floorDiv(epochMicros(x, source), MICROS_PER_HOUR)} AS INTEGER)`;
    case 'year':
    case 'month': {
      const date = source.kind === 'date' ? `CAST(${x} AS DATE)` : `(DATE '1970-01-01' + CAST(${epochDays(x, source)} AS INTEGER))`;
      const years = `(year(${date}) - 1970)`;
      return transform.kind === 'year' ? `CAST(${years} AS INTEGER)` : `CAST(${years} * 12 + month(${date}) - 1 AS INTEGER)`;
    }
    case 'unknown':
      throw new IcebergFormatError(`unknown transform '${transform.text}'`, { context: { partitionField: site.partitionField } });
  }
}
