/**
 * v3 column defaults (spec "Default values"): `initial-default` fills the field in rows of data
 * files written before the field existed, `write-default` fills it when a writer does not supply
 * it. Both are stored in the JSON single-value form of the field's type (spec Appendix D):
 * boolean, int, long, float, double as JSON numbers and booleans; decimal as a string
 * ("14.20"); date, time, timestamp(_ns) as ISO strings ("2017-11-16", "22:31:08.123456",
 * "2017-11-16T22:31:08.123456"), the tz types with an offset ("…+00:00"); string and uuid as
 * strings; fixed and binary as hex strings ("000102ff"); struct as an object by field id, list as
 * an array, map as {"keys": […], "values": […]}. unknown, variant, geometry and geography only
 * default to null.
 *
 * This file checks those forms (parseDefaultValue, into the JS value forms of bounds.ts) and
 * gives DuckDB the value: as text DuckDB casts to the column's type (read_parquet's
 * `default_value`) and as a typed SQL expression (a writer's missing column).
 */
import { IcebergFormatError } from '../errors.js';
import { allFields } from './schema.js';
import { civilFromDays } from './transforms/time.js';
import type { IcebergType, NestedField, PrimitiveType, Schema } from './types.js';
import { isPrimitive } from './types.js';
import { daysFromCivil } from './civil-date.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const DATE_RE = /^([+-]?\d{4,})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const OFFSET_RE = /(Z|[+-]\d{2}:\d{2}(?::\d{2})?)$/;
const DECIMAL_RE = /^([+-])?(\d+)(?:\.(\d+))?$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

function fail(where: string, type: IcebergType, value: unknown, why: string): never {
  const shown = typeof value === 'bigint' ? String(value) : JSON.stringify(value);
  throw new IcebergFormatError(`Invalid default value ${shown} for type ${typeLabel(type)} at ${where}: ${why}`, {
    context: { where, type: typeLabel(type) },
  });
}

function typeLabel(type: IcebergType): string {
  if (type.kind === 'decimal') return `decimal(${type.precision}, ${type.scale})`;
  if (type.kind === 'fixed') return `fixed[${type.length}]`;
  return type.kind;
}

function parseDate(text: string): number | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const days = daysFromCivil(year, month, day);
  const back = civilFromDays(days);
  return back.month === month && back.day === day ? days : undefined;
}

/** Nanoseconds since midnight; Java truncates a finer fraction to the type's unit, as done by the caller. */
function parseTime(text: string): bigint | undefined {
  const m = TIME_RE.exec(text);
  if (!m) return undefined;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const fraction = BigInt((m[4] ?? '').padEnd(9, '0'));
  return BigInt(h * 3600 + mi * 60 + s) * 1_000_000_000n + fraction;
}

/** Nanoseconds since the epoch of `date'T'time[offset]`; the offset is required for tz types and refused otherwise. */
function parseTimestampNanos(text: string, zoned: boolean): bigint | undefined {
  const t = text.indexOf('T');
  if (t < 0) return undefined;
  let rest = text.slice(t + 1);
  let offsetSeconds = 0;
  const offset = OFFSET_RE.exec(rest);
  if (offset) {
    if (!zoned) return undefined;
    rest = rest.slice(0, rest.length - offset[1]!.length);
    if (offset[1] !== 'Z') {
      const sign = offset[1]!.startsWith('-') ? -1 : 1;
      const [oh, om, os] = offset[1]!.slice(1).split(':').map(Number) as [number, number, number | undefined];
      offsetSeconds = sign * (oh * 3600 + om * 60 + (os ?? 0));
    }
  } else if (zoned) return undefined;
  const days = parseDate(text.slice(0, t));
  const nanosOfDay = parseTime(rest);
  if (days === undefined || nanosOfDay === undefined) return undefined;
  return (BigInt(days) * 86_400n - BigInt(offsetSeconds)) * 1_000_000_000n + nanosOfDay;
}

/** Floor division for the truncation of nanoseconds to µs (Java truncates toward −∞ via floorDiv). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function integer(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return undefined;
}

/**
 * The JS value form (bounds.ts: int/date → number, long/time/timestamps → bigint, decimal →
 * unscaled bigint, fixed/binary → Uint8Array, uuid → lowercase string; struct → Map of field id
 * to value, list → array, map → Map) of a default in its JSON single-value form; null stays null.
 * Throws IcebergFormatError naming `where` for a value the type cannot take.
 */
