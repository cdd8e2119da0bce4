/**
 * JSON values: one JSON object per record. Integers beyond 2^53 lose precision with JSON.parse,
 * so `exactIntegers` switches to the BigInt-safe parser (slower) where ids are int64.
 */
import { parseJson } from '../../src/iceberg/json.js';
import { DecodeError } from './decode-error.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export type JsonObject = Record<string, unknown>;

export interface JsonDecoderOptions {
  readonly exactIntegers?: boolean;
}

export class JsonDecoder implements RecordDecoder<JsonObject> {
  readonly format = 'json';

  constructor(private readonly options: JsonDecoderOptions = {}) {}

  decode(record: RawRecord): Decoded<JsonObject> {
    if (record.value === null) return { skip: 'tombstone' };
    const value = this.parse(record, record.value);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DecodeError(record, `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
    }
    return { value: value as JsonObject };
  }

  private parse(record: RawRecord, bytes: Buffer): unknown {
    try {
      const text = UTF8.decode(bytes);
      return this.options.exactIntegers === true ? parseJson(text, 'record value') : JSON.parse(text);
    } catch (cause) {
      throw new DecodeError(record, `invalid JSON or UTF-8: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
    }
  }
}
