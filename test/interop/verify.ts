/**
 * The verifier of the independent readers: the rows a reader read must equal the rows Thund
 * was expected to write, as a multiset (order-insensitive, duplicates count), value by value in
 * the column's Iceberg type. Each value is first brought to one canonical text per type, so the
 * forms different readers print compare equal when (and only when) the values are equal:
 *   int, long          decimal digits (from number, bigint or digit string)
 *   float, double      JS number text (float rounded to float32 first); NaN, ±Infinity by name
 *   decimal(p, s)      plain text at scale s, by value ("12.5" = "12.50"); a value that needs
 *                      more than s fraction digits or p digits is a mismatch, not rounded;
 *                      a bigint is the unscaled value (the project's single-value form)
 *   date               YYYY-MM-DD (from ISO text or days since epoch)
 *   time               HH:MM:SS.ffffff (from ISO text or µs since midnight)
 *   timestamp[tz][_ns] instant in µs (ns) since epoch, shown as ISO with 6 (9) digits; tz types
 *                      need an explicit offset and are converted to UTC, plain types must have
 *                      none; bigint, digit strings and safe integers count as µs (ns) since epoch
 *   string             exact; uuid lowercase; fixed, binary lowercase hex (from hex or bytes)
 *   struct, list, map  canonical JSON of the value
 * A value that does not fit its type becomes a `!…` token, so it shows up in the diff.
 */
import { ThundError } from '../../src/errors.js';

export type Row = Readonly<Record<string, unknown>>;

export interface ColumnType {
  readonly name: string;
  /** The Iceberg type as text, as pyiceberg and Iceberg's Java library print it: `decimal(12, 2)`. */
  readonly type: string;
}

export interface VerifyRowsArgs {
  readonly expected: readonly Row[];
  readonly actual: readonly Row[];
  readonly columns: readonly ColumnType[];
  /** Who read `actual` (`pyiceberg`, `spark`, …): named in the error. */
  readonly reader: string;
  /** The table, for the error message. */
  readonly table?: string;
}

export interface VerifySummary {
  readonly reader: string;
  readonly rows: number;
  readonly distinctRows: number;
}

const SHOWN = 10;

/** Throws a ThundError (code INTEROP_MISMATCH) whose message is the diff, unless equal. */
export function verifyTableRows(args: VerifyRowsArgs): VerifySummary {
  const { columns, reader } = args;
  const canonicalizers = columns.map((c) => canonicalizer(c.type, c.name));
  const names = new Set(columns.map((c) => c.name));
  const tally = (rows: readonly Row[], side: string): Map<string, { tokens: (string | null)[]; count: number }> => {
    const out = new Map<string, { tokens: (string | null)[]; count: number }>();
    rows.forEach((row, index) => {
      const extra = Object.keys(row).filter((key) => !names.has(key));
      if (extra.length > 0) {
        throw new ThundError('INTEROP_MISMATCH', `${reader}: ${side} row ${index} has columns not in the schema: ${extra.join(', ')}`, {
          context: { reader, side, row: index },
        });
      }
      const tokens = columns.map((c, i) => (c.name in row ? canonicalizers[i]!(row[c.name]) : '!absent'));
      const key = JSON.stringify(tokens);
      const seen = out.get(key);
      if (seen === undefined) out.set(key, { tokens, count: 1 });
      else seen.count++;
    });
    return out;
  };
  const expected = tally(args.expected, 'expected');
  const actual = tally(args.actual, 'actual');

  const missing: Difference[] = [];
  const unexpected: Difference[] = [];
  let matched = 0;
  for (const [key, e] of expected) {
    const a = actual.get(key)?.count ?? 0;
    matched += Math.min(a, e.count);
    if (e.count > a) missing.push({ tokens: e.tokens, count: e.count - a, expected: e.count, read: a });
  }
  for (const [key, a] of actual) {
    const e = expected.get(key)?.count ?? 0;
    if (a.count > e) unexpected.push({ tokens: a.tokens, count: a.count - e, expected: e, read: a.count });
  }
  if (missing.length === 0 && unexpected.length === 0) {
    return { reader, rows: args.actual.length, distinctRows: actual.size };
  }

  const total = (list: Difference[]): number => list.reduce((sum, d) => sum + d.count, 0);
  const lines = [
    `${reader} read ${args.table ?? 'the table'} differently from the expected rows: expected ${args.expected.length} rows, ${reader} read ${args.actual.length}; ` +
      `${matched} match, ${total(missing)} missing, ${total(unexpected)} unexpected`,
    `columns: ${columns.map((c) => `${c.name} ${c.type}`).join(', ')}`,
  ];
  const section = (title: string, list: Difference[], others: Difference[]): void => {
    if (list.length === 0) return;
    lines.push(`${title} (${Math.min(SHOWN, list.length)} of ${list.length} distinct):`);
    for (const d of list.slice(0, SHOWN)) {
      const nearest = d.expected > 0 && d.read > 0 ? '' : nearestDifference(d, others.slice(0, SHOWN * 10), columns);
      const times = d.expected > 0 && d.read > 0 ? `  (expected ×${d.expected}, read ×${d.read})` : d.count > 1 ? `  ×${d.count}` : '';
      lines.push(`  ${formatRow(d.tokens, columns)}${times}${nearest}`);
    }
  };
  section(`missing rows (expected, not read by ${reader})`, missing, unexpected);
  section(`unexpected rows (read by ${reader}, not expected)`, unexpected, missing);
  throw new ThundError('INTEROP_MISMATCH', lines.join('\n'), {
    context: { reader, table: args.table, expectedRows: args.expected.length, actualRows: args.actual.length },
  });
}

