/**
 * JSON values: one JSON object per record. decodeRecords asks `passesAsJson` first: a value that
 * passes the byte check (json-object-check.ts) is not decoded there but handed on as its bytes,
 * which the engine stages as they are. Everything else goes through decode (JSON.parse), which
 * gives an object or a DecodeError with the parser's reason. Integers
 * beyond 2^53 lose precision with JSON.parse, so `exactIntegers` switches to the BigInt-safe
 * parser (slower) where ids are int64; staged bytes keep every digit anyway.
 */
import { parseJson } from '../../src/iceberg/json.js';
import { RECORD_COORDINATE_FIELDS } from '../streaming-source.js';
import { DecodeError } from './decode-error.js';
import { isStageableJsonObject, reservedKeyBytes, type TopLevelKeyBounds } from './json-object-check.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const RESERVED_KEYS = reservedKeyBytes(RECORD_COORDINATE_FIELDS);

export type JsonObject = Record<string, unknown>;

/** The byte check of passesAsJson, which a client may run beforehand off the main thread (RawRecord.stageableJson). */
export function isStageableJsonValue(value: Buffer, keys?: TopLevelKeyBounds): boolean {
  return isStageableJsonObject(value, RESERVED_KEYS, keys);
}

export interface JsonDecoderOptions {
  readonly exactIntegers?: boolean;
  /** Parse every value instead of handing checked values on as bytes (default false). */
  readonly alwaysParse?: boolean;
}

export class JsonDecoder implements RecordDecoder<JsonObject> {
  readonly format = 'json';

  constructor(private readonly options: JsonDecoderOptions = {}) {}

  passesAsJson(record: RawRecord): boolean {
    if (this.options.alwaysParse === true) return false;
    // The client's check, when it ran one, answers without touching the value.
    const checked = record.stageableJson;
    if (checked !== undefined) return checked;
    return record.value !== null && isStageableJsonValue(record.value);
  }

  decode(record: RawRecord): Decoded<JsonObject> {
    if (record.value === null) return { skip: 'tombstone' };
    return { value: this.parseObject(record, record.value) };
  }

  private parseObject(record: RawRecord, bytes: Buffer): JsonObject {
    let value: unknown;
    try {
      const text = UTF8.decode(bytes);
      value = this.options.exactIntegers === true ? parseJson(text, 'record value') : JSON.parse(text);
    } catch (cause) {
      throw new DecodeError(record, `invalid JSON or UTF-8: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DecodeError(record, `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
    }
    return value as JsonObject;
  }
}
