/**
 * Stages a micro-batch of JSON records in DuckDB: one newline-delimited JSON file read by
 * DuckDB's own JSON reader into a table, never row-by-row inserts. @duckdb/node-api has no Arrow
 * ingestion and the arrow extension is not built in; its columnar way in, the appender's
 * appendDataChunk, needs every column's type before the batch is read (nested JSON included).
 * Each row carries the value's fields plus the record's coordinates in the reserved columns
 * below. A record whose value is checked JSON (`SourceRecord.json`) is written as its fetched
 * bytes behind the coordinates, so nothing is parsed or re-serialised in JavaScript; other values
 * (Avro, Debezium rows, JSON that needed parsing) are serialised with JSON.stringify. With known
 * column types (the target table's) the reader casts to them; otherwise it detects types over
 * the whole batch.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RECORD_COORDINATE_FIELDS, RECORD_HEADERS_FIELD, type SourceRecord } from '../../../../connectors/streaming-source.js';
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';

export type JsonRecord = SourceRecord<Record<string, unknown>>;

/** Columns every staged row has besides the value's fields. */
export const RECORD_COLUMNS = RECORD_COORDINATE_FIELDS;
const RECORD_COLUMN_TYPES: Readonly<Record<(typeof RECORD_COLUMNS)[number], string>> = {
  _kafka_topic: 'VARCHAR',
  _kafka_partition: 'INTEGER',
  _kafka_offset: 'BIGINT',
  _kafka_timestamp: 'BIGINT',
  _kafka_key: 'VARCHAR',
};

export interface StagingRequest {
  readonly session: DuckDbSession;
  readonly records: readonly JsonRecord[];
  /** The DuckDB table the rows land in (replaced). */
  readonly table: string;
  /** A folder for the temporary file. */
  readonly tempDir: string;
  /** Value columns and their DuckDB types; undefined: detect from the batch. */
  readonly columns?: ReadonlyMap<string, string>;
  /**
   * With columns: read the value fields outside them too, typed as DuckDB detects them over the
   * whole batch (one more pass over the file; for a batch that brings new fields).
   */
  readonly readOtherFields?: boolean;
  /** Stage the record headers too, as `_kafka_headers` (a list of {key, value} in record order; pipelines select it). */
  readonly withHeaders?: boolean;
}

/** The column the headers land in when staged, and its type (Spark's Kafka source gives the same shape). */
export const HEADERS_COLUMN = RECORD_HEADERS_FIELD;
const HEADERS_TYPE = 'STRUCT(key VARCHAR, value VARCHAR)[]';

/** The reserved column a value field collides with, if any. */
export function reservedFieldOf(value: Record<string, unknown>): string | undefined {
  for (const column of RECORD_COLUMNS) if (Object.hasOwn(value, column)) return column;
  return undefined;
}

export function stagedLine(record: JsonRecord, withHeaders = false): string {
  const head = lineHead(record) + (withHeaders ? headersField(record) : '');
  if (record.json !== undefined) {
    const body = record.json.subarray(openingBrace(record.json) + 1).toString('utf8');
    return /^[ \t]*\}/.test(body) ? `${head}${body}` : `${head},${body}`;
  }
  const value = JSON.stringify(record.value);
  return value.length <= 2 ? `${head}}` : `${head},${value.slice(1)}`;
}

/** `{"_kafka_topic":…,"_kafka_key":…` without the closing brace. */
function lineHead(record: JsonRecord, quotedTopic: string = JSON.stringify(record.topic)): string {
  return `{"_kafka_topic":${quotedTopic},"_kafka_partition":${record.partition},"_kafka_offset":${record.offset},"_kafka_timestamp":${record.timestampMs},"_kafka_key":${quotedKey(record.key)}`;
}

/** `,"_kafka_headers":[{"key":…,"value":…}, …]`, values as UTF-8 text (null stays null). */
function headersField(record: JsonRecord): string {
  return `,"${HEADERS_COLUMN}":${JSON.stringify(record.headers.map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString('utf8') })))}`;
}

