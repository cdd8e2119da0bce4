/**
 * Iceberg's binary single-value encoding (spec Appendix D; ICEBERG.md §4) used for column
 * bounds and partition summaries, bound truncation for string/binary, and value ordering.
 * JS value forms: boolean; int/date → number; long/time/timestamp* → bigint; float/double →
 * number; decimal → unscaled bigint; string → string; uuid → lowercase hex string;
 * fixed/binary → Uint8Array.
 */
import { IcebergFormatError } from '../errors.js';
import type { PrimitiveType } from './types.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function typeName(type: PrimitiveType): string {
  if (type.kind === 'decimal') return `decimal(${type.precision}, ${type.scale})`;
  if (type.kind === 'fixed') return `fixed[${type.length}]`;
  return type.kind;
}

function bad(type: PrimitiveType, value: unknown, why: string): never {
  const shown = typeof value === 'bigint' ? `${value}n` : value instanceof Uint8Array ? `<${value.length} bytes>` : String(value);
  throw new IcebergFormatError(`cannot encode ${shown} as ${typeName(type)}: ${why}`, {
    context: { type: typeName(type) },
  });
}

function asInt64(type: PrimitiveType, value: unknown): bigint {
  let v: bigint;
  if (typeof value === 'bigint') v = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  else return bad(type, value, 'expected a bigint');
  if (v < INT64_MIN || v > INT64_MAX) bad(type, value, 'out of int64 range');
  return v;
}

function asBytes(type: PrimitiveType, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) return bad(type, value, 'expected a Uint8Array');
  return value;
}

/** The fewest big-endian two's-complement bytes holding `v` (Java BigInteger.toByteArray). */
export function minimalTwosComplement(v: bigint): Uint8Array {
  let n = 1;
  while (v < -(1n << BigInt(8 * n - 1)) || v >= 1n << BigInt(8 * n - 1)) n++;
  const out = new Uint8Array(n);
  let u = BigInt.asUintN(8 * n, v);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

function readTwosComplement(bytes: Uint8Array): bigint {
  let u = 0n;
  for (const b of bytes) u = (u << 8n) | BigInt(b);
  return BigInt.asIntN(8 * bytes.length, u);
}

export function uuidToBytes(uuid: string): Uint8Array {
  const hex = uuid.replaceAll('-', '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToUuid(bytes: Uint8Array): string {
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Encode one value of a primitive type in Iceberg's single-value binary form. */
export function encodeSingleValue(type: PrimitiveType, value: unknown): Uint8Array {
  switch (type.kind) {
    case 'boolean':
      if (typeof value !== 'boolean') bad(type, value, 'expected a boolean');
      return Uint8Array.of(value ? 1 : 0);
    case 'int':
    case 'date': {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) {
        return bad(type, value, 'expected a 32-bit integer number');
      }
      const out = new Uint8Array(4);
      new DataView(out.buffer).setInt32(0, value, true);
      return out;
    }
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      const out = new Uint8Array(8);
      new DataView(out.buffer).setBigInt64(0, asInt64(type, value), true);
      return out;
    }
    case 'float':
    case 'double': {
      if (typeof value !== 'number') return bad(type, value, 'expected a number');
      const size = type.kind === 'float' ? 4 : 8;
      const out = new Uint8Array(size);
      const view = new DataView(out.buffer);
      if (size === 4) view.setFloat32(0, value, true);
      else view.setFloat64(0, value, true);
      return out;
    }
    case 'decimal': {
      if (typeof value !== 'bigint') return bad(type, value, 'expected the unscaled value as a bigint');
      const limit = 10n ** BigInt(type.precision);
      if (value >= limit || value <= -limit) bad(type, value, `more than ${type.precision} digits`);
      return minimalTwosComplement(value);
    }
    case 'string':
      if (typeof value !== 'string') return bad(type, value, 'expected a string');
      if (LONE_SURROGATE.test(value)) bad(type, value, 'the string holds a lone surrogate (not valid UTF-8)');
      return new TextEncoder().encode(value);
    case 'uuid':
      if (typeof value !== 'string' || !UUID_RE.test(value)) return bad(type, value, 'expected an 8-4-4-4-12 hex uuid');
      return uuidToBytes(value);
    case 'fixed': {
      const bytes = asBytes(type, value);
      if (bytes.length !== type.length) bad(type, value, `expected exactly ${type.length} bytes`);
      return bytes.slice();
    }
    case 'binary':
      return asBytes(type, value).slice();
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      // Variant and geospatial bounds have formats of their own (spec), which Thund does not write.
      return bad(type, value, `values of type ${type.kind} have no single-value encoding here`);
  }
}

function expectLength(type: PrimitiveType, bytes: Uint8Array, length: number): void {
  if (bytes.length !== length) {
    throw new IcebergFormatError(`a ${typeName(type)} value must be ${length} bytes, got ${bytes.length}`, {
      context: { type: typeName(type), length: bytes.length },
    });
  }
}

/** Decode Iceberg's single-value binary form into the JS value form. */
export function decodeSingleValue(type: PrimitiveType, bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type.kind) {
    case 'boolean':
      expectLength(type, bytes, 1);
      return bytes[0] !== 0;
    case 'int':
    case 'date':
      expectLength(type, bytes, 4);
      return view.getInt32(0, true);
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      // Java readers accept a 4-byte int where a long is expected (after int→long promotion).
      if (bytes.length === 4) return BigInt(view.getInt32(0, true));
      expectLength(type, bytes, 8);
      return view.getBigInt64(0, true);
    case 'float':
      expectLength(type, bytes, 4);
      return view.getFloat32(0, true);
    case 'double':
      // Likewise a 4-byte float where a double is expected (after float→double promotion).
      if (bytes.length === 4) return view.getFloat32(0, true);
      expectLength(type, bytes, 8);
      return view.getFloat64(0, true);
    case 'decimal':
      if (bytes.length === 0) {
        throw new IcebergFormatError(`an empty byte string is not a ${typeName(type)} value`, {
          context: { type: typeName(type) },
        });
      }
      return readTwosComplement(bytes);
    case 'string':
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    case 'uuid':
      expectLength(type, bytes, 16);
      return bytesToUuid(bytes);
    case 'fixed':
      expectLength(type, bytes, type.length);
      return bytes.slice();
    case 'binary':
      return bytes.slice();
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      throw new IcebergFormatError(`values of type ${type.kind} have no single-value encoding here`, { context: { type: type.kind } });
  }
}

