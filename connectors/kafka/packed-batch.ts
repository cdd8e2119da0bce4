/**
 * A fetched kafkajs batch packed for the trip from the consumer's worker thread to the main
 * thread: coordinates in typed arrays and every key and value in one byte array, so the message
 * moves by transfer instead of cloning an object per record. The main thread turns it back into
 * RawRecords whose keys and values are views on that one array.
 */
import type { Batch } from 'kafkajs';
import type { RecordHeader, StagedLineRef, TopicPartition } from '../streaming-source.js';
import type { FetchedBatch } from './consumer-client.js';
import { BatchFieldNames } from './batch-field-names.js';
import { isStageableJsonValue } from './json-decoder.js';
import { checkedShape } from './json-object-check.js';
import { fetchedOffsetOf, toHeaders } from './kafkajs-consumer.js';
import { NO_HEADERS, type RawRecord } from './raw-record.js';
import { LineWriter, stagedLineBound, partitionHead, travellingLines, writeStagedLine } from './staged-line.js';

/** A record's headers in a cloneable form: [key, value or null] pairs. */
type PackedHeaders = Array<[string, Uint8Array | null]>;

export interface PackedBatch extends TopicPartition {
  readonly fetchOffset: bigint;
  readonly nextOffset: bigint;
  /** The worker's seek count of the partition when the batch was fetched. */
  readonly epoch: number;
  readonly offsets: BigInt64Array;
  readonly timestamps: Float64Array;
  /** Keys, and the values that have no staged line, back to back. */
  readonly bytes: Uint8Array;
  /**
   * Per record: key start, key end, value start, value end, in `bytes`, or in `json.lines` for a
   * JSON value kept in its staged line; a start of -1 is null.
   */
  readonly bounds: Int32Array;
  /** Per record, only when some record has headers. */
  readonly headers?: ReadonlyArray<PackedHeaders | null>;
  /** Only when a line packer was given. */
  readonly json?: PackedJsonLines;
}

/** Values written as the lines the engine stages (staged-line.ts). */
export type PackedJsonLines = PackedCheckedLines | PackedDecodedLines;

interface PackedLinesBase {
  readonly lines: Uint8Array;
  /** Per record: where its line starts in `lines`; -1 when its value got none. */
  readonly starts: Int32Array;
  /** Every top-level key of the values with a line. */
  readonly fieldNames: readonly string[];
  /** Per record with a line: its value's shape (value-shape.ts); absent when the packer takes none. */
  readonly shapes?: Float64Array;
}

/** JSON values that passed the JSON decoder's byte check: each is kept only in its line. */
export interface PackedCheckedLines extends PackedLinesBase {
  readonly kind: 'checked';
  /** Per record with a line: the index in `lines` of the byte that stands for the value's opening brace. */
  readonly braces: Int32Array;
}

/** Values decoded into their lines (avro-line-packer.ts): the fetched bytes stay in `bytes` too. */
export interface PackedDecodedLines extends PackedLinesBase {
  readonly kind: 'decoded';
  /** Per record with a line: where it ends in `lines` (past its newline). */
  readonly ends: Int32Array;
}

/** Writes the staged lines of a batch's values while it is packed. */
export interface LinePacker {
  /** Writes the record's line if its value gets one; true when the line holds the value, which then needs no copy in `bytes`. */
  takesValue(index: number, m: Batch['messages'][number], timestampMs: number, headers: readonly RecordHeader[], bounds: Int32Array): boolean;
  done(): PackedJsonLines;
}

export type LinePackerFactory = (batch: Batch) => LinePacker;

/** Lines of the JSON values that pass the JSON decoder's byte check. */
export const checkedJsonLines: LinePackerFactory = (batch) => new JsonLinePacker(batch);