export interface VerifySchemaArgs {
  readonly expected: readonly ColumnType[];
  readonly actual: readonly ColumnType[];
  readonly reader: string;
}

/** The reader's columns must be the expected ones, in order, with the same Iceberg types. */
export function verifyTableSchema(args: VerifySchemaArgs): void {
  const norm = (type: string): string => type.replace(/\s+/g, '').toLowerCase();
  const problems: string[] = [];
  const length = Math.max(args.expected.length, args.actual.length);
  for (let i = 0; i < length; i++) {
    const e = args.expected[i];
    const a = args.actual[i];
    if (e === undefined) problems.push(`  column ${i}: unexpected ${a!.name} ${a!.type}`);
    else if (a === undefined) problems.push(`  column ${i}: missing ${e.name} ${e.type}`);
    else if (e.name !== a.name || norm(e.type) !== norm(a.type)) problems.push(`  column ${i}: expected ${e.name} ${e.type}, read ${a.name} ${a.type}`);
  }
  if (problems.length > 0) {
    throw new ThundError('INTEROP_MISMATCH', `${args.reader} sees a different schema:\n${problems.join('\n')}`, { context: { reader: args.reader } });
  }
}

interface Difference {
  readonly tokens: readonly (string | null)[];
  /** How many copies are missing (or unexpected). */
  readonly count: number;
  readonly expected: number;
  readonly read: number;
}

/** For a missing row, the columns in which the most similar unexpected row differs (a changed value). */
function nearestDifference(row: Difference, others: readonly Difference[], columns: readonly ColumnType[]): string {
  let best: string[] | undefined;
  for (const other of others) {
    const differs = columns.filter((_, i) => row.tokens[i] !== other.tokens[i]).map((c) => c.name);
    if (best === undefined || differs.length < best.length) best = differs;
  }
  if (best === undefined || best.length === 0 || best.length > Math.max(1, Math.floor(columns.length / 2))) return '';
  return `  (nearest row on the other side differs in: ${best.join(', ')})`;
}

function formatRow(tokens: readonly (string | null)[], columns: readonly ColumnType[]): string {
  return columns.map((c, i) => `${c.name}=${tokens[i] ?? 'null'}`).join(', ');
}

type Canonicalizer = (value: unknown) => string | null;