/** A lower bound of at most `width` code points (string) or bytes (binary); other types unchanged. */
export function truncateLowerBound(type: PrimitiveType, value: unknown, width: number): unknown {
  if (type.kind === 'string' && typeof value === 'string') {
    const cps = Array.from(value);
    return cps.length <= width ? value : cps.slice(0, width).join('');
  }
  if (type.kind === 'binary' && value instanceof Uint8Array) {
    return value.length <= width ? value : value.slice(0, width);
  }
  return value;
}

/**
 * An upper bound of at most `width` code points / bytes: the prefix with its last position that
 * can be incremented incremented (code points skip the surrogate range; U+10FFFF and 0xFF
 * overflow and are dropped). Returns null when no such bound exists. Other types unchanged.
 */
export function truncateUpperBound(type: PrimitiveType, value: unknown, width: number): unknown {
  if (type.kind === 'string' && typeof value === 'string') {
    const cps = Array.from(value);
    if (cps.length <= width) return value;
    for (let i = width - 1; i >= 0; i--) {
      let next = (cps[i] as string).codePointAt(0)! + 1;
      if (next === 0xd800) next = 0xe000;
      if (next > 0x10ffff) continue;
      return cps.slice(0, i).join('') + String.fromCodePoint(next);
    }
    return null;
  }
  if (type.kind === 'binary' && value instanceof Uint8Array) {
    if (value.length <= width) return value;
    for (let i = width - 1; i >= 0; i--) {
      if ((value[i] as number) < 0xff) {
        const out = value.slice(0, i + 1);
        out[i] = (out[i] as number) + 1;
        return out;
      }
    }
    return null;
  }
  return value;
}

function sign(n: number | bigint): number {
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return sign(d);
  }
  return sign(a.length - b.length);
}

/** Code-point order, which equals the unsigned byte order of the UTF-8 encodings. */
export function compareStrings(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return sign(d);
  }
}

/** Floats in Iceberg order: -0.0 before +0.0, NaN after everything. */
function compareFloats(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
  if (a === 0 && b === 0) return sign((Object.is(a, -0) ? 0 : 1) - (Object.is(b, -0) ? 0 : 1));
  return sign(a - b);
}

/**
 * Partition summary order: compareValues, except uuids in Java's `UUID.compareTo` order (the most
 * and then the least significant 8 bytes as signed longs). Java's ManifestEvaluator prunes
 * manifests by comparing uuids that way (apache/iceberg#14216), so summary bounds in the unsigned
 * order make it skip manifests that hold a value when the values straddle 8000…; bounds in the
 * signed order are what Java writes itself. (Data-file uuid bounds are written only where both
 * orders agree: data-file-metrics.ts.)
 */
export function compareForPartitionSummary(type: PrimitiveType, a: unknown, b: unknown): number {
  if (type.kind !== 'uuid') return compareValues(type, a, b);
  const longs = (u: unknown): [bigint, bigint] => {
    const view = new DataView(uuidToBytes(u as string).buffer);
    return [view.getBigInt64(0), view.getBigInt64(8)];
  };
  const [aHigh, aLow] = longs(a);
  const [bHigh, bLow] = longs(b);
  return aHigh !== bHigh ? sign(aHigh - bHigh) : sign(aLow - bLow);
}

/** Compare two values (JS forms) of one primitive type in Iceberg order. */
export function compareValues(type: PrimitiveType, a: unknown, b: unknown): number {
  switch (type.kind) {
    case 'string':
      return compareStrings(a as string, b as string);
    case 'uuid':
      return compareBytes(uuidToBytes(a as string), uuidToBytes(b as string));
    case 'binary':
    case 'fixed':
      return compareBytes(a as Uint8Array, b as Uint8Array);
    case 'float':
    case 'double':
      return compareFloats(a as number, b as number);
    case 'boolean':
      return sign(Number(a as boolean) - Number(b as boolean));
    case 'int':
    case 'date':
      return sign((a as number) - (b as number));
    case 'unknown':
      return 0;
    default:
      return sign((a as bigint) - (b as bigint));
  }
}