export function packBatch(batch: Batch, epoch: number, linePacker?: LinePackerFactory): PackedBatch {
  const messages = batch.messages;
  const count = messages.length;
  const bounds = new Int32Array(count * 4);
  const offsets = new BigInt64Array(count);
  const timestamps = new Float64Array(count);
  let headers: Array<PackedHeaders | null> | undefined;
  const json = linePacker?.(batch);
  const valueInBytes = new Uint8Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const m = messages[i] as Batch['messages'][number];
    const timestampMs = Number(m.timestamp);
    offsets[i] = offsetOf(m.offset);
    timestamps[i] = timestampMs;
    const list = toHeaders(m.headers);
    if (list.length > 0) (headers ??= new Array<PackedHeaders | null>(count).fill(null))[i] = packHeaders(list);
    total += m.key?.length ?? 0;
    if (m.value === null) continue;
    if (json?.takesValue(i, m, timestampMs, list, bounds) === true) continue;
    valueInBytes[i] = 1;
    total += m.value.length;
  }
  const bytes = new Uint8Array(total);
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
    put(m.key ?? null, i * 4);
    if (valueInBytes[i] === 1 || m.value === null) put(m.value ?? null, i * 4 + 2);
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
    ...(json === undefined ? {} : { json: json.done() }),
  };
}

/** kafkajs's decimal offset; through a number while it is a safe integer, which costs less than parsing a bigint. */
function offsetOf(text: string): bigint {
  const value = Number(text);
  return Number.isSafeInteger(value) ? BigInt(value) : BigInt(text);
}

/** Writes the staged line of each value that passes the byte check, and collects their field names. */
class JsonLinePacker implements LinePacker {
  private readonly out: LineWriter;
  private readonly head: Buffer;
  private readonly starts: Int32Array;
  private readonly braces: Int32Array;
  private readonly fieldNames = new BatchFieldNames();
  private readonly shapes: Float64Array;

  constructor(batch: Batch) {
    const count = batch.messages.length;
    this.shapes = new Float64Array(count);
    this.head = partitionHead(batch.partition);
    let total = 0;
    for (const m of batch.messages) total += stagedLineBound(this.head, m.key?.length ?? 0, m.value?.length ?? 0);
    this.out = new LineWriter(total);
    this.starts = new Int32Array(count).fill(-1);
    this.braces = new Int32Array(count);
  }

  /** Whether the value passed and got a line; its bounds then index the lines. */
  takesValue(index: number, m: Batch['messages'][number], timestampMs: number, headers: readonly RecordHeader[], bounds: Int32Array): boolean {
    const value = m.value as Buffer;
    if (!isStageableJsonValue(value, this.fieldNames.keys)) return false;
    this.fieldNames.accept(value);
    this.shapes[index] = checkedShape();
    const start = this.out.size;
    const brace = writeStagedLine(this.out, this.head, { offset: m.offset, timestampMs, key: m.key ?? null, headers, json: value });
    this.starts[index] = start;
    this.braces[index] = brace;
    // The value runs from its first byte (blanks before the brace included) to the newline.
    bounds[index * 4 + 2] = brace - value.indexOf(0x7b);
    bounds[index * 4 + 3] = this.out.size - 1;
    return true;
  }

  done(): PackedJsonLines {
    return { kind: 'checked', lines: travellingLines(this.out), starts: this.starts, braces: this.braces, fieldNames: this.fieldNames.list(), shapes: this.shapes };
  }
}

/** Bytes a packed batch holds (what the worker counts until the main thread has received them). */
export function packedBytes(packed: PackedBatch): number {
  return packed.bytes.byteLength + (packed.json?.lines.byteLength ?? 0);
}

