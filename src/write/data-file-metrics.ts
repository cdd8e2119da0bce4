/**
 * Data-file metrics (column sizes, value/null/NaN counts, lower/upper bounds) from one row of
 * DuckDB's `COPY … (FORMAT parquet, RETURN_STATS true)` result.
 *
 * DuckDB reports min/max as text. A bound that cannot be parsed with certainty is omitted:
 * a wrong bound makes readers skip files that hold matching rows, a missing one costs nothing
 * but pruning. Rules (Java's where the spec is silent):
 * - fields nested in a list or map get no counts and no bounds;
 * - float/double: NaN counts and NaN-free bounds of a file holding a NaN come from nan-counts.ts
 *   (RETURN_STATS has only has_nan); without them such a column gets no NaN count and no bounds.
 *   A zero bound is widened (lower → -0.0, upper → +0.0) because DuckDB does not order -0.0
 *   before +0.0;
 * - uuid: bounds only when min and max sit in the same signed half, so readers that still compare
 *   uuids as two signed longs (older Java) agree with the unsigned order;
 * - string/binary: truncate(N) per the metrics mode.
 */
import { IcebergFormatError, InvalidInputError } from '../errors.js';
import { compareValues, encodeSingleValue, truncateLowerBound, truncateUpperBound } from '../iceberg/bounds.js';
import { duckDbColumnPath } from '../iceberg/duckdb-types.js';
import { allFields } from '../iceberg/schema.js';
import type { PrimitiveType, Schema } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';
import { daysFromCivil } from '../iceberg/civil-date.js';

export type MetricsMode =
  | { readonly kind: 'none' }
  | { readonly kind: 'counts' }
  | { readonly kind: 'truncate'; readonly length: number }
  | { readonly kind: 'full' };

export interface MetricsConfig {
  readonly defaultMode: MetricsMode;
  /** Full column name (`a`, `st.x`) → mode, from `write.metadata.metrics.column.<name>`. */
  readonly columnModes: ReadonlyMap<string, MetricsMode>;
}

export interface DataFileMetrics {
  readonly columnSizes: Map<number, bigint>;
  readonly valueCounts: Map<number, bigint>;
  readonly nullValueCounts: Map<number, bigint>;
  readonly nanValueCounts: Map<number, bigint>;
  readonly lowerBounds: Map<number, Uint8Array>;
  readonly upperBounds: Map<number, Uint8Array>;
}

/** What nan-counts.ts learnt about a float/double column of one file that holds a NaN. */
export interface NanColumnStats {
  readonly nanCount: bigint;
  /** The least and greatest non-NaN values as DuckDB prints them; undefined when every value is NaN or null. */
  readonly min?: string;
  readonly max?: string;
}

/** Column statistics path (`"st"."x"`, as RETURN_STATS keys it) → its NaN stats, for one file. */
export type FileNanStats = ReadonlyMap<string, NanColumnStats>;

export const DEFAULT_METRICS_MODE: MetricsMode = { kind: 'truncate', length: 16 };
const DEFAULT_KEY = 'write.metadata.metrics.default';
const COLUMN_PREFIX = 'write.metadata.metrics.column.';

/** Parse `none`, `counts`, `truncate(N)` (N > 0) or `full`, case-insensitively. */
export function parseMetricsMode(text: string, where: string): MetricsMode {
  const t = text.trim().toLowerCase();
  if (t === 'none' || t === 'counts' || t === 'full') return { kind: t };
  const m = /^truncate\((\d+)\)$/.exec(t);
  if (m && Number(m[1]) > 0) return { kind: 'truncate', length: Number(m[1]) };
  throw new InvalidInputError(`${where} must be none, counts, truncate(N) with N > 0, or full; got "${text}"`, {
    context: { property: where, value: text },
  });
}

export function metricsConfigFromProperties(properties: Readonly<Record<string, string>>): MetricsConfig {
  const raw = properties[DEFAULT_KEY];
  const defaultMode = raw === undefined ? DEFAULT_METRICS_MODE : parseMetricsMode(raw, DEFAULT_KEY);
  const columnModes = new Map<string, MetricsMode>();
  for (const [key, value] of Object.entries(properties)) {
    if (key.startsWith(COLUMN_PREFIX)) columnModes.set(key.slice(COLUMN_PREFIX.length), parseMetricsMode(value, key));
  }
  return { defaultMode, columnModes };
}

type Stats = ReadonlyMap<string, string>;

function entriesOf(raw: unknown): Array<[string, unknown]> {
  if (raw instanceof Map) return [...raw.entries()].map(([k, v]) => [String(k), v]);
  const list = Array.isArray(raw)
    ? raw
    : typeof raw === 'object' && raw !== null && Array.isArray((raw as { entries?: unknown }).entries)
      ? (raw as { entries: unknown[] }).entries
      : undefined;
  if (list !== undefined) {
    return list.flatMap((e) =>
      typeof e === 'object' && e !== null && 'key' in e ? [[String((e as { key: unknown }).key), (e as { value: unknown }).value]] : [],
    ) as Array<[string, unknown]>;
  }
  if (typeof raw === 'object' && raw !== null) return Object.entries(raw);
  return [];
}