export function parseDefaultValue(type: IcebergType, json: unknown, where: string): unknown {
  if (json === null || json === undefined) return null;
  const bad = (why: string): never => fail(where, type, json, why);
  switch (type.kind) {
    case 'boolean':
      return typeof json === 'boolean' ? json : bad('expected true or false');
    case 'int': {
      const v = integer(json);
      return v !== undefined && v >= INT32_MIN && v <= INT32_MAX ? Number(v) : bad('expected a 32-bit integer');
    }
    case 'long': {
      const v = integer(json);
      return v !== undefined && v >= INT64_MIN && v <= INT64_MAX ? v : bad('expected a 64-bit integer');
    }
    case 'float':
      return typeof json === 'number' ? Math.fround(json) : bad('expected a number');
    case 'double':
      return typeof json === 'number' ? json : bad('expected a number');
    case 'decimal': {
      const m = typeof json === 'string' ? DECIMAL_RE.exec(json) : null;
      if (!m) return bad('expected a decimal string such as "14.20"');
      const fraction = m[3] ?? '';
      if (fraction.length > type.scale) return bad(`more than ${type.scale} digits after the point`);
      const unscaled = BigInt(m[2]! + fraction.padEnd(type.scale, '0'));
      if (unscaled >= 10n ** BigInt(type.precision)) return bad(`more than ${type.precision} digits`);
      return m[1] === '-' ? -unscaled : unscaled;
    }
    case 'date': {
      const days = typeof json === 'string' ? parseDate(json) : undefined;
      return days !== undefined && days >= INT32_MIN && days <= INT32_MAX ? days : bad('expected an ISO date such as "2017-11-16"');
    }
    case 'time': {
      const nanos = typeof json === 'string' ? parseTime(json) : undefined;
      return nanos !== undefined ? nanos / 1000n : bad('expected an ISO time such as "22:31:08.123456"');
    }
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      const zoned = type.kind === 'timestamptz' || type.kind === 'timestamptz_ns';
      const nanos = typeof json === 'string' ? parseTimestampNanos(json, zoned) : undefined;
      if (nanos === undefined) {
        return bad(zoned ? 'expected an ISO timestamp with an offset such as "2017-11-16T22:31:08+00:00"' : 'expected an ISO timestamp without offset such as "2017-11-16T22:31:08"');
      }
      const value = type.kind === 'timestamp_ns' || type.kind === 'timestamptz_ns' ? nanos : floorDiv(nanos, 1000n);
      return value >= INT64_MIN && value <= INT64_MAX ? value : bad('outside the range of 64-bit nanoseconds since the epoch');
    }
    case 'string':
      return typeof json === 'string' ? json : bad('expected a string');
    case 'uuid':
      return typeof json === 'string' && UUID_RE.test(json) ? json.toLowerCase() : bad('expected an 8-4-4-4-12 hex uuid');
    case 'fixed':
    case 'binary': {
      if (typeof json !== 'string' || !HEX_RE.test(json)) return bad('expected a hex string');
      const bytes = new Uint8Array(Buffer.from(json, 'hex'));
      if (type.kind === 'fixed' && bytes.length !== type.length) return bad(`expected ${type.length} bytes`);
      return bytes;
    }
    case 'struct': {
      if (typeof json !== 'object' || Array.isArray(json)) return bad('expected an object keyed by field id');
      const out = new Map<number, unknown>();
      for (const [key, value] of Object.entries(json)) {
        const field = type.fields.find((f) => String(f.id) === key);
        if (field === undefined) return bad(`${key} is not a field id of the struct`);
        out.set(field.id, parseDefaultValue(field.type, value, `${where}.${field.name}`));
      }
      return out;
    }
    case 'list':
      if (!Array.isArray(json)) return bad('expected an array');
      return json.map((element, i) => parseDefaultValue(type.element, element, `${where}[${i}]`));
    case 'map': {
      const keys = (json as { keys?: unknown }).keys;
      const values = (json as { values?: unknown }).values;
      if (typeof json !== 'object' || !Array.isArray(keys) || !Array.isArray(values) || keys.length !== values.length) {
        return bad('expected {"keys": [...], "values": [...]} of equal lengths');
      }
      return new Map(
        keys.map((key, i) => [parseDefaultValue(type.key, key, `${where}.keys[${i}]`), parseDefaultValue(type.value, values[i], `${where}.values[${i}]`)]),
      );
    }
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      return bad(`columns of type ${type.kind} can only default to null`);
  }
}