/** The canonical text of one value of this Iceberg type (null stays null). */
export function canonicalizer(type: string, column = '?'): Canonicalizer {
  const t = type.replace(/\s+/g, '').toLowerCase();
  const guard =
    (inner: (value: unknown) => string | undefined): Canonicalizer =>
    (value) => {
      if (value === null) return null;
      const text = inner(value);
      return text === undefined ? `!not ${t}: ${show(value)}` : text;
    };
  const decimal = /^decimal\((\d+),(\d+)\)$/.exec(t);
  if (decimal) return guard((v) => canonicalDecimal(v, Number(decimal[1]), Number(decimal[2])));
  const fixed = /^fixed\[(\d+)\]$/.exec(t);
  if (fixed) return guard((v) => hexOf(v, Number(fixed[1])));
  switch (t) {
    case 'boolean':
      return guard((v) => (typeof v === 'boolean' ? String(v) : v === 'true' || v === 'false' ? v : undefined));
    case 'int':
      return guard((v) => {
        const n = integerOf(v);
        return n !== undefined && n >= -(2n ** 31n) && n < 2n ** 31n ? String(n) : undefined;
      });
    case 'long':
      return guard((v) => {
        const n = integerOf(v);
        return n !== undefined && n >= -(2n ** 63n) && n < 2n ** 63n ? String(n) : undefined;
      });
    case 'float':
    case 'double':
      return guard((v) => floatOf(v, t === 'float'));
    case 'date':
      return guard(dateOf);
    case 'time':
      return guard(timeOf);
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return guard((v) => timestampOf(v, t.startsWith('timestamptz'), t.endsWith('_ns')));
    case 'string':
      return guard((v) => (typeof v === 'string' ? JSON.stringify(v) : undefined));
    case 'uuid':
      return guard((v) => uuidOf(v));
    case 'binary':
      return guard((v) => hexOf(v, undefined));
    default:
      if (/^(struct|list|map)</.test(t)) return guard((v) => stableJson(v));
      throw new ThundError('INTEROP_MISMATCH', `verify: column ${column} has a type the verifier does not know: ${type}`, { context: { column, type } });
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Uint8Array) return `bytes[${value.length}]`;
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  try {
    return stableJson(value);
  } catch {
    return String(value);
  }
}

function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

function floatOf(v: unknown, single: boolean): string | undefined {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') n = Number(v);
  else if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) n = Number(v);
  else return undefined;
  if (Number.isNaN(n)) return 'NaN';
  if (single) n = Math.fround(n);
  return Object.is(n, -0) ? '0' : String(n);
}

/** Decimal by value at the column's scale; more digits than the type allows is a mismatch. */
function canonicalDecimal(v: unknown, precision: number, scale: number): string | undefined {
  let unscaled: bigint;
  if (typeof v === 'bigint') unscaled = v;
  else {
    const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : undefined;
    const m = text === undefined ? null : /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
    if (m === null || (m[2] ?? '') + (m[3] ?? '') === '') return undefined;
    const digits = BigInt((m[2] ?? '') + (m[3] ?? '') || '0');
    const exponent = Number(m[4] ?? 0) - (m[3] ?? '').length + scale; // value = digits × 10^(exponent − scale)
    if (exponent >= 0) unscaled = digits * 10n ** BigInt(exponent);
    else {
      const divisor = 10n ** BigInt(-exponent);
      if (digits % divisor !== 0n) return undefined;
      unscaled = digits / divisor;
    }
    if (m[1] === '-') unscaled = -unscaled;
  }
  const magnitude = unscaled < 0n ? -unscaled : unscaled;
  if (magnitude >= 10n ** BigInt(precision)) return undefined;
  const digits = magnitude.toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return unscaled < 0n ? `-${text}` : text;
}

const DAY_MS = 86_400_000;

function daysFromCivil(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined;
  return Math.floor(date.getTime() / DAY_MS);
}

function civilFromDays(days: number): string {
  const date = new Date(days * DAY_MS);
  const year = date.getUTCFullYear();
  const y = year < 0 ? `-${String(-year).padStart(6, '0')}` : year > 9999 ? `+${year}` : String(year).padStart(4, '0');
  return `${y}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCDate()).padStart(2, '0')}`;
}

function dateOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return civilFromDays(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : civilFromDays(Math.floor(v.getTime() / DAY_MS));
  if (typeof v !== 'string') return undefined;
  const m = /^([+-]?\d{4,})-(\d{2})-(\d{2})$/.exec(v);
  if (m === null) return undefined;
  const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
  return days === undefined ? undefined : civilFromDays(days);
}