/** The key as a JSON string; printable ASCII without quotes or backslashes needs no escaping. */
function quotedKey(key: Buffer | null): string {
  if (key === null) return 'null';
  return isPlainAscii(key) ? `"${key.toString('latin1')}"` : JSON.stringify(key.toString('utf8'));
}

export interface StagedLines {
  readonly bytes: Buffer;
  /** Bytes of the longest line: DuckDB's reader sizes its buffers by the largest object it allows. */
  readonly longestLine: number;
}

/** All lines of a batch as one buffer: checked JSON values are copied as bytes, not decoded. */
export function stagedLines(records: readonly JsonRecord[], withHeaders = false): StagedLines {
  const topicHeads = new Map<string, Buffer>();
  const out = new GrowingBuffer(records.reduce((sum, r) => sum + (r.json?.length ?? 256) + (r.key?.length ?? 0) + 160, 0));
  let longestLine = 0;
  let lineStart = 0;
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as JsonRecord;
    if (i > 0) {
      longestLine = Math.max(longestLine, out.size - lineStart);
      out.byte(NEWLINE);
      lineStart = out.size;
    }
    const json = record.json;
    if (json === undefined) {
      out.text(stagedLine(record, withHeaders));
      continue;
    }
    let topicHead = topicHeads.get(record.topic);
    if (topicHead === undefined) topicHeads.set(record.topic, (topicHead = Buffer.from(`{"_kafka_topic":${JSON.stringify(record.topic)},"_kafka_partition":`, 'utf8')));
    // The head is written as bytes, without building a string per record.
    out.all(topicHead);
    out.integer(record.partition);
    out.all(OFFSET_FIELD);
    if (record.offset <= MAX_SAFE_OFFSET) out.integer(Number(record.offset));
    else out.text(record.offset.toString());
    out.all(TIMESTAMP_FIELD);
    out.integer(record.timestampMs);
    out.all(KEY_FIELD);
    const key = record.key;
    if (key === null) out.all(NULL_TEXT);
    else if (isPlainAscii(key)) {
      out.byte(QUOTE);
      out.all(key);
      out.byte(QUOTE);
    } else out.text(JSON.stringify(key.toString('utf8')));
    if (withHeaders) {
      if (record.headers.length === 0) out.all(NO_HEADERS_FIELD);
      else out.text(headersField(record));
    }
    // The whole value goes in after the head, its opening brace turned into the comma that joins
    // the two (or a blank when the object is empty): one native copy per record.
    const brace = openingBrace(json);
    let next = brace + 1;
    while (json[next] === SPACE || json[next] === TAB) next++;
    out.bytes(json, brace, json[next] === CLOSE_BRACE ? SPACE : COMMA);
  }
  return { bytes: out.done(), longestLine: Math.max(longestLine, out.size - lineStart) };
}

const MAX_SAFE_OFFSET = BigInt(Number.MAX_SAFE_INTEGER);
const OFFSET_FIELD = Buffer.from(',"_kafka_offset":');
const TIMESTAMP_FIELD = Buffer.from(',"_kafka_timestamp":');
const KEY_FIELD = Buffer.from(',"_kafka_key":');
const NO_HEADERS_FIELD = Buffer.from(`,"${HEADERS_COLUMN}":[]`);
const NULL_TEXT = Buffer.from('null');
const QUOTE = 0x22;