/**
 * RETURN_STATS' column_statistics in any of the shapes @duckdb/node-api gives it (JSON rows:
 * `[{key, value: [{key, value}]}]`; DuckDBMapValue `{entries}`; a Map or a plain object) →
 * column path → stat name → text.
 */
export function normalizeColumnStatistics(raw: unknown): Map<string, Stats> {
  const out = new Map<string, Stats>();
  for (const [path, stats] of entriesOf(raw)) {
    const inner = new Map<string, string>();
    for (const [k, v] of entriesOf(stats)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') {
        inner.set(k, String(v));
      }
    }
    out.set(path, inner);
  }
  return out;
}

const INT_RE = /^[-+]?\d+$/;
const FLOAT_RE = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
const DECIMAL_RE = /^([-+])?(\d*)(?:\.(\d*))?$/;
const DATE_PART = String.raw`(\d{4,})-(\d{2})-(\d{2})( \(BC\))?`;
const DATE_RE = new RegExp(`^${DATE_PART}$`);
const TIME_RE = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const TIMESTAMP_RE = new RegExp(
  `^${DATE_PART} (\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?(?:([+-])(\\d{2})(?::?(\\d{2}))?(?::?(\\d{2}))?)?$`,
);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parseDays(y: string, mo: string, d: string, bc: string | undefined): number | undefined {
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const year = bc === undefined ? Number(y) : 1 - Number(y);
  return daysFromCivil(year, month, day);
}

/** Sub-second digits as an integer count of 10^-digits seconds; undefined when too precise. */
function fraction(text: string | undefined, digits: number): bigint | undefined {
  if (text === undefined) return 0n;
  if (text.length > digits) return undefined;
  return BigInt(text.padEnd(digits, '0'));
}

function parseTimestamp(text: string, zoned: boolean, digits: 6 | 9): bigint | undefined {
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, bc, hh, mi, ss, frac, offSign, offH, offM, offS] = m;
  const days = parseDays(y as string, mo as string, d as string, bc);
  const f = fraction(frac, digits);
  if (days === undefined || f === undefined) return undefined;
  if (!zoned && offSign !== undefined) return undefined;
  const unit = digits === 6 ? 1_000_000n : 1_000_000_000n;
  const seconds = BigInt(days) * 86_400n + BigInt(Number(hh) * 3600 + Number(mi) * 60 + Number(ss));
  let offset = 0n;
  if (offSign !== undefined) {
    offset = BigInt(Number(offH) * 3600 + Number(offM ?? 0) * 60 + Number(offS ?? 0));
    if (offSign === '-') offset = -offset;
  }
  return (seconds - offset) * unit + f;
}

function parseFloating(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'inf' || t === 'infinity' || t === '+inf' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (!FLOAT_RE.test(t)) return undefined;
  return Number(t);
}

/**
 * Parse one min/max text from RETURN_STATS into the Iceberg JS value form; undefined when the
 * text is not understood with certainty.
 */
export function parseDuckDbStatValue(type: PrimitiveType, text: string): unknown {
  switch (type.kind) {
    case 'boolean':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return undefined;
    case 'int': {
      if (!INT_RE.test(text)) return undefined;
      const n = Number(text);
      return n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
    }
    case 'long': {
      if (!INT_RE.test(text)) return undefined;
      const n = BigInt(text);
      return n >= -(1n << 63n) && n < 1n << 63n ? n : undefined;
    }
    case 'float': {
      const n = parseFloating(text);
      return n === undefined || Number.isNaN(n) ? undefined : Math.fround(n);
    }
    case 'double': {
      const n = parseFloating(text);
      return n === undefined || Number.isNaN(n) ? undefined : n;
    }
    case 'decimal': {
      const m = DECIMAL_RE.exec(text);
      if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
      const frac = m[3] ?? '';
      if (frac.length > type.scale) return undefined;
      const unscaled = BigInt((m[2] || '0') + frac.padEnd(type.scale, '0'));
      const value = m[1] === '-' ? -unscaled : unscaled;
      return unscaled < 10n ** BigInt(type.precision) ? value : undefined;
    }
    case 'date': {
      const m = DATE_RE.exec(text);
      if (!m) return undefined;
      const days = parseDays(m[1] as string, m[2] as string, m[3] as string, m[4]);
      return days !== undefined && days >= -(2 ** 31) && days < 2 ** 31 ? days : undefined;
    }
    case 'time': {
      const m = TIME_RE.exec(text);
      if (!m) return undefined;
      const f = fraction(m[4], 6);
      if (f === undefined) return undefined;
      return BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1_000_000n + f;
    }
    case 'timestamp':
      return parseTimestamp(text, false, 6);
    case 'timestamptz':
      return parseTimestamp(text, true, 6);
    case 'timestamp_ns':
      return parseTimestamp(text, false, 9);
    case 'timestamptz_ns':
      return parseTimestamp(text, true, 9);
    case 'string':
      return text;
    case 'uuid': {
      const lower = text.toLowerCase();
      return UUID_RE.test(lower) ? lower : undefined;
    }
    case 'binary':
    case 'fixed': {
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) return undefined;
      const bytes = new Uint8Array(text.length / 2);
      for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
      if (type.kind === 'fixed' && bytes.length !== type.length) return undefined;
      return bytes;
    }
    case 'unknown':
      return undefined;
  }
}

