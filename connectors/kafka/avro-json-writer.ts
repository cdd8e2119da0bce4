/**
 * A writer schema compiled into a function that writes an Avro record's bytes straight as the
 * JSON text of the value the decoder gives (ConfluentAvroDecoder made JSON-safe, then
 * JSON.stringify), with no object per record: how the consumer's worker stages Avro values
 * (avro-line-packer.ts). Fields of primitive types, with their logical types and their unions
 * with null, are read here; the others (arrays, maps, records, unions of several types) are read
 * by avsc's own type of the field and written as the decoder writes them. Bytes avsc would refuse
 * (cut short, trailing, an index no branch or symbol has), and forms it reads by rules of its own
 * (negative lengths, varints past 64 bits), make the writer give up (false): the caller leaves
 * such a value to the decoder, which gives its value or its DecodeError.
 */
import type avsc from 'avsc';
import type { AvroNode } from './avro-logical-schema.js';
import { jsonSafeValue } from './json-safe-values.js';
import type { LineWriter } from './staged-line.js';

/** Writes the record at `start` in `bytes` (to their end) as one JSON object; false when it gives up. */
export type AvroJsonWriter = (bytes: Buffer, start: number, out: LineWriter) => boolean;

interface Cursor {
  bytes: Buffer;
  pos: number;
}

type FieldWriter = (at: Cursor, out: LineWriter) => boolean;
type Convert = (value: unknown) => unknown;

