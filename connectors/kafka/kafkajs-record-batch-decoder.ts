/**
 * A faster stand-in for kafkajs's record batch decoder (kafkajs/src/protocol/recordBatch/v0/decoder.js,
 * installed by kafkajs-fast-records.ts): the same contract and the same record objects, made in one
 * pass over the batch's bytes. kafkajs makes a decoder object per record and parses the batch's
 * first offset and timestamp from text into 64-bit objects for every record, which was about half
 * the consumer worker's CPU. Offsets and timestamps are added as numbers while they are safe
 * integers, as bigints past that; headers, compression codecs, control batches and partial
 * trailing batches behave as kafkajs's own decoder does (record-batch-decoder tests compare the two).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface Codec {
  decompress(buffer: Buffer): Promise<Buffer>;
}
const { KafkaJSPartialMessageError } = require('kafkajs/src/errors.js') as { KafkaJSPartialMessageError: new (message: string) => Error };
const { lookupCodecByAttributes } = require('kafkajs/src/protocol/message/compression/index.js') as { lookupCodecByAttributes(attributes: number): Codec | null };

/** The parts of kafkajs's Decoder the fetch response hands in. */
export interface KafkaJsFetchDecoder {
  readonly buffer: Buffer;
  readonly offset: number;
  forward(size: number): void;
}

export interface KafkaJsRecordContext {
  readonly firstOffset: string;
  readonly firstTimestamp: string;
  readonly partitionLeaderEpoch: number;
  readonly inTransaction: boolean;
  readonly isControlBatch: boolean;
  readonly lastOffsetDelta: number;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly firstSequence: number;
  readonly maxTimestamp: string;
  readonly timestampType: number;
}

export type KafkaJsHeaders = Record<string, Buffer | null | Array<Buffer | null>>;

export interface KafkaJsRecord {
  readonly magicByte: number;
  readonly attributes: number;
  readonly timestamp: string;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: KafkaJsHeaders;
  readonly isControlRecord: boolean;
  readonly batchContext: KafkaJsRecordContext & { readonly magicByte: number };
}

const TIMESTAMP_TYPE_FLAG_MASK = 0x8;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;
const LOG_APPEND_TIME = 1;
const CREATE_TIME = 0;
/** Batch header bytes after FirstOffset and Length, up to the records' count. */
const HEADER_BYTES = 45;
/** Beyond this a first offset or timestamp plus a delta may leave the safe integers. */
const SAFE_BASE = Number.MAX_SAFE_INTEGER - 2 ** 32;

export async function decodeRecordBatch(fetchDecoder: KafkaJsFetchDecoder): Promise<KafkaJsRecordContext & { records: KafkaJsRecord[] }> {
  const source = fetchDecoder.buffer;
  const start = fetchDecoder.offset;
  const firstOffset = source.readBigInt64BE(start);
  const length = source.readInt32BE(start + 8);
  fetchDecoder.forward(12 + length);
  const remainingBytes = Math.max(0, Math.min(source.length, start + 12 + length) - (start + 12));
  if (remainingBytes < length) {
    throw new KafkaJSPartialMessageError(`Tried to decode a partial record batch: remainingBytes(${remainingBytes}) < recordBatchLength(${length})`);
  }
  const at = start + 12;
  const magicByte = source.readInt8(at + 4);
  const attributes = source.readInt16BE(at + 9);
  const firstTimestamp = source.readBigInt64BE(at + 15);
  const context: KafkaJsRecordContext = {
    firstOffset: firstOffset.toString(),
    firstTimestamp: firstTimestamp.toString(),
    partitionLeaderEpoch: source.readInt32BE(at),
    inTransaction: (attributes & TRANSACTIONAL_FLAG_MASK) > 0,
    isControlBatch: (attributes & CONTROL_FLAG_MASK) > 0,
    lastOffsetDelta: source.readInt32BE(at + 11),
    producerId: source.readBigInt64BE(at + 31).toString(),
    producerEpoch: source.readInt16BE(at + 39),
    firstSequence: source.readInt32BE(at + 41),
    maxTimestamp: source.readBigInt64BE(at + 23).toString(),
    timestampType: (attributes & TIMESTAMP_TYPE_FLAG_MASK) > 0 ? LOG_APPEND_TIME : CREATE_TIME,
  };
  const count = source.readInt32BE(at + HEADER_BYTES);
  const recordsStart = at + HEADER_BYTES + 4;
  const end = at + length;
  const codec = lookupCodecByAttributes(attributes);
  let records: KafkaJsRecord[];
  if (count <= 0) records = [];
  else if (codec === null) records = decodeRecords(source, recordsStart, count, { ...context, magicByte }, firstOffset, firstTimestamp);
  else {
    const decompressed = await codec.decompress(source.subarray(recordsStart, end));
    records = decodeRecords(decompressed, 0, count, { ...context, magicByte }, firstOffset, firstTimestamp);
  }
  return { ...context, records };
}