/** Seconds and a fraction in `unit` digits (6 = µs, 9 = ns); undefined if the fraction is finer. */
function clockOf(h: string, mi: string, s: string | undefined, frac: string | undefined, digits: number): bigint | undefined {
  const [hh, mm, ss] = [Number(h), Number(mi), Number(s ?? 0)];
  if (hh > 23 || mm > 59 || ss > 59) return undefined;
  const f = frac ?? '';
  if (f.length > digits && /[1-9]/.test(f.slice(digits))) return undefined;
  const fraction = BigInt(f.slice(0, digits).padEnd(digits, '0') || '0');
  return BigInt(hh * 3600 + mm * 60 + ss) * 10n ** BigInt(digits) + fraction;
}

function timeOf(v: unknown): string | undefined {
  let micros: bigint | undefined;
  if (typeof v === 'string') {
    const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(v);
    micros = m === null ? undefined : clockOf(m[1]!, m[2]!, m[3], m[4], 6);
  } else micros = integerOf(v);
  if (micros === undefined || micros < 0n || micros >= 86_400_000_000n) return undefined;
  const s = micros / 1_000_000n;
  const pad = (n: bigint): string => String(n).padStart(2, '0');
  return `${pad(s / 3600n)}:${pad((s / 60n) % 60n)}:${pad(s % 60n)}.${String(micros % 1_000_000n).padStart(6, '0')}`;
}

function timestampOf(v: unknown, zoned: boolean, nanos: boolean): string | undefined {
  const digits = nanos ? 9 : 6;
  const perSecond = 10n ** BigInt(digits);
  let epoch: bigint | undefined;
  if (v instanceof Date) epoch = Number.isNaN(v.getTime()) ? undefined : BigInt(v.getTime()) * (perSecond / 1000n);
  else if (typeof v === 'string' && !/^-?\d+$/.test(v)) {
    const m = /^([+-]?\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(v.trim());
    if (m === null) return undefined;
    const offset = m[8];
    // A zoned column read without a zone (or a plain one read with a zone) is type drift.
    if (zoned !== (offset !== undefined)) return undefined;
    const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
    const clock = clockOf(m[4]!, m[5]!, m[6], m[7], digits);
    if (days === undefined || clock === undefined) return undefined;
    epoch = BigInt(days) * 86_400n * perSecond + clock;
    if (offset !== undefined && offset.toUpperCase() !== 'Z') {
      const o = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset)!;
      const seconds = BigInt(Number(o[2]) * 3600 + Number(o[3] ?? 0) * 60) * perSecond;
      epoch = o[1] === '+' ? epoch - seconds : epoch + seconds;
    }
  } else epoch = integerOf(v);
  if (epoch === undefined) return undefined;
  const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));
  const daysSinceEpoch = floorDiv(epoch, 86_400n * perSecond);
  const inDay = epoch - daysSinceEpoch * 86_400n * perSecond;
  const seconds = inDay / perSecond;
  const pad = (n: bigint): string => String(n).padStart(2, '0');
  const clock = `${pad(seconds / 3600n)}:${pad((seconds / 60n) % 60n)}:${pad(seconds % 60n)}.${String(inDay % perSecond).padStart(digits, '0')}`;
  return `${civilFromDays(Number(daysSinceEpoch))}T${clock}${zoned ? 'Z' : ''}`;
}

function uuidOf(v: unknown): string | undefined {
  const hex = v instanceof Uint8Array ? hexOf(v, 16) : typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) ? v.replaceAll('-', '').toLowerCase() : undefined;
  if (hex === undefined) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function hexOf(v: unknown, length: number | undefined): string | undefined {
  let hex: string | undefined;
  if (v instanceof Uint8Array) hex = Buffer.from(v).toString('hex');
  else if (typeof v === 'string' && /^([0-9a-f]{2})*$/i.test(v)) hex = v.toLowerCase();
  if (hex === undefined || (length !== undefined && hex.length !== length * 2)) return undefined;
  return hex;
}

/** JSON with sorted object keys, bigints as digit strings, bytes as hex. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
