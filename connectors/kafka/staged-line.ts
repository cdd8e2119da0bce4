/**
 * A Kafka record as the one line of newline-delimited JSON the engine stages it as: the record's
 * partition, offset, timestamp and key (RECORD_COORDINATE_FIELDS), its headers when it has any
 * (RECORD_HEADERS_FIELD), and then the fields of its checked JSON value, whose bytes go in as
 * they were fetched, the value's opening brace turned into the comma that joins the two (or a
 * blank when the object is empty). The topic is not in the line: the engine stages each topic's
 * lines in a file of their own and names the topic once (batch-staging.ts), and a record without
 * headers reads as an empty list; both cost DuckDB's reader about a quarter of its time per line.
 * The consumer's worker writes these lines while it packs a fetched batch, so the main thread
 * copies whole runs of lines instead of building them record by record; the engine writes the
 * same lines with the same function for records that come without one.
 */
import { RECORD_HEADERS_FIELD, type RecordHeader } from '../streaming-source.js';

/** `{"_kafka_partition":<partition>,"_kafka_offset":` as bytes, made once per fetched batch: every line of a partition starts with it. */
export function partitionHead(partition: number): Buffer {
  return Buffer.from(`{"_kafka_partition":${partition},"_kafka_offset":`, 'latin1');
}

/** A record of the partition whose head (partitionHead) starts its line. */
export interface LineRecord {
  /** The offset in decimal (kafkajs gives it as text; a bigint's toString). */
  readonly offset: string;
  readonly timestampMs: number;
  readonly key: Uint8Array | null;
  readonly headers: readonly RecordHeader[];
  /** One JSON object that passed json-object-check.ts. */
  readonly json: Uint8Array;
}

/**
 * Appends the record's line and its newline; returns the index in `out` of the byte that replaced
 * the value's opening brace (the value's bytes run from there, after its leading blanks, to the
 * byte before the newline).
 */
export function writeStagedLine(out: LineWriter, head: Uint8Array, record: LineRecord): number {
  writeLineHead(out, head, record);
  const json = record.json;
  const brace = json.indexOf(OPEN_BRACE);
  let next = brace + 1;
  while (json[next] === SPACE || json[next] === TAB) next++;
  const valueStart = out.size;
  out.bytes(json, brace, json[next] === CLOSE_BRACE ? SPACE : COMMA);
  out.byte(NEWLINE);
  return valueStart + brace;
}

/**
 * Appends the line of a record whose value `writeValue` writes as the JSON text of one object (a
 * decoded value), and its newline; when `writeValue` gives up (false), nothing is left appended.
 */
export function writeValueLine(out: LineWriter, head: Uint8Array, record: Omit<LineRecord, 'json'>, writeValue: (out: LineWriter) => boolean): boolean {
  const lineStart = out.size;
  writeLineHead(out, head, record);
  const valueStart = out.size;
  if (!writeValue(out)) {
    out.rewind(lineStart);
    return false;
  }
  out.patch(valueStart, out.size - valueStart === 2 ? SPACE : COMMA);
  out.byte(NEWLINE);
  return true;
}

/** The line up to the value's fields: coordinates, key and headers. */
function writeLineHead(out: LineWriter, head: Uint8Array, record: Omit<LineRecord, 'json'>): void {
  out.all(head);
  out.latin1(record.offset);
  out.all(TIMESTAMP_FIELD);
  out.integer(record.timestampMs);
  out.all(KEY_FIELD);
  const key = record.key;
  if (key === null) out.all(NULL_TEXT);
  else {
    const quoted = out.size;
    out.byte(QUOTE);
    if (out.plainText(key, 0, key.length)) out.byte(QUOTE);
    else {
      out.rewind(quoted);
      out.text(JSON.stringify(Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('utf8')));
    }
  }
  if (record.headers.length > 0) out.text(headersField(record.headers));
}

/** `,"_kafka_headers":[{"key":…,"value":…}, …]`, values as UTF-8 text (null stays null). */
export function headersField(headers: readonly RecordHeader[]): string {
  return `,"${RECORD_HEADERS_FIELD}":${JSON.stringify(headers.map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString('utf8') })))}`;
}

/** Printable ASCII without quotes or backslashes (bytes [start, end)): a JSON string body as it is. */
export function isPlainAscii(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}

