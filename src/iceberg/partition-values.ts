/**
 * Partition values outside the manifest: Java's human-readable text of a partition value
 * (`Transform.toHumanString`), the `name=value/…` path of a partition tuple (Java's
 * `PartitionSpec.partitionToPath`, as Spark lays out data directories), and conversion of the
 * value forms DuckDB returns for `partitionSql` expressions into the JS single-value forms.
 */
import { IcebergFormatError } from '../errors.js';
import { civilFromDays, floorDiv } from './transforms/time.js';
import type { Transform } from './transforms/transform.js';
import type { PrimitiveType } from './types.js';

const pad = (n: number | bigint, width: number): string => {
  const text = String(n < 0 ? -n : n).padStart(width, '0');
  return n < 0 ? `-${text}` : text;
};

/** Java LocalDate text: yyyy-MM-dd, a `+` before years above 9999. */
function isoDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const y = year > 9999 ? `+${year}` : pad(year, 4);
  return `${y}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** Java ISO_LOCAL_TIME: HH:mm:ss, then the fraction without trailing zeros when non-zero. */
function isoTime(microsOfDay: bigint, nanosExtra = 0n): string {
  const seconds = microsOfDay / 1_000_000n;
  const nanos = (microsOfDay % 1_000_000n) * 1000n + nanosExtra;
  const hms = `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}`;
  return nanos === 0n ? hms : `${hms}.${pad(nanos, 9).replace(/0+$/, '')}`;
}

function isoTimestamp(micros: bigint, nanosExtra = 0n): string {
  const days = floorDiv(micros, 86_400_000_000n);
  return `${isoDate(Number(days))}T${isoTime(micros - days * 86_400_000_000n, nanosExtra)}`;
}

/** Java BigDecimal.toString of unscaled × 10^-scale (scientific only for tiny adjusted exponents). */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = String(negative ? -unscaled : unscaled);
  const adjusted = digits.length - 1 - scale;
  let text: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) text = digits;
    else if (digits.length > scale) text = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
    else text = `0.${'0'.repeat(scale - digits.length)}${digits}`;
  } else {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    text = `${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
  }
  return negative ? `-${text}` : text;
}

/** Java Float/Double.toString for ordinary magnitudes: shortest digits, always a fraction. */
function floatingText(value: number, single: boolean): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(value, -0)) return '-0.0';
  let text = String(value);
  if (single) {
    for (let p = 1; p <= 9; p++) {
      const candidate = Number(value.toPrecision(p));
      if (Math.fround(candidate) === value) {
        text = String(candidate);
        break;
      }
    }
  }
  const abs = Math.abs(value);
  if (abs >= 1e-3 && abs < 1e7) return /[.e]/.test(text) ? text : `${text}.0`;
  const [mantissa, exponent] = Number(text).toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** The text Java's `Transform.toHumanString` gives a partition value of `resultType`. */
export function partitionHumanString(transform: Transform, resultType: PrimitiveType, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (transform.kind) {
    case 'year':
      return pad(1970 + (value as number), 4);
    case 'month': {
      const months = value as number;
      const year = 1970 + Math.floor(months / 12);
      return `${pad(year, 4)}-${pad(months - Math.floor(months / 12) * 12 + 1, 2)}`;
    }
    case 'day':
      return isoDate(value as number);
    case 'hour': {
      const hours = value as number;
      const days = Math.floor(hours / 24);
      return `${isoDate(days)}-${pad(hours - days * 24, 2)}`;
    }
    case 'bucket':
      return String(value);
    default:
      return valueText(resultType, value);
  }
}

function valueText(type: PrimitiveType, value: unknown): string {
  switch (type.kind) {
    case 'date':
      return isoDate(value as number);
    case 'time':
      return isoTime(value as bigint);
    case 'timestamp':
      return isoTimestamp(value as bigint);
    case 'timestamptz':
      return `${isoTimestamp(value as bigint)}+00:00`;
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      const nanos = value as bigint;
      const micros = floorDiv(nanos, 1000n);
      const text = isoTimestamp(micros, nanos - micros * 1000n);
      return type.kind === 'timestamptz_ns' ? `${text}+00:00` : text;
    }
    case 'decimal':
      return decimalText(value as bigint, type.scale);
    case 'float':
    case 'double':
      return floatingText(value as number, type.kind === 'float');
    case 'fixed':
    case 'binary':
      return base64(value as Uint8Array);
    default:
      return String(value);
  }
}

/** Java's URLEncoder (UTF-8): letters, digits and `.-*_` stay, a space becomes `+`. */
export function urlEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()~]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

export interface PathField {
  readonly name: string;
  readonly transform: Transform;
  readonly resultType: PrimitiveType;
  readonly fieldId: number;
}

/** `name=value/…` of a partition tuple (no leading or trailing slash), as Java names data directories. */
export function partitionPath(fields: readonly PathField[], values: ReadonlyMap<number, unknown>): string {
  return fields
    .map((f) => `${urlEncode(f.name)}=${urlEncode(partitionHumanString(f.transform, f.resultType, values.get(f.fieldId) ?? null))}`)
    .join('/');
}

/**
 * A value read back from DuckDB (node-api `getRows`/`getRowObjects`) for a `partitionSql`
 * column into the JS single-value form of `resultType`.
 */
export function partitionValueFromDuckDb(resultType: PrimitiveType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const bad = (): never => {
    throw new IcebergFormatError(`unexpected DuckDB value ${String(value)} for a ${resultType.kind} partition value`, {
      context: { type: resultType.kind },
    });
  };
  switch (resultType.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? value : bad();
    case 'int':
    case 'date':
    case 'float':
    case 'double':
      return typeof value === 'number' ? value : bad();
    case 'string':
    case 'uuid':
      return typeof value === 'string' ? value : bad();
    case 'fixed':
    case 'binary': {
      const bytes = value instanceof Uint8Array ? value : (value as { bytes?: unknown }).bytes;
      return bytes instanceof Uint8Array ? new Uint8Array(bytes) : bad();
    }
    case 'unknown':
      return bad();
    default:
      return typeof value === 'bigint' ? value : bad();
  }
}