/** The buffers a packed batch hands over (no copy) when posted. */
export function transferables(packed: PackedBatch): ArrayBuffer[] {
  const buffers = [packed.offsets.buffer, packed.timestamps.buffer, packed.bytes.buffer, packed.bounds.buffer] as ArrayBuffer[];
  const json = packed.json;
  if (json !== undefined) buffers.push(json.lines.buffer as ArrayBuffer, json.starts.buffer as ArrayBuffer, (json.kind === 'checked' ? json.braces : json.ends).buffer as ArrayBuffer);
  if (json?.shapes !== undefined) buffers.push(json.shapes.buffer as ArrayBuffer);
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
  readonly lines: Buffer | undefined;

  constructor(readonly packed: PackedBatch) {
    this.bytes = asBuffer(packed.bytes);
    this.lines = packed.json === undefined ? undefined : asBuffer(packed.json.lines);
  }

  slice(slot: number): Buffer | null {
    const start = this.packed.bounds[slot] as number;
    return start < 0 ? null : this.bytes.subarray(start, this.packed.bounds[slot + 1]);
  }

  /** Whether the record has a staged line. */
  hasLine(index: number): boolean {
    return (this.packed.json?.starts[index] ?? -1) >= 0;
  }

  /** Whether the record's value is kept only in its staged line (checked JSON). */
  valueInLine(index: number): boolean {
    return this.packed.json?.kind === 'checked' && this.hasLine(index);
  }

  lineStart(index: number): number {
    return this.packed.json?.starts[index] as number;
  }

  /** Past the line's newline (which follows a value kept in the line). */
  lineEnd(index: number): number {
    const json = this.packed.json as PackedJsonLines;
    return json.kind === 'decoded' ? (json.ends[index] as number) : (this.packed.bounds[index * 4 + 3] as number) + 1;
  }

  /** A copy of a value kept in its staged line, its opening brace put back. */
  valueFromLine(index: number): Buffer {
    const json = this.packed.json as PackedCheckedLines;
    const start = this.packed.bounds[index * 4 + 2] as number;
    const value = Buffer.from((this.lines as Buffer).subarray(start, this.packed.bounds[index * 4 + 3]));
    value[(json.braces[index] as number) - start] = 0x7b;
    return value;
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
    return this.arrays.valueInLine(this.index) ? this.arrays.valueFromLine(this.index) : this.arrays.slice(this.index * 4 + 2);
  }

  get headers(): readonly RecordHeader[] {
    return unpackHeaders(this.arrays.packed.headers?.[this.index] ?? null);
  }

  get stageableJson(): boolean | undefined {
    return this.arrays.packed.json?.kind === 'checked' ? this.arrays.hasLine(this.index) : undefined;
  }

  /** What the record holds: its key, its value unless kept in its line, and its line. */
  get byteLength(): number {
    const line = this.arrays.hasLine(this.index) ? this.arrays.lineEnd(this.index) - this.arrays.lineStart(this.index) : 0;
    return this.arrays.length(this.index * 4) + line + (this.arrays.valueInLine(this.index) ? 0 : this.arrays.length(this.index * 4 + 2));
  }

  /** Its key and value as fetched (a value kept in its line has its bounds there). */
  get fetchedBytes(): number {
    return this.arrays.length(this.index * 4) + this.arrays.length(this.index * 4 + 2);
  }

  get fieldNames(): readonly string[] | undefined {
    return this.arrays.hasLine(this.index) ? this.arrays.packed.json?.fieldNames : undefined;
  }

  get shape(): number | undefined {
    return this.arrays.hasLine(this.index) ? this.arrays.packed.json?.shapes?.[this.index] : undefined;
  }

  get stagedLine(): StagedLineRef | undefined {
    return this.arrays.hasLine(this.index) ? { bytes: this.arrays.lines as Buffer, start: this.arrays.lineStart(this.index), end: this.arrays.lineEnd(this.index) } : undefined;
  }
}

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function packHeaders(list: readonly RecordHeader[]): PackedHeaders {
  // A copy of each value: a view would clone the whole buffer it points into.
  return list.map((h): [string, Uint8Array | null] => [h.key, h.value === null ? null : new Uint8Array(h.value)]);
}

function unpackHeaders(packed: PackedHeaders | null): readonly RecordHeader[] {
  if (packed === null) return NO_HEADERS;
  return packed.map(([key, value]) => ({ key, value: value === null ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength) }));
}
