/**
 * Parquet leaf columns seen as Iceberg primitives (spec, Parquet type mapping): whether a column
 * of a footer can be read as a table column's type, and its statistics' min/max bytes (Parquet's
 * plain encoding) as Iceberg single values (bounds.ts forms: int/date number; long, time and
 * timestamps bigint µs or ns; decimal unscaled bigint; uuid text; binary/fixed Uint8Array).
 */
import { bytesToUuid } from './bounds.js';
import type { ParquetSchemaNode } from './parquet-footer.js';
import type { PrimitiveType } from './types.js';

function isSignedInt(node: ParquetSchemaNode, maxBits: number): boolean {
  const l = node.logical;
  return l === undefined || (l.kind === 'integer' && (l.signed ? l.bitWidth <= maxBits : l.bitWidth < maxBits));
}

function isStringLike(node: ParquetSchemaNode): boolean {
  const k = node.logical?.kind;
  return k === 'string' || k === 'enum' || k === 'json';
}

/** Whether the leaf `node` can be read as `type` (Iceberg's promotions included: int → long, float → double). */
export function parquetReadsAs(node: ParquetSchemaNode, type: PrimitiveType): boolean {
  const p = node.physicalType;
  const l = node.logical;
  switch (type.kind) {
    case 'boolean':
      return p === 'BOOLEAN';
    case 'int':
      return p === 'INT32' && isSignedInt(node, 32);
    case 'long':
      return (p === 'INT64' && isSignedInt(node, 64)) || (p === 'INT32' && (isSignedInt(node, 32) || (l?.kind === 'integer' && !l.signed)));
    case 'float':
      return p === 'FLOAT' && l === undefined;
    case 'double':
      return (p === 'DOUBLE' || p === 'FLOAT') && l === undefined;
    case 'decimal':
      return l?.kind === 'decimal' && l.scale === type.scale && l.precision <= type.precision && p !== 'BOOLEAN' && p !== 'FLOAT' && p !== 'DOUBLE';
    case 'date':
      return p === 'INT32' && l?.kind === 'date';
    case 'time':
      return p === 'INT64' && l?.kind === 'time' && l.unit === 'MICROS';
    case 'timestamp':
    case 'timestamptz':
      return p === 'INT64' && l?.kind === 'timestamp' && l.unit !== 'NANOS' && l.adjustedToUtc === (type.kind === 'timestamptz');
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return p === 'INT64' && l?.kind === 'timestamp' && l.unit === 'NANOS' && l.adjustedToUtc === (type.kind === 'timestamptz_ns');
    case 'string':
      return p === 'BYTE_ARRAY' && isStringLike(node);
    case 'uuid':
      return p === 'FIXED_LEN_BYTE_ARRAY' && node.typeLength === 16 && (l === undefined || l.kind === 'uuid');
    case 'binary':
      return p === 'BYTE_ARRAY' && (l === undefined || isStringLike(node) || l.kind === 'bson');
    case 'fixed':
      return p === 'FIXED_LEN_BYTE_ARRAY' && node.typeLength === type.length && l === undefined;
    default:
      return false;
  }
}

/** A big-endian two's complement integer. */
function bigEndianSigned(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return bytes.length > 0 && (bytes[0]! & 0x80) !== 0 ? v - (1n << BigInt(bytes.length * 8)) : v;
}

/**
 * A min or max of the statistics of a leaf that parquetReadsAs `type`, as an Iceberg value;
 * undefined when the bytes are not of the expected width.
 */
export function parquetStatValue(node: ParquetSchemaNode, type: PrimitiveType, bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = (n: number) => bytes.length === n;
  const int32 = () => (width(4) ? (node.logical?.kind === 'integer' && !node.logical.signed ? view.getUint32(0, true) : view.getInt32(0, true)) : undefined);
  const int64 = () => (width(8) ? view.getBigInt64(0, true) : undefined);
  switch (type.kind) {
    case 'boolean':
      return width(1) ? bytes[0] !== 0 : undefined;
    case 'int':
    case 'date':
      return int32();
    case 'long': {
      const v = node.physicalType === 'INT32' ? int32() : int64();
      return v === undefined ? undefined : BigInt(v);
    }
    case 'float':
      return width(4) ? view.getFloat32(0, true) : undefined;
    case 'double':
      return node.physicalType === 'FLOAT' ? (width(4) ? view.getFloat32(0, true) : undefined) : width(8) ? view.getFloat64(0, true) : undefined;
    case 'decimal':
      if (node.physicalType === 'INT32') return width(4) ? BigInt(view.getInt32(0, true)) : undefined;
      if (node.physicalType === 'INT64') return int64();
      return bigEndianSigned(bytes);
    case 'time':
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return int64();
    case 'timestamp':
    case 'timestamptz': {
      const v = int64();
      const l = node.logical;
      return v === undefined ? undefined : l?.kind === 'timestamp' && l.unit === 'MILLIS' ? v * 1000n : v;
    }
    case 'string':
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        return undefined; // a writer's truncated bound may end inside a character
      }
    case 'uuid':
      return width(16) ? bytesToUuid(bytes) : undefined;
    case 'binary':
      return bytes.slice();
    case 'fixed':
      return width(type.length) ? bytes.slice() : undefined;
    default:
      return undefined;
  }
}