const NO_HEADERS: KafkaJsHeaders = Object.freeze({}) as KafkaJsHeaders;

function decodeRecords(buffer: Buffer, start: number, count: number, batchContext: KafkaJsRecord['batchContext'], firstOffset: bigint, firstTimestamp: bigint): KafkaJsRecord[] {
  const reader = new VarIntReader(buffer, start);
  const records = new Array<KafkaJsRecord>(count);
  const offsetBase = firstOffset >= -SAFE_BASE && firstOffset <= SAFE_BASE ? Number(firstOffset) : undefined;
  const timestampBase = firstTimestamp >= -SAFE_BASE && firstTimestamp <= SAFE_BASE ? Number(firstTimestamp) : undefined;
  const logAppendTime = batchContext.timestampType === LOG_APPEND_TIME && batchContext.maxTimestamp !== '';
  const isControlRecord = batchContext.isControlBatch;
  for (let i = 0; i < count; i++) {
    const recordLength = reader.varInt();
    const recordEnd = reader.at + recordLength;
    const attributes = buffer.readInt8(reader.at);
    reader.at++;
    const timestampDelta = reader.varLong();
    let timestamp: string;
    if (logAppendTime) timestamp = batchContext.maxTimestamp;
    else if (timestampBase !== undefined && typeof timestampDelta === 'number' && Number.isSafeInteger(timestampBase + timestampDelta)) timestamp = String(timestampBase + timestampDelta);
    else timestamp = (firstTimestamp + BigInt(timestampDelta)).toString();
    const offsetDelta = reader.varInt();
    const offset = offsetBase !== undefined ? String(offsetBase + offsetDelta) : (firstOffset + BigInt(offsetDelta)).toString();
    const key = reader.bytes();
    const value = reader.bytes();
    const headerCount = reader.varInt();
    const headers = headerCount <= 0 ? NO_HEADERS : readHeaders(reader, headerCount);
    reader.at = recordEnd;
    records[i] = { magicByte: batchContext.magicByte, attributes, timestamp, offset, key, value, headers, isControlRecord, batchContext };
  }
  return records;
}

/** kafkajs's header object: one key's repeated values become an array in order. */
function readHeaders(reader: VarIntReader, count: number): KafkaJsHeaders {
  const headers: KafkaJsHeaders = {};
  for (let h = 0; h < count; h++) {
    const keyBytes = reader.bytes();
    const key = keyBytes === null ? 'null' : keyBytes.toString('utf8');
    const value = reader.bytes();
    const previous = Object.prototype.hasOwnProperty.call(headers, key) ? headers[key] : undefined;
    const next = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
    Object.defineProperty(headers, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}

/** Zigzag varints and varlongs of the record format, read in place. */
class VarIntReader {
  constructor(
    private readonly buffer: Buffer,
    public at: number,
  ) {}

  varInt(): number {
    const buffer = this.buffer;
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = buffer[this.at++] as number;
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte >= 0x80 && shift < 35);
    return (result >>> 1) ^ -(result & 1);
  }

  /** A number while it fits the safe integers (up to 7 bytes), a bigint beyond. */
  varLong(): number | bigint {
    const buffer = this.buffer;
    const start = this.at;
    let result = 0;
    let scale = 1;
    let byte: number;
    let bytes = 0;
    do {
      byte = buffer[this.at++] as number;
      result += (byte & 0x7f) * scale;
      scale *= 128;
      bytes++;
    } while (byte >= 0x80 && bytes < 7);
    if (byte < 0x80) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    this.at = start;
    return this.bigVarLong();
  }

  bytes(): Buffer | null {
    const length = this.varInt();
    if (length < 0) return null;
    const start = this.at;
    this.at += length;
    return this.buffer.subarray(start, this.at);
  }

  private bigVarLong(): bigint {
    let result = 0n;
    let shift = 0n;
    let byte: number;
    do {
      byte = this.buffer[this.at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
    } while (byte >= 0x80 && shift < 70n);
    return BigInt.asIntN(64, (result >> 1n) ^ -(result & 1n));
  }
}