/** The writer of a record type (avroType of a writer schema) whose landed form `node` gives (compileAvroSchema). */
export function compileAvroJsonWriter(type: avsc.Type, node: AvroNode): AvroJsonWriter {
  const fields = (type as unknown as { fields: ReadonlyArray<{ name: string; type: avsc.Type }> }).fields;
  const keys = fields.map((f, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`));
  const writers = fields.map((f) => fieldWriter(f.type, node.fields?.get(f.name)?.convert));
  const at: Cursor = { bytes: EMPTY, pos: 0 };
  return (bytes, start, out) => {
    at.bytes = bytes;
    at.pos = start;
    if (writers.length === 0) out.byte(OPEN_BRACE);
    for (let i = 0; i < writers.length; i++) {
      out.all(keys[i] as Buffer);
      if (!(writers[i] as FieldWriter)(at, out)) return false;
    }
    out.byte(CLOSE_BRACE);
    // Bytes past the record are avsc's "trailing data".
    return at.pos === bytes.length;
  };
}

function fieldWriter(type: avsc.Type, convert: Convert | undefined): FieldWriter {
  switch (type.typeName) {
    case 'null':
      return convert === undefined ? (_at, out) => (out.all(NULL), true) : avscWriter(type, convert);
    case 'boolean':
      return convert === undefined ? booleanWriter : avscWriter(type, convert);
    case 'int':
      return convert === undefined ? intWriter : converted(readInt, convert);
    case 'abstract:long':
      return convert === undefined ? longWriter : converted((at) => asBigInt(readLong(at)), convert);
    case 'float':
      return convert === undefined ? floatWriter(4) : avscWriter(type, convert);
    case 'double':
      return convert === undefined ? floatWriter(8) : avscWriter(type, convert);
    case 'string':
      return convert === undefined ? stringWriter : avscWriter(type, convert);
    case 'bytes':
      return convert === undefined ? bytesWriter(readBytes) : converted(readBytes, convert);
    case 'fixed': {
      const size = (type as unknown as { size: number }).size;
      const read = (at: Cursor): Buffer | undefined => readFixed(at, size);
      return convert === undefined ? bytesWriter(read) : converted(read, convert);
    }
    case 'enum': {
      const symbols = (type as unknown as { symbols: readonly string[] }).symbols.map((s) => Buffer.from(JSON.stringify(s)));
      return convert === undefined ? enumWriter(symbols) : avscWriter(type, convert);
    }
    case 'union:unwrapped':
      return nullableWriter(type, convert) ?? avscWriter(type, convert);
    default:
      return avscWriter(type, convert);
  }
}

/** ['null', T] or [T, 'null'] with T read here; the union's convert applies to T's values (avro-logical-schema.ts). */
function nullableWriter(type: avsc.Type, convert: Convert | undefined): FieldWriter | undefined {
  const branches = (type as unknown as { types: readonly avsc.Type[] }).types;
  if (branches.length !== 2) return undefined;
  const nullAt = branches.findIndex((b) => b.typeName === 'null');
  const present = branches[1 - nullAt];
  if (nullAt < 0 || present === undefined || present.typeName.startsWith('union') || present.typeName === 'null') return undefined;
  const inner = fieldWriter(present, convert);
  return (at, out) => {
    const index = readInt(at);
    if (index === nullAt) {
      out.all(NULL);
      return true;
    }
    return index === 1 - nullAt && inner(at, out);
  };
}

/** Read by avsc's type of the field, converted and written as the decoder does. */
function avscWriter(type: avsc.Type, convert: Convert | undefined): FieldWriter {
  return (at, out) => {
    // avsc throws for an index no branch or symbol has: the decoder will say so.
    const decoded = type.decode(at.bytes, at.pos);
    if (decoded.offset < 0) return false;
    at.pos = decoded.offset;
    return writeJson(out, convert === undefined ? decoded.value : convert(decoded.value));
  };
}

function converted<T>(read: (at: Cursor) => T | undefined, convert: Convert): FieldWriter {
  return (at, out) => {
    const value = read(at);
    return value !== undefined && writeJson(out, convert(value));
  };
}

function writeJson(out: LineWriter, value: unknown): boolean {
  const text = JSON.stringify(jsonSafeValue(value)) as string | undefined;
  if (text === undefined) return false;
  out.text(text);
  return true;
}

const booleanWriter: FieldWriter = (at, out) => {
  if (at.pos >= at.bytes.length) return false;
  out.all(at.bytes[at.pos++] === 0 ? FALSE : TRUE);
  return true;
};

const intWriter: FieldWriter = (at, out) => {
  const value = readInt(at);
  if (value === undefined) return false;
  out.integer(value);
  return true;
};

/** A long as the decoder's JSON-safe form: a number within ±2^53, else its decimal text quoted. */
const longWriter: FieldWriter = (at, out) => {
  const value = readLong(at);
  if (value === undefined) return false;
  if (typeof value === 'number') out.integer(value);
  else if (value >= -MAX_SAFE && value <= MAX_SAFE) out.integer(Number(value));
  else {
    out.byte(QUOTE);
    out.latin1(value.toString());
    out.byte(QUOTE);
  }
  return true;
};

function floatWriter(size: 4 | 8): FieldWriter {
  return (at, out) => {
    if (at.pos + size > at.bytes.length) return false;
    const value = size === 4 ? at.bytes.readFloatLE(at.pos) : at.bytes.readDoubleLE(at.pos);
    at.pos += size;
    // JSON.stringify writes NaN and the infinities as null.
    if (Number.isFinite(value)) out.latin1(String(value));
    else out.all(NULL);
    return true;
  };
}

const stringWriter: FieldWriter = (at, out) => {
  const length = readLength(at);
  if (length === undefined) return false;
  const { bytes, pos } = at;
  at.pos += length;
  const quoted = out.size;
  out.byte(QUOTE);
  if (out.plainText(bytes, pos, pos + length)) out.byte(QUOTE);
  else {
    out.rewind(quoted);
    out.text(JSON.stringify(bytes.toString('utf8', pos, pos + length)));
  }
  return true;
};

function bytesWriter(read: (at: Cursor) => Buffer | undefined): FieldWriter {
  return (at, out) => {
    const bytes = read(at);
    if (bytes === undefined) return false;
    out.byte(QUOTE);
    out.latin1(bytes.toString('base64'));
    out.byte(QUOTE);
    return true;
  };
}

function enumWriter(symbols: readonly Buffer[]): FieldWriter {
  return (at, out) => {
    const index = readInt(at);
    const symbol = index === undefined ? undefined : symbols[index];
    if (symbol === undefined) return false;
    out.all(symbol);
    return true;
  };
}

function readBytes(at: Cursor): Buffer | undefined {
  const length = readLength(at);
  return length === undefined ? undefined : readFixed(at, length);
}

function readFixed(at: Cursor, size: number): Buffer | undefined {
  if (at.pos + size > at.bytes.length) return undefined;
  at.pos += size;
  return at.bytes.subarray(at.pos - size, at.pos);
}

/** A string's or bytes' length: non-negative and within the bytes. */
function readLength(at: Cursor): number | undefined {
  const length = readInt(at);
  return length === undefined || length < 0 || at.pos + length > at.bytes.length ? undefined : length;
}

/** avsc's readInt (zigzag varint, float arithmetic past 28 bits), giving up where the bytes end. */
function readInt(at: Cursor): number | undefined {
  const bytes = at.bytes;
  let pos = at.pos;
  let n = 0;
  let k = 0;
  let b: number;
  let high: number;
  do {
    if (pos >= bytes.length) return undefined;
    b = bytes[pos++] as number;
    high = b & 0x80;
    n |= (b & 0x7f) << k;
    k += 7;
  } while (high !== 0 && k < 28);
  if (high !== 0) {
    let f = n;
    let scale = 268_435_456;
    do {
      if (pos >= bytes.length) return undefined;
      b = bytes[pos++] as number;
      f += (b & 0x7f) * scale;
      scale *= 128;
    } while ((b & 0x80) !== 0);
    // Hundreds of continuation bytes overflow it: avsc would read NaN.
    if (!Number.isFinite(f)) return undefined;
    at.pos = pos;
    return (f % 2 ? -(f + 1) : f) / 2;
  }
  at.pos = pos;
  return (n >> 1) ^ -(n & 1);
}

/**
 * A long as avsc's 64-bit reader gives it: a number while its varint has at most 7 bytes (exact
 * below 2^48), else a bigint. Varints of more than 64 bits are given up.
 */
function readLong(at: Cursor): number | bigint | undefined {
  const bytes = at.bytes;
  const start = at.pos;
  let end = start;
  while (end < bytes.length && end - start < 10 && ((bytes[end] as number) & 0x80) !== 0) end++;
  if (end >= bytes.length || end - start >= 10) return undefined;
  const length = end - start + 1;
  if (length === 10 && (bytes[end] as number) > 1) return undefined;
  at.pos = end + 1;
  if (length <= 7) {
    let z = 0;
    let scale = 1;
    for (let i = start; i <= end; i++) {
      z += ((bytes[i] as number) & 0x7f) * scale;
      scale *= 128;
    }
    return z % 2 ? -(z + 1) / 2 : z / 2;
  }
  let z = 0n;
  for (let i = end; i >= start; i--) z = (z << 7n) | BigInt((bytes[i] as number) & 0x7f);
  return (z >> 1n) ^ -(z & 1n);
}

const asBigInt = (value: number | bigint | undefined): bigint | undefined => (typeof value === 'number' ? BigInt(value) : value);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const EMPTY = Buffer.alloc(0);
const NULL = Buffer.from('null');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
