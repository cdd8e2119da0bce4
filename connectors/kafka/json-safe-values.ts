/**
 * Decoded values made safe for JSON staging: Avro longs come out of the decoder as bigint, which
 * JSON.stringify refuses, and bytes as Buffers, which it would write as {type, data}. Integers
 * within ±2^53 become numbers; larger ones become their exact decimal text (staged as text, cast
 * by the table's column type); bytes become base64 text.
 */
import { hasColumnTypes, type ValueBytes, type ValueColumnTypes } from './avro-logical-columns.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

export function jsonSafeValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return value.map(jsonSafeValue);
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = jsonSafeValue(member);
  return out;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** Wraps a decoder of objects (Avro) so its values stage as JSON. */
export class JsonSafeDecoder implements RecordDecoder<Record<string, unknown>>, ValueColumnTypes {
  readonly format: string;

  constructor(private readonly inner: RecordDecoder<Record<string, unknown>>) {
    this.format = inner.format;
  }

  async prepare(records: readonly RawRecord[]): Promise<void> {
    await this.inner.prepare?.(records);
  }

  passesAsLine(record: RawRecord): boolean {
    return this.inner.passesAsLine?.(record) === true;
  }

  decode(record: RawRecord): Decoded<Record<string, unknown>> {
    const decoded = this.inner.decode(record);
    return 'skip' in decoded ? decoded : { value: jsonSafeValue(decoded.value) as Record<string, unknown> };
  }

  columnTypes(values: ValueBytes): ReadonlyMap<string, string> {
    return hasColumnTypes(this.inner) ? this.inner.columnTypes(values) : new Map();
  }
}
