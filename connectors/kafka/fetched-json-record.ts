/**
 * A source record whose value is still the fetched JSON bytes (the decoder's passesAsJson said
 * they can be staged as they are): the engine stages the bytes, and the decoder runs (once) only
 * if something reads `value`.
 */
import type { RecordHeader, SourceRecord } from '../streaming-source.js';
import type { RawRecord } from './raw-record.js';
import type { RecordDecoder } from './record-decoder.js';

export class FetchedJsonRecord<V> implements SourceRecord<V> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestampMs: number;
  readonly key: Buffer | null;
  readonly headers: readonly RecordHeader[];
  readonly json: Buffer;
  private decoded: { value: V } | undefined;

  constructor(
    private readonly record: RawRecord,
    private readonly decoder: RecordDecoder<V>,
  ) {
    this.topic = record.topic;
    this.partition = record.partition;
    this.offset = record.offset;
    this.timestampMs = record.timestampMs;
    this.key = record.key;
    this.headers = record.headers;
    this.json = record.value as Buffer;
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
