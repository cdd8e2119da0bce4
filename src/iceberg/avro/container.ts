/**
 * Avro object container files (Avro spec "Object Container Files") to and from bytes.
 *
 * The header's `avro.schema` is the JSON of the raw schema object we are given, written as is,
 * because avsc 5.7 drops custom attributes (`field-id`, `element-id`, `adjust-to-utc`) when it
 * re-serialises a parsed Type — and Iceberg readers resolve manifests by those ids. avsc is used
 * only for the datum encoding, with `long` mapped to a bigint-aware type (int64 ids and sizes).
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import avsc from 'avsc';
import { IcebergFormatError } from '../../errors.js';
import { SnappyError, snappyDecompress } from './snappy.js';

/** A raw Avro schema as JSON: a type name, a union, or an object with attributes kept verbatim. */
export type AvroSchema = string | readonly AvroSchema[] | AvroSchemaObject;
export interface AvroSchemaObject {
  readonly type: AvroSchema;
  readonly [attribute: string]: unknown;
}

export type AvroCodec = 'null' | 'deflate';

export interface ContainerContents {
  /** The header schema as parsed JSON, with every attribute the writer put there. */
  readonly schemaJson: AvroSchema;
  /** All header metadata, decoded as UTF-8 (includes `avro.schema` and `avro.codec`). */
  readonly metadata: Record<string, string>;
  readonly records: unknown[];
}

export interface WriteContainerArgs {
  readonly schema: AvroSchema;
  readonly metadata: Readonly<Record<string, string>>;
  readonly records: readonly unknown[];
  readonly codec?: AvroCodec;
  /** 16 bytes; random when omitted. */
  readonly syncMarker?: Uint8Array;
}

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]); // "Obj" 1
const SYNC_SIZE = 16;
const BLOCK_TARGET_BYTES = 1 << 20;

const BIGINT_LONG = avsc.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(0),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(n, 0);
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string | number | bigint),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' && n >= -(2n ** 63n) && n < 2n ** 63n,
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

const HEADER_META = avsc.Type.forSchema({ type: 'map', values: 'bytes' });
const NUMBER_LONG = avsc.Type.forSchema('long');

/**
 * Types built for the schemas seen last, by their JSON text. avsc compiles a reader and a writer
 * for every record type it builds, which cost more than reading a small manifest; a table's
 * manifests and manifest lists share a handful of schemas, and a Type holds no per-read state.
 */
const recentTypes = new Map<string, avsc.Type>();
const RECENT_TYPES = 64;

/** avsc Type for a raw schema where every Avro `long` (incl. logical longs) is a JS bigint. */
export function avroType(schema: AvroSchema, schemaText = JSON.stringify(schema)): avsc.Type {
  const known = recentTypes.get(schemaText);
  if (known !== undefined) return known;
  const type = avsc.Type.forSchema(schema as never, {
    wrapUnions: 'auto',
    typeHook: (s: unknown) => (s === 'long' || isLongObject(s) ? BIGINT_LONG : undefined),
  });
  if (recentTypes.size >= RECENT_TYPES) recentTypes.delete(recentTypes.keys().next().value as string);
  recentTypes.set(schemaText, type);
  return type;
}

function isLongObject(s: unknown): boolean {
  return typeof s === 'object' && s !== null && !Array.isArray(s) && (s as { type?: unknown }).type === 'long';
}

