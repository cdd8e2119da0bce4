/**
 * Partition tuple values between their JS single-value form (HELPERS.md: int/date → number,
 * long/time/timestamps → bigint, decimal → unscaled bigint, uuid → lowercase string,
 * fixed/binary → Uint8Array) and the datum avsc encodes for the Avro form of the type.
 */
import { IcebergFormatError } from '../../errors.js';
import type { PrimitiveType } from '../types.js';
import type { AvroSchema } from './container.js';
import { logicalType, typeName } from './field-view.js';
import { decimalRequiredBytes } from './manifest-schemas.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The avsc datum for a partition value of the given result type (null stays null). */
export function toAvroPartitionValue(type: PrimitiveType, value: unknown, field: string): unknown {
  if (value === null || value === undefined) return null;
  const bad = (expected: string): IcebergFormatError =>
    new IcebergFormatError(`Partition value of ${field} (${type.kind}) must be ${expected}, got ${describe(value)}`, {
      context: { partitionField: field },
    });
  switch (type.kind) {
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('a boolean');
      return value;
    case 'int':
    case 'date':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
        throw bad('a 32-bit integer number');
      }
      return value;
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      if (typeof value !== 'bigint') throw bad('a bigint');
      return value;
    case 'float':
    case 'double':
      if (typeof value !== 'number') throw bad('a number');
      return value;
    case 'string':
      if (typeof value !== 'string') throw bad('a string');
      return value;
    case 'uuid':
      if (typeof value !== 'string' || !UUID_PATTERN.test(value)) throw bad('a uuid string');
      return Buffer.from(value.replace(/-/g, ''), 'hex');
    case 'binary':
      if (!(value instanceof Uint8Array)) throw bad('a Uint8Array');
      return Buffer.from(value);
    case 'fixed':
      if (!(value instanceof Uint8Array) || value.length !== type.length) throw bad(`a Uint8Array of ${type.length} bytes`);
      return Buffer.from(value);
    case 'decimal': {
      if (typeof value !== 'bigint') throw bad('an unscaled bigint');
      const limit = 10n ** BigInt(type.precision);
      if (value >= limit || value <= -limit) throw bad(`an unscaled value within precision ${type.precision}`);
      return twosComplement(value, decimalRequiredBytes(type.precision));
    }
    default:
      throw bad('a primitive value');
  }
}

/** The JS form of a decoded partition datum, given the (resolved) Avro schema it was written with. */
export function fromAvroPartitionValue(schema: AvroSchema, value: unknown, where: string): unknown {
  if (value === null || value === undefined) return null;
  const logical = logicalType(schema);
  const kind = typeName(schema);
  if (value instanceof Uint8Array) {
    if (logical === 'decimal') return fromTwosComplement(value);
    if (logical === 'uuid' && value.length === 16) return formatUuid(value);
    return new Uint8Array(value);
  }
  if (typeof value === 'string' && logical === 'uuid') return value.toLowerCase();
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') {
    return value;
  }
  throw new IcebergFormatError(`${where}: unsupported partition value of Avro type ${kind}`, { context: { file: where } });
}

function twosComplement(value: bigint, size: number): Buffer {
  const out = Buffer.alloc(size);
  let v = BigInt.asUintN(size * 8, value);
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function fromTwosComplement(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return BigInt.asIntN(bytes.length * 8, v);
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function describe(value: unknown): string {
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  return typeof value === 'bigint' ? `${value}n (bigint)` : `${String(value)} (${typeof value})`;
}
