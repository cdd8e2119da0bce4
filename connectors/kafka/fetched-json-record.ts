/**
 * A source record whose value is still the fetched JSON bytes (the decoder's passesAsJson said
 * they can be staged as they are): the engine stages the bytes, and the decoder runs (once) only
 * if something reads `value`. Every other field is read from the fetched record when asked for,
 * so a record waiting in a batch holds no copies.
 */
import type { RecordHeader, SourceRecord, StagedLineRef } from '../streaming-source.js';
import { recordBytes, type RawRecord } from './raw-record.js';
import type { RecordDecoder } from './record-decoder.js';

export class FetchedJsonRecord<V> implements SourceRecord<V> {
  private decoded: { value: V } | undefined;
  private fetched: Buffer | undefined;

  constructor(
    private readonly record: RawRecord,
    private readonly decoder: RecordDecoder<V>,
  ) {}

  get topic(): string {
    return this.record.topic;
  }

  get partition(): number {
    return this.record.partition;
  }

  get offset(): bigint {
    return this.record.offset;
  }

  get timestampMs(): number {
    return this.record.timestampMs;
  }

  get key(): Buffer | null {
    return this.record.key;
  }

  get headers(): readonly RecordHeader[] {
    return this.record.headers;
  }

  /** Read once: a value kept only in its staged line is copied out of it. */
  get json(): Buffer {
    this.fetched ??= this.record.value as Buffer;
    return this.fetched;
  }

  get stagedLine(): StagedLineRef | undefined {
    return this.record.stagedLine;
  }

  get fieldNames(): readonly string[] | undefined {
    return this.record.fieldNames;
  }

  get byteLength(): number {
    return recordBytes(this.record);
  }

  get raw(): Buffer {
    return this.json;
  }

  get value(): V {
    if (this.decoded === undefined) {
      const decoded = this.decoder.decode(this.record);
      // passesAsJson vouched for one JSON object, so decoding cannot skip it.
      if ('skip' in decoded) throw new Error(`record ${this.topic}/${this.partition}@${this.offset} passed as JSON but its decoder skips it`);
      this.decoded = decoded;
    }
    return this.decoded.value;
  }
}