export function writeContainer(args: WriteContainerArgs): Uint8Array {
  const codec = args.codec ?? 'deflate';
  const sync = args.syncMarker ?? randomBytes(SYNC_SIZE);
  if (sync.length !== SYNC_SIZE) {
    throw new IcebergFormatError(`Avro sync marker must be ${SYNC_SIZE} bytes, got ${sync.length}`);
  }
  const type = avroType(args.schema);
  const meta: Record<string, Buffer> = {};
  for (const [key, value] of Object.entries(args.metadata)) meta[key] = Buffer.from(value, 'utf8');
  meta['avro.schema'] = Buffer.from(JSON.stringify(args.schema), 'utf8');
  meta['avro.codec'] = Buffer.from(codec, 'utf8');

  const parts: Buffer[] = [MAGIC, HEADER_META.toBuffer(meta), Buffer.from(sync)];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const raw = Buffer.concat(pending);
    const data = codec === 'deflate' ? deflateRawSync(raw) : raw;
    parts.push(NUMBER_LONG.toBuffer(pending.length), NUMBER_LONG.toBuffer(data.length), data, Buffer.from(sync));
    pending = [];
    pendingBytes = 0;
  };
  args.records.forEach((record, index) => {
    let encoded: Buffer;
    try {
      encoded = type.toBuffer(record);
    } catch (cause) {
      throw new IcebergFormatError(`Avro record ${index} does not match its schema: ${(cause as Error).message}`, {
        cause,
        context: { record: index },
      });
    }
    pending.push(encoded);
    pendingBytes += encoded.length;
    if (pendingBytes >= BLOCK_TARGET_BYTES) flush();
  });
  flush();
  const out = Buffer.concat(parts);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export function readContainer(bytes: Uint8Array, source: string): ContainerContents {
  const fail = (message: string, cause?: unknown): IcebergFormatError =>
    new IcebergFormatError(`${message} in Avro file ${source}`, { cause, context: { file: source } });
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw fail('Not an Avro object container file (bad magic; encrypted or not Avro?)');
  }
  const header = HEADER_META.decode(buf, MAGIC.length);
  if (header.offset < 0 || header.offset + SYNC_SIZE > buf.length) throw fail('Truncated header');
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(header.value as Record<string, Buffer>)) {
    metadata[key] = value.toString('utf8');
  }
  const sync = buf.subarray(header.offset, header.offset + SYNC_SIZE);
  const schemaText = metadata['avro.schema'];
  if (schemaText === undefined) throw fail('Missing avro.schema');
  let schemaJson: AvroSchema;
  let type: avsc.Type;
  try {
    schemaJson = JSON.parse(schemaText) as AvroSchema;
    type = avroType(schemaJson, schemaText);
  } catch (cause) {
    throw fail(`Unreadable avro.schema (${(cause as Error).message})`, cause);
  }
  const codec = metadata['avro.codec'] ?? 'null';
  if (codec !== 'null' && codec !== 'deflate' && codec !== 'snappy') {
    throw fail(`Unsupported Avro codec '${codec}' (readable: null, deflate, snappy)`);
  }

  const records: unknown[] = [];
  let pos = header.offset + SYNC_SIZE;
  while (pos < buf.length) {
    const count = NUMBER_LONG.decode(buf, pos);
    if (count.offset < 0) throw fail(`Truncated block header at byte ${pos}`);
    const size = NUMBER_LONG.decode(buf, count.offset);
    if (size.offset < 0) throw fail(`Truncated block header at byte ${pos}`);
    const start = size.offset;
    const end = start + (size.value as number);
    if ((size.value as number) < 0 || end + SYNC_SIZE > buf.length) throw fail(`Truncated block at byte ${pos}`);
    if (!buf.subarray(end, end + SYNC_SIZE).equals(sync)) throw fail(`Sync marker mismatch after block at byte ${pos}`);
    const data = decompress(codec, buf.subarray(start, end), fail);
    let offset = 0;
    for (let i = 0; i < (count.value as number); i++) {
      let decoded: { value: unknown; offset: number };
      try {
        decoded = type.decode(data, offset);
      } catch (cause) {
        throw fail(`Undecodable record ${records.length} (${(cause as Error).message})`, cause);
      }
      if (decoded.offset < 0) throw fail(`Record ${records.length} runs past its block`);
      records.push(decoded.value);
      offset = decoded.offset;
    }
    if (offset !== data.length) throw fail(`Block at byte ${pos} has ${data.length - offset} trailing bytes`);
    pos = end + SYNC_SIZE;
  }
  return { schemaJson, metadata, records };
}

function decompress(codec: string, data: Buffer, fail: (message: string, cause?: unknown) => Error): Buffer {
  try {
    if (codec === 'deflate') return inflateRawSync(data);
    if (codec === 'snappy') {
      // Avro appends a big-endian CRC32 of the uncompressed bytes; the block proper precedes it.
      const out = snappyDecompress(data.subarray(0, data.length - 4));
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    }
    return data;
  } catch (cause) {
    const detail = cause instanceof SnappyError || cause instanceof Error ? cause.message : String(cause);
    throw fail(`Cannot decompress ${codec} block (${detail})`, cause);
  }
}