const TIMESTAMP_FIELD = Buffer.from(',"_kafka_timestamp":');
const KEY_FIELD = Buffer.from(',"_kafka_key":');
const NULL_TEXT = Buffer.from('null');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
/** Below this many bytes a copy loop costs less than TypedArray set (Node 20: 8 bytes 31 vs 78 ns; at 16 bytes set wins). */
const SHORT_COPY = 12;

/**
 * Bytes enough for the staged line of a record without headers whose key is plain ASCII (others
 * may grow the writer): the coordinates at their longest, key, value and newline.
 */
export function stagedLineBound(head: Uint8Array, keyLength: number, valueLength: number): number {
  const longestNumbers = 20 + 21;
  return head.length + longestNumbers + TIMESTAMP_FIELD.length + KEY_FIELD.length + Math.max(keyLength + 2, NULL_TEXT.length) + valueLength + 1;
}

/**
 * The lines a worker's packer wrote, as they travel to the main thread: the whole buffer goes and
 * stays while any of its records waits there, so one that grew (or is Node's shared pool slab)
 * is copied to its size.
 */
export function travellingLines(out: LineWriter): Buffer | Uint8Array {
  const written = out.done();
  return written.byteLength * 8 < written.buffer.byteLength * 7 ? new Uint8Array(written) : written;
}

/** An append-only byte buffer that grows by doubling. */
export class LineWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(capacity, 1024));
  }

  get size(): number {
    return this.length;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  text(value: string): void {
    this.reserve(value.length * 3);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  /** ASCII text (digits), one byte per character. */
  latin1(value: string): void {
    this.reserve(value.length);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < value.length; i++) buffer[at++] = value.charCodeAt(i);
    this.length = at;
  }

  all(source: Uint8Array): void {
    this.reserve(source.length);
    if (source.length < SHORT_COPY) {
      const buffer = this.buffer;
      let at = this.length;
      for (let i = 0; i < source.length; i++) buffer[at++] = source[i] as number;
    } else this.buffer.set(source, this.length);
    this.length += source.length;
  }

  /** Bytes [start, end) of `source`. */
  range(source: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    if (end - start < SHORT_COPY) {
      const buffer = this.buffer;
      let at = this.length;
      for (let i = start; i < end; i++) buffer[at++] = source[i] as number;
    } else this.buffer.set(new Uint8Array(source.buffer, source.byteOffset + start, end - start), this.length);
    this.length += end - start;
  }

  /**
   * Bytes [start, end) of `source` when they are a JSON string body as it is (isPlainAscii), checked
   * as they are copied; otherwise nothing is appended and the answer is false.
   */
  plainText(source: Uint8Array, start: number, end: number): boolean {
    this.reserve(end - start);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = start; i < end; i++) {
      const c = source[i] as number;
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return false;
      buffer[at++] = c;
    }
    this.length = at;
    return true;
  }

  /** A safe integer in decimal, written digit by digit (no string); below 10^9 in 32-bit integer steps. */
  integer(value: number): void {
    if (!Number.isSafeInteger(value)) {
      this.text(String(value));
      return;
    }
    this.reserve(17);
    if (value < 0) {
      this.buffer[this.length++] = 0x2d;
      value = -value;
    }
    if (value < BILLION) {
      this.length = writeDigits(this.buffer, this.length, value);
      return;
    }
    const high = Math.floor(value / BILLION);
    this.length = writeDigits(this.buffer, this.length, high);
    this.length = writeDigits(this.buffer, this.length, value - high * BILLION, 9);
  }

  /** Drops what was appended from `size` on. */
  rewind(size: number): void {
    this.length = size;
  }

  /** Replaces the byte written at `at`. */
  patch(at: number, value: number): void {
    this.buffer[at] = value;
  }

  /** Appends `source` whole with the byte at `at` replaced by `replacement`. */
  bytes(source: Uint8Array, at: number, replacement: number): void {
    this.reserve(source.length);
    this.buffer.set(source, this.length);
    this.buffer[this.length + at] = replacement;
    this.length += source.length;
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

const BILLION = 1_000_000_000;

/** Writes 0 <= value < 10^9 at `at`, zero-padded to `width` digits; returns the index past its last digit. */
function writeDigits(buffer: Buffer, at: number, value: number, width = 1): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
  digits = Math.max(digits, width);
  for (let k = at + digits - 1; k >= at; k--) {
    const rest = (value / 10) | 0;
    buffer[k] = 0x30 + value - rest * 10;
    value = rest;
  }
  return at + digits;
}