/** Printable ASCII without quotes or backslashes: a JSON string body as it is. */
function isPlainAscii(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** Index of the opening brace of a checked JSON object (after leading blanks). */
function openingBrace(json: Buffer): number {
  let i = 0;
  while (json[i] !== OPEN_BRACE) i++;
  return i;
}

const OPEN_BRACE = 0x7b;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

class GrowingBuffer {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(capacity, 1024));
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  text(value: string): void {
    this.reserve(value.length * 3);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  get size(): number {
    return this.length;
  }

  all(source: Uint8Array): void {
    this.reserve(source.length);
    this.buffer.set(source, this.length);
    this.length += source.length;
  }

  /** A safe integer in decimal, written digit by digit (no string). */
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
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    for (let k = digits - 1; k >= 0; k--) {
      this.buffer[this.length + k] = 0x30 + (value % 10);
      value = Math.floor(value / 10);
    }
    this.length += digits;
  }

  /** Appends `source` whole with the byte at `at` replaced by `replacement`. */
  bytes(source: Buffer, at: number, replacement: number): void {
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

/**
 * The coordinates with their own types whatever the reader detects (a batch whose partitions are
 * all small numbers reads them as BIGINT): a table's column types never depend on its first batch.
 */
const COORDINATE_CASTS = [
  'CAST(_kafka_topic AS VARCHAR) AS _kafka_topic',
  'CAST(_kafka_partition AS INTEGER) AS _kafka_partition',
  'CAST(_kafka_offset AS BIGINT) AS _kafka_offset',
  'epoch_ms(_kafka_timestamp) AS _kafka_timestamp',
  'CAST(_kafka_key AS VARCHAR) AS _kafka_key',
].join(', ');

let fileCounter = 0;
/** DuckDB's reader allocates buffers of about the largest object size: no larger than the batch needs. */
const MIN_OBJECT_SIZE = 1024 * 1024;

/**
 * Writes the batch file and creates `request.table` from DuckDB's reader of it in one statement
 * (the reader's type detection runs once; a view in between would be bound, and detect, again).
 */
export async function stageRecords(request: StagingRequest): Promise<void> {
  const file = join(request.tempDir, `batch-${process.pid}-${++fileCounter}.ndjson`);
  const lines = stagedLines(request.records, request.withHeaders === true);
  await writeFile(file, lines.bytes);
  try {
    const options = [`format = 'newline_delimited'`, `maximum_object_size = ${Math.max(MIN_OBJECT_SIZE, lines.longestLine + 1024)}`];
    let columns = request.columns;
    if (columns !== undefined && request.readOtherFields === true) columns = await withOtherFields(request.session, file, options, columns);
    if (columns === undefined) options.push('sample_size = -1');
    else options.push(`columns = ${columnsStruct(request.withHeaders === true ? new Map([[HEADERS_COLUMN, HEADERS_TYPE], ...columns]) : columns)}`);
    // A batch without any header reads the column as an untyped list: it gets the type all batches share.
    const headers = request.withHeaders === true ? `, CAST(${HEADERS_COLUMN} AS ${HEADERS_TYPE}) AS ${HEADERS_COLUMN}` : '';
    await request.session.run(
      `CREATE OR REPLACE TABLE ${quoteIdentifier(request.table)} AS SELECT * REPLACE (${COORDINATE_CASTS}${headers}) FROM read_json(${quoteLiteral(file)}, ${options.join(', ')})`,
    );
  } finally {
    await rm(file, { force: true });
  }
}

/** `columns` and, after them, the other value fields of the batch file with the types DuckDB detects for them. */
async function withOtherFields(session: DuckDbSession, file: string, options: readonly string[], columns: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const described = (await session.queryJson(`DESCRIBE SELECT * FROM read_json(${quoteLiteral(file)}, ${[...options, 'sample_size = -1'].join(', ')})`)) as Array<{
    column_name: string;
    column_type: string;
  }>;
  const taken = new Set<string>([...RECORD_COLUMNS, HEADERS_COLUMN, ...columns.keys()].map((name) => name.toLowerCase()));
  const all = new Map(columns);
  for (const { column_name: name, column_type: type } of described) if (!taken.has(name.toLowerCase())) all.set(name, type === 'NULL' ? 'JSON' : type);
  return all;
}

function columnsStruct(columns: ReadonlyMap<string, string>): string {
  const all = new Map<string, string>(Object.entries(RECORD_COLUMN_TYPES));
  for (const [name, type] of columns) if (!all.has(name)) all.set(name, type);
  return `{${[...all].map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
}

