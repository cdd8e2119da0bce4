/**
 * Stages a micro-batch of JSON records in DuckDB: one newline-delimited JSON file read by
 * DuckDB's own JSON reader into a table, never row-by-row inserts. @duckdb/node-api has no Arrow
 * ingestion and the arrow extension is not built in; its columnar way in, the appender's
 * appendDataChunk, needs every column's type before the batch is read (nested JSON included).
 * Each row carries the value's fields plus the record's coordinates in the reserved columns
 * below (the line format is connectors/kafka/staged-line.ts). A record whose value is checked
 * JSON or Avro usually comes with its line written by the Kafka consumer's worker, and runs of
 * them are copied whole; other checked values are written as their fetched bytes behind the
 * coordinates, and the rest (Debezium rows, JSON that needed parsing, Avro values the worker
 * left to the decoder) serialised with JSON.stringify.
 * With known column types the reader casts to them; otherwise it detects types over the whole
 * batch.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { headersField, isPlainAscii, LineWriter, partitionHead, writeStagedLine } from '../../../../connectors/kafka/staged-line.js';
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
  const head = lineHead(record) + (withHeaders ? headersField(record.headers) : '');
  if (record.json !== undefined) {
    const body = record.json.subarray(record.json.indexOf(OPEN_BRACE) + 1).toString('utf8');
    return /^[ \t]*\}/.test(body) ? `${head}${body}` : `${head},${body}`;
  }
  const value = JSON.stringify(record.value);
  return value.length <= 2 ? `${head}}` : `${head},${value.slice(1)}`;
}

/** `{"_kafka_topic":…,"_kafka_key":…` without the closing brace. */
function lineHead(record: JsonRecord): string {
  return `{"_kafka_topic":${JSON.stringify(record.topic)},"_kafka_partition":${record.partition},"_kafka_offset":${record.offset},"_kafka_timestamp":${record.timestampMs},"_kafka_key":${quotedKey(record.key)}`;
}

/** The key as a JSON string; printable ASCII without quotes or backslashes needs no escaping. */
function quotedKey(key: Buffer | null): string {
  if (key === null) return 'null';
  return isPlainAscii(key) ? `"${key.toString('latin1')}"` : JSON.stringify(key.toString('utf8'));
}

const OPEN_BRACE = 0x7b;

export interface StagedLines {
  /** The file's bytes in order: runs of the source's lines as they lie (no copy), and the lines written here. */
  readonly chunks: readonly Uint8Array[];
  /** Bytes of the longest line: DuckDB's reader sizes its buffers by the largest object it allows. */
  readonly longestLine: number;
}

/**
 * All lines of a batch. With headers, the lines the source wrote already
 * (`SourceRecord.stagedLine`) are taken in runs as they lie; other checked JSON values are copied
 * as bytes behind their coordinates (staged-line.ts); the rest are serialised.
 */
export function stagedLines(records: readonly JsonRecord[], withHeaders = false): StagedLines {
  const partitionHeads = new Map<string, Buffer>();
  const chunks: Uint8Array[] = [];
  let out: LineWriter | undefined;
  let written = 0;
  let longestLine = 0;
  // A run of lines that lie back to back in one source buffer.
  let run: Uint8Array | undefined;
  let runStart = 0;
  let runEnd = 0;
  const flushRun = (): void => {
    if (run !== undefined) chunks.push(run.subarray(runStart, runEnd));
    run = undefined;
  };
  const flushWritten = (): void => {
    if (out === undefined || out.size === written) return;
    chunks.push(out.done().subarray(written));
    written = out.size;
  };
  for (const record of records) {
    const line = withHeaders ? record.stagedLine : undefined;
    if (line !== undefined) {
      longestLine = Math.max(longestLine, line.end - line.start - 1);
      if (line.bytes === run && line.start === runEnd) runEnd = line.end;
      else {
        flushWritten();
        flushRun();
        run = line.bytes;
        runStart = line.start;
        runEnd = line.end;
      }
      continue;
    }
    flushRun();
    out ??= new LineWriter(records.reduce((sum, r) => sum + (r.stagedLine === undefined ? (r.byteLength ?? 256) + 160 : 0), 0));
    const lineStart = out.size;
    const json = record.json;
    if (json !== undefined && withHeaders) {
      const headKey = `${record.partition}\u0000${record.topic}`;
      let head = partitionHeads.get(headKey);
      if (head === undefined) partitionHeads.set(headKey, (head = partitionHead(record.topic, record.partition)));
      writeStagedLine(out, head, { offset: record.offset.toString(), timestampMs: record.timestampMs, key: record.key, headers: record.headers, json });
    } else {
      out.text(stagedLine(record, withHeaders));
      out.byte(NEWLINE);
    }
    longestLine = Math.max(longestLine, out.size - lineStart - 1);
  }
  flushWritten();
  flushRun();
  return { chunks, longestLine };
}

const NEWLINE = 0x0a;

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
  await writeChunks(file, lines.chunks);
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

async function writeChunks(file: string, chunks: readonly Uint8Array[]): Promise<void> {
  const handle = await open(file, 'w');
  try {
    await handle.writev(chunks as Uint8Array[]);
  } finally {
    await handle.close();
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