function parseCount(text: string | undefined): bigint | undefined {
  return text !== undefined && /^\d+$/.test(text) ? BigInt(text) : undefined;
}

interface Bounds {
  readonly lower?: unknown;
  readonly upper?: unknown;
}

function boundsFor(type: PrimitiveType, stats: Stats, mode: MetricsMode): Bounds {
  if (mode.kind !== 'truncate' && mode.kind !== 'full') return {};
  if ((type.kind === 'float' || type.kind === 'double') && stats.get('has_nan') !== 'false') return {};
  const minText = stats.get('min');
  const maxText = stats.get('max');
  let lower = minText === undefined ? undefined : parseDuckDbStatValue(type, minText);
  let upper = maxText === undefined ? undefined : parseDuckDbStatValue(type, maxText);
  if (type.kind === 'float' || type.kind === 'double') {
    if (lower === 0) lower = -0;
    if (upper === 0) upper = 0;
  }
  if (type.kind === 'uuid') {
    // Signed (two-long) and unsigned uuid orders agree only within one half.
    if (lower === undefined || upper === undefined) return {};
    const half = (u: unknown): boolean => parseInt((u as string).slice(0, 1), 16) >= 8;
    if (half(lower) !== half(upper)) return {};
  }
  if (mode.kind === 'truncate') {
    if (lower !== undefined) lower = truncateLowerBound(type, lower, mode.length);
    if (upper !== undefined) upper = truncateUpperBound(type, upper, mode.length) ?? undefined;
  }
  if (lower !== undefined && upper !== undefined && compareValues(type, lower, upper) > 0) return {};
  return { lower, upper };
}

/** A NaN-holding column's stats with the non-NaN min and max of the NaN pass: no NaN is left among them. */
function withoutNan(stats: Stats, nans: NanColumnStats): Stats {
  const out = new Map(stats);
  out.set('has_nan', 'false');
  out.delete('min');
  out.delete('max');
  if (nans.min !== undefined) out.set('min', nans.min);
  if (nans.max !== undefined) out.set('max', nans.max);
  return out;
}

function encodeOrOmit(type: PrimitiveType, value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined;
  try {
    return encodeSingleValue(type, value);
  } catch (error) {
    if (error instanceof IcebergFormatError) return undefined;
    throw error;
  }
}

/**
 * Metrics for one data file: `schema` is the table schema the file was written with (field ids in
 * FIELD_IDS), `columnStatistics` the `column_statistics` value of one RETURN_STATS row.
 * Columns whose path is not in the schema are ignored.
 */
export function dataFileMetrics(
  schema: Pick<Schema, 'fields'>,
  config: MetricsConfig,
  columnStatistics: unknown,
  nanStats: FileNanStats = new Map(),
): DataFileMetrics {
  const metrics: DataFileMetrics = {
    columnSizes: new Map(),
    valueCounts: new Map(),
    nullValueCounts: new Map(),
    nanValueCounts: new Map(),
    lowerBounds: new Map(),
    upperBounds: new Map(),
  };
  const statsByPath = normalizeColumnStatistics(columnStatistics);
  for (const { field, path, inRepeated } of allFields(schema)) {
    if (!isPrimitive(field.type)) continue;
    const key = duckDbColumnPath(path);
    const duckStats = statsByPath.get(key);
    if (duckStats === undefined) continue;
    const mode = config.columnModes.get(path.join('.')) ?? config.defaultMode;
    if (mode.kind === 'none') continue;
    const type = field.type;
    const nans = type.kind === 'float' || type.kind === 'double' ? nanStats.get(key) : undefined;
    const stats = nans === undefined ? duckStats : withoutNan(duckStats, nans);
    const size = parseCount(stats.get('column_size_bytes'));
    if (size !== undefined) metrics.columnSizes.set(field.id, size);
    if (inRepeated) continue;
    const values = parseCount(stats.get('num_values'));
    const nulls = parseCount(stats.get('null_count'));
    if (values !== undefined) metrics.valueCounts.set(field.id, values);
    if (nulls !== undefined) metrics.nullValueCounts.set(field.id, nulls);
    if (type.kind === 'float' || type.kind === 'double') {
      const nanCount = nans?.nanCount ?? (duckStats.get('has_nan') === 'false' ? 0n : undefined);
      if (nanCount !== undefined) metrics.nanValueCounts.set(field.id, nanCount);
    }
    const { lower, upper } = boundsFor(type, stats, mode);
    const lowerBytes = encodeOrOmit(type, lower);
    const upperBytes = encodeOrOmit(type, upper);
    if (lowerBytes !== undefined) metrics.lowerBounds.set(field.id, lowerBytes);
    if (upperBytes !== undefined) metrics.upperBounds.set(field.id, upperBytes);
  }
  return metrics;
}
