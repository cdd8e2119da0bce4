/**
 * A source record the engine stages without its value being decoded: the client wrote its staged
 * line already (Avro decoded in the consumer's worker, avro-line-packer.ts; checked JSON,
 * fetched-json-record.ts). The decoder runs (once) only if something reads `value`. `raw` is the
 * value as fetched, for dead letters and the writer schemas' column types.
 */
import type { RecordHeader, SourceRecord, StagedLineRef } from '../streaming-source.js';
import { recordBytes, type RawRecord } from './raw-record.js';
import type { RecordDecoder } from './record-decoder.js';

export class LinedRecord<V> implements SourceRecord<V> {
  private decoded: { value: V } | undefined;

  constructor(
    protected readonly record: RawRecord,
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

  get raw(): Buffer | null {
    return this.record.value;
  }

  get stagedLine(): StagedLineRef | undefined {
    return this.record.stagedLine;
  }

  get fieldNames(): readonly string[] | undefined {
    return this.record.fieldNames;
  }

  get shape(): number | undefined {
    return this.record.shape;
  }

  get byteLength(): number {
    return recordBytes(this.record);
  }

  get fetchedBytes(): number | undefined {
    return this.record.fetchedBytes;
  }

  get value(): V {
    if (this.decoded === undefined) {
      const decoded = this.decoder.decode(this.record);
      // The decoder vouched for one value (passesAsJson, passesAsLine), so decoding cannot skip it.
      if ('skip' in decoded) throw new Error(`record ${this.topic}/${this.partition}@${this.offset} passed without decoding but its decoder skips it`);
      this.decoded = decoded;
    }
    return this.decoded.value;
  }
}
