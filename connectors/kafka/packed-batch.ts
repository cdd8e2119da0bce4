/**
 * A fetched kafkajs batch packed for the trip from the consumer's worker thread to the main
 * thread: coordinates in typed arrays and every key and value in one byte array, so the message
 * moves by transfer instead of cloning an object per record. The main thread turns it back into
 * RawRecords whose keys and values are views on that one array.
 */
import type { Batch, IHeaders } from 'kafkajs';
import type { RecordHeader, TopicPartition } from '../streaming-source.js';
import type { FetchedBatch } from './consumer-client.js';
import { isStageableJsonValue } from './json-decoder.js';
import { fetchedOffsetOf, toHeaders } from './kafkajs-consumer.js';
import { NO_HEADERS, type RawRecord } from './raw-record.js';

/** A record's headers in a cloneable form: [key, value or null] pairs. */
type PackedHeaders = Array<[string, Uint8Array | null]>;

export interface PackedBatch extends TopicPartition {
  readonly fetchOffset: bigint;
  readonly nextOffset: bigint;
  /** The worker's seek count of the partition when the batch was fetched. */
  readonly epoch: number;
  readonly offsets: BigInt64Array;
  readonly timestamps: Float64Array;
  /** Keys and values back to back. */
  readonly bytes: Uint8Array;
  /** Per record: key start, key end, value start, value end in `bytes`; a start of -1 is null. */
  readonly bounds: Int32Array;
  /** Per record, only when some record has headers. */
  readonly headers?: ReadonlyArray<PackedHeaders | null>;
  /** Per record, 1 where the value passed the JSON decoder's byte check; only when asked for. */
  readonly stageableJson?: Uint8Array;
}

export function packBatch(batch: Batch, epoch: number, checkJson: boolean): PackedBatch {
  const messages = batch.messages;
  const count = messages.length;
  let total = 0;
  for (const m of messages) total += (m.key?.length ?? 0) + (m.value?.length ?? 0);
  const bytes = new Uint8Array(total);
  const bounds = new Int32Array(count * 4);
  const offsets = new BigInt64Array(count);
  const timestamps = new Float64Array(count);
  let headers: Array<PackedHeaders | null> | undefined;
  const stageableJson = checkJson ? new Uint8Array(count) : undefined;
  let at = 0;
  const put = (value: Buffer | null, slot: number): void => {
    if (value === null) {
      bounds[slot] = -1;
      bounds[slot + 1] = -1;
      return;
    }
    bytes.set(value, at);
    bounds[slot] = at;
    at += value.length;
    bounds[slot + 1] = at;
  };
  for (let i = 0; i < count; i++) {
    const m = messages[i] as Batch['messages'][number];
    offsets[i] = BigInt(m.offset);
    timestamps[i] = Number(m.timestamp);
    put(m.key ?? null, i * 4);
    put(m.value ?? null, i * 4 + 2);
    if (stageableJson !== undefined && m.value !== null && isStageableJsonValue(m.value)) stageableJson[i] = 1;
    const packed = packHeaders(m.headers);
    if (packed !== null) (headers ??= new Array<PackedHeaders | null>(count).fill(null))[i] = packed;
  }
  return {
    topic: batch.topic,
    partition: batch.partition,
    fetchOffset: fetchedOffsetOf(batch),
    nextOffset: BigInt(batch.lastOffset()) + 1n,
    epoch,
    offsets,
    timestamps,
    bytes,
    bounds,
    ...(headers === undefined ? {} : { headers }),
    ...(stageableJson === undefined ? {} : { stageableJson }),
  };
}

/** The buffers a packed batch hands over (no copy) when posted. */
export function transferables(packed: PackedBatch): ArrayBuffer[] {
  const buffers = [packed.offsets.buffer, packed.timestamps.buffer, packed.bytes.buffer, packed.bounds.buffer] as ArrayBuffer[];
  if (packed.stageableJson !== undefined) buffers.push(packed.stageableJson.buffer as ArrayBuffer);
  return buffers;
}

/**
 * The packed batch as RawRecords that are two fields each: coordinates, key and value are read
 * from the packed arrays when asked for. A batch's records stay in memory until written, so
 * their size is what the service holds per buffered record.
 */
export function unpackBatch(packed: PackedBatch): FetchedBatch {
  const records = new Array<RawRecord>(packed.offsets.length);
  const arrays = new UnpackedArrays(packed);
  for (let i = 0; i < records.length; i++) records[i] = new PackedRecord(arrays, i);
  return { topic: packed.topic, partition: packed.partition, fetchOffset: packed.fetchOffset, nextOffset: packed.nextOffset, records };
}

class UnpackedArrays {
  readonly bytes: Buffer;

  constructor(readonly packed: PackedBatch) {
    this.bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  }

  slice(slot: number): Buffer | null {
    const start = this.packed.bounds[slot] as number;
    return start < 0 ? null : this.bytes.subarray(start, this.packed.bounds[slot + 1]);
  }

  length(slot: number): number {
    const start = this.packed.bounds[slot] as number;
    return start < 0 ? 0 : (this.packed.bounds[slot + 1] as number) - start;
  }
}

class PackedRecord implements RawRecord {
  constructor(
    private readonly arrays: UnpackedArrays,
    private readonly index: number,
  ) {}

  get topic(): string {
    return this.arrays.packed.topic;
  }

  get partition(): number {
    return this.arrays.packed.partition;
  }

  get offset(): bigint {
    return this.arrays.packed.offsets[this.index] as bigint;
  }

  get timestampMs(): number {
    return this.arrays.packed.timestamps[this.index] as number;
  }

  get key(): Buffer | null {
    return this.arrays.slice(this.index * 4);
  }

  get value(): Buffer | null {
    return this.arrays.slice(this.index * 4 + 2);
  }

  get headers(): readonly RecordHeader[] {
    return unpackHeaders(this.arrays.packed.headers?.[this.index] ?? null);
  }

  get stageableJson(): boolean | undefined {
    const checked = this.arrays.packed.stageableJson;
    return checked === undefined ? undefined : checked[this.index] === 1;
  }

  get byteLength(): number {
    return this.arrays.length(this.index * 4) + this.arrays.length(this.index * 4 + 2);
  }
}

function packHeaders(headers: IHeaders | undefined): PackedHeaders | null {
  const list = toHeaders(headers);
  // A copy of each value: a view would clone the whole buffer it points into.
  return list.length === 0 ? null : list.map((h): [string, Uint8Array | null] => [h.key, h.value === null ? null : new Uint8Array(h.value)]);
}

function unpackHeaders(packed: PackedHeaders | null): readonly RecordHeader[] {
  if (packed === null) return NO_HEADERS;
  return packed.map(([key, value]) => ({ key, value: value === null ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength) }));
}
