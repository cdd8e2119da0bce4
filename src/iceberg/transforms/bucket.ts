/**
 * The bucket transform: murmur3 over the spec's byte form of a value, then
 * `(hash & Integer.MAX_VALUE) % N`. Integer-like values (int, long, date, time, every timestamp;
 * `_ns` floor-divided to µs) hash as 8-byte little-endian longs; decimals as their minimal
 * big-endian two's-complement unscaled bytes; strings as UTF-8; uuids as 16 big-endian bytes;
 * fixed and binary as they are.
 */
import { IcebergFormatError } from '../../errors.js';
import { encodeSingleValue } from '../bounds.js';
import type { PrimitiveType } from '../types.js';
import { murmur3Hash, murmur3HashLong } from './murmur3.js';
import { nanosToMicros } from './time.js';

function bigintOf(type: PrimitiveType, value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new IcebergFormatError(`cannot hash ${String(value)} as ${type.kind}: expected an integer`, { context: { type: type.kind } });
}

/** The int64 a value hashes as, or undefined when it hashes as bytes. */
function longForm(type: PrimitiveType, value: unknown): bigint | undefined {
  switch (type.kind) {
    case 'int':
    case 'date':
      encodeSingleValue(type, value); // validates the 32-bit range
      return bigintOf(type, value);
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      return bigintOf(type, value);
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return nanosToMicros(bigintOf(type, value));
    default:
      return undefined;
  }
}

const UTF8 = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The bytes murmur3 reads for a (non-null) value of a bucket source type. */
export function bucketHashInput(type: PrimitiveType, value: unknown): Uint8Array {
  if (type.kind === 'string' && typeof value === 'string' && !LONE_SURROGATE.test(value)) return UTF8.encode(value);
  const long = longForm(type, value);
  if (long !== undefined) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigInt64(0, BigInt.asIntN(64, long), true);
    return out;
  }
  if (type.kind === 'boolean' || type.kind === 'float' || type.kind === 'double' || type.kind === 'unknown') {
    throw new IcebergFormatError(`${type.kind} values cannot be bucketed`, { context: { type: type.kind } });
  }
  return encodeSingleValue(type, value);
}

/** The signed 32-bit murmur3 hash Iceberg buckets a value by (the spec's test-vector column). */
export function bucketHash(type: PrimitiveType, value: unknown): number {
  const long = longForm(type, value);
  return long !== undefined ? murmur3HashLong(long) : murmur3Hash(bucketHashInput(type, value));
}

export function bucketOf(hash: number, numBuckets: number): number {
  return (hash & 0x7fffffff) % numBuckets;
}