const pad = (n: number | bigint, width: number): string => String(n).padStart(width, '0');

/** DuckDB date text: years 1…9999 as is, others with DuckDB's own forms. */
function dateText(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const md = `${pad(month, 2)}-${pad(day, 2)}`;
  return year > 0 ? `${pad(year, 4)}-${md}` : `${pad(1 - year, 4)}-${md} (BC)`;
}

/** `HH:MM:SS.fffffffff` of nanoseconds within a day. */
function timeText(nanosOfDay: bigint, digits: 6 | 9): string {
  const seconds = nanosOfDay / 1_000_000_000n;
  const fraction = nanosOfDay % 1_000_000_000n;
  const hms = `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}`;
  return `${hms}.${pad(digits === 9 ? fraction : fraction / 1000n, digits)}`;
}

function timestampText(value: bigint, unitsPerSecond: bigint, digits: 6 | 9): string {
  const perDay = 86_400n * unitsPerSecond;
  const days = floorDiv(value, perDay);
  const within = (value - days * perDay) * (1_000_000_000n / unitsPerSecond);
  return `${dateText(Number(days))} ${timeText(within, digits)}`;
}

/**
 * A primitive default (JS value form) as text DuckDB casts to the column's DuckDB type
 * (duckdb-types.ts): timestamptz_ns as its UTC wall clock, binary as `\xNN` escapes.
 */
export function defaultValueText(type: PrimitiveType, value: unknown): string {
  switch (type.kind) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'int':
    case 'long':
      return String(value);
    case 'float':
    case 'double':
      return String(value);
    case 'decimal': {
      const unscaled = value as bigint;
      const digits = pad(unscaled < 0n ? -unscaled : unscaled, type.scale + 1);
      const text = type.scale === 0 ? digits : `${digits.slice(0, digits.length - type.scale)}.${digits.slice(digits.length - type.scale)}`;
      return unscaled < 0n ? `-${text}` : text;
    }
    case 'date':
      return dateText(value as number);
    case 'time':
      return timeText((value as bigint) * 1000n, 6);
    case 'timestamp':
      return timestampText(value as bigint, 1_000_000n, 6);
    case 'timestamptz':
      return `${timestampText(value as bigint, 1_000_000n, 6)}+00`;
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return timestampText(value as bigint, 1_000_000_000n, 9);
    case 'string':
    case 'uuid':
      return value as string;
    case 'fixed':
    case 'binary':
      return Array.from(value as Uint8Array, (b) => `\\x${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      throw new IcebergFormatError(`columns of type ${type.kind} have no non-null default`, { context: { type: type.kind } });
  }
}

/**
 * A field's initial-default or write-default as DuckDB text (for the field's own type), or
 * undefined when the field has none (or null). Struct, list and map defaults other than null are
 * refused: Thund does not apply them.
 */
export function fieldDefaultText(field: NestedField, which: 'initial' | 'write', column: string = field.name): string | undefined {
  const json = which === 'initial' ? field.initialDefault : field.writeDefault;
  const value = parseDefaultValue(field.type, json, `${column} ${which}-default`);
  if (value === null) return undefined;
  if (!isPrimitive(field.type)) {
    throw new IcebergFormatError(
      `Column "${column}" has a non-null ${which}-default of type ${field.type.kind}; Thund applies defaults of primitive columns only`,
      { context: { column, type: field.type.kind } },
    );
  }
  return defaultValueText(field.type, value);
}

/** Whether the field has a non-null default of that kind. */
export function hasDefault(field: NestedField, which: 'initial' | 'write'): boolean {
  const json = which === 'initial' ? field.initialDefault : field.writeDefault;
  return json !== undefined && json !== null;
}

/**
 * Refuses a schema whose fields below the top level carry a non-null initial-default: reads
 * apply defaults per top-level column only (read_parquet's `default_value`), and reading such a
 * field as null would give wrong rows.
 */
export function checkNestedInitialDefaults(schema: Pick<Schema, 'fields'>): void {
  for (const { field, path } of allFields(schema)) {
    if (path.length > 1 && hasDefault(field, 'initial')) {
      const column = path.join('.');
      throw new IcebergFormatError(
        `Column "${column}" has an initial-default inside a struct, list or map; Thund applies initial defaults of top-level columns only and cannot read this table yet`,
        { context: { column } },
      );
    }
  }
}
