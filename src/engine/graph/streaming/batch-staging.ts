/**
 * Stages a micro-batch of JSON records in DuckDB: newline-delimited JSON files read by DuckDB's
 * own JSON reader into a table, never row-by-row inserts. @duckdb/node-api has no Arrow
 * ingestion and the arrow extension is not built in; its columnar way in, the appender's
 * appendDataChunk, needs every column's type before the batch is read (nested JSON included).
 * Each row carries the value's fields plus the record's coordinates in the reserved columns
 * below (the line format is connectors/kafka/staged-line.ts). Each topic's lines go to a file of
 * their own, which names the topic: the lines do not. A record whose value is checked JSON or
 * Avro usually comes with its line written by the Kafka consumer's worker, and runs of them are
 * copied whole; other checked values are written as their fetched bytes behind the coordinates,
 * and the rest (Debezium rows, JSON that needed parsing, Avro values the worker left to the
 * decoder) serialised with JSON.stringify.
 * With known column types the reader casts to them; otherwise it detects types over the whole
 * batch.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LineWriter, partitionHead, writeStagedLine, writeValueLine } from '../../../../connectors/kafka/staged-line.js';
import { RECORD_COORDINATE_FIELDS, RECORD_HEADERS_FIELD, type SourceRecord } from '../../../../connectors/streaming-source.js';
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';

export type JsonRecord = SourceRecord<Record<string, unknown>>;

/** Columns every staged row has besides the value's fields. */
export const RECORD_COLUMNS = RECORD_COORDINATE_FIELDS;
/** The coordinates a line holds (all but the topic), as the reader takes them. */
const LINE_COLUMN_TYPES: Readonly<Record<Exclude<(typeof RECORD_COLUMNS)[number], '_kafka_topic'>, string>> = {
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
}

/** The column the record headers land in, a list of {key, value} in record order, and its type (Spark's Kafka source gives the same shape). */
export const HEADERS_COLUMN = RECORD_HEADERS_FIELD;
const HEADERS_TYPE = 'STRUCT(key VARCHAR, value VARCHAR)[]';

/** The reserved column a value field collides with, if any. */
export function reservedFieldOf(value: Record<string, unknown>): string | undefined {
  for (const column of RECORD_COLUMNS) if (Object.hasOwn(value, column)) return column;
  return undefined;
}

/** The record's staged line without its newline, as stagedLines writes it. */
export function stagedLine(record: JsonRecord): string {
  const out = new LineWriter((record.byteLength ?? 256) + 160);
  writeLine(out, partitionHead(record.partition), record);
  return out.done().toString('utf8', 0, out.size - 1);
}

/**
 * Appends the record's line and newline (staged-line.ts, one writer for the worker's lines and
 * these): a checked JSON value as its fetched bytes, any other value serialised.
 */
function writeLine(out: LineWriter, head: Uint8Array, record: JsonRecord): void {
  const line = { offset: record.offset.toString(), timestampMs: record.timestampMs, key: record.key, headers: record.headers };
  if (record.json !== undefined) writeStagedLine(out, head, { ...line, json: record.json });
  else
    writeValueLine(out, head, line, (value) => {
      value.text(JSON.stringify(record.value));
      return true;
    });
}

export interface StagedLines {
  /** The file's bytes in order: runs of the source's lines as they lie (no copy), and the lines written here. */
  readonly chunks: readonly Uint8Array[];
  /** Bytes of the longest line: DuckDB's reader sizes its buffers by the largest object it allows. */
  readonly longestLine: number;
}

/**
 * The lines of records (of one topic). The lines the source wrote already
 * (`SourceRecord.stagedLine`) are taken in runs as they lie; other checked JSON values are copied
 * as bytes behind their coordinates (staged-line.ts); the rest are serialised.
 */
export function stagedLines(records: readonly JsonRecord[]): StagedLines {
  const partitionHeads = new Map<number, Buffer>();
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
    const line = record.stagedLine;
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
    let head = partitionHeads.get(record.partition);
    if (head === undefined) partitionHeads.set(record.partition, (head = partitionHead(record.partition)));
    writeLine(out, head, record);
    longestLine = Math.max(longestLine, out.size - lineStart - 1);
  }
  flushWritten();
  flushRun();
  return { chunks, longestLine };
}

/**
 * The coordinates with their own types whatever the reader detects (a batch whose partitions are
 * all small numbers reads them as BIGINT): a table's column types never depend on its first batch.
 * A record without headers has none in its line: an empty list.
 */
const COORDINATE_CASTS = [
  'CAST(_kafka_partition AS INTEGER) AS _kafka_partition',
  'CAST(_kafka_offset AS BIGINT) AS _kafka_offset',
  'epoch_ms(_kafka_timestamp) AS _kafka_timestamp',
  'CAST(_kafka_key AS VARCHAR) AS _kafka_key',
  `coalesce(CAST(${HEADERS_COLUMN} AS ${HEADERS_TYPE}), []) AS ${HEADERS_COLUMN}`,
].join(', ');

/**
 * The first line of every batch file: it gives the reader the coordinate columns in their order,
 * and the headers column even when no record has headers, so detected and given types alike read
 * them. Its row, the only one without an offset, is left out.
 */
const COLUMNS_LINE = Buffer.from(`{"_kafka_partition":null,"_kafka_offset":null,"_kafka_timestamp":null,"_kafka_key":null,"${HEADERS_COLUMN}":[]}\n`, 'latin1');

let fileCounter = 0;
/** DuckDB's reader allocates buffers of about the largest object size: no larger than the batch needs. */
const MIN_OBJECT_SIZE = 1024 * 1024;

interface TopicFile {
  readonly topic: string;
  readonly path: string;
  readonly lines: StagedLines;
}

/**
 * Writes the batch files, one per topic, and creates `request.table` from DuckDB's reader of them
 * in one statement (the reader's type detection runs once; a view in between would be bound, and
 * detect, again).
 */
export async function stageRecords(request: StagingRequest): Promise<void> {
  const files = [...recordsByTopic(request.records)].map(([topic, records]): TopicFile => ({
    topic,
    path: join(request.tempDir, `batch-${process.pid}-${++fileCounter}.ndjson`),
    lines: stagedLines(records),
  }));
  try {
    for (const file of files) await writeChunks(file.path, [COLUMNS_LINE, ...file.lines.chunks]);
    const longestLine = Math.max(...files.map((file) => file.lines.longestLine));
    const paths = `[${files.map((file) => quoteLiteral(file.path)).join(', ')}]`;
    const options = [`format = 'newline_delimited'`, `maximum_object_size = ${Math.max(MIN_OBJECT_SIZE, longestLine + 1024)}`];
    let columns = request.columns;
    if (columns !== undefined && request.readOtherFields === true) columns = await withOtherFields(request.session, paths, options, columns);
    const read = [...options, columns === undefined ? 'sample_size = -1' : `columns = ${columnsStruct(columns)}`];
    const [only] = files;
    let topic: string;
    let excluded = '';
    if (files.length === 1 && only !== undefined) topic = quoteLiteral(only.topic);
    else {
      // The reader's column naming each row's file takes the topic column's name, which no staged value has (reservedFieldOf).
      read.push(`filename = '_kafka_topic'`);
      topic = `CASE _kafka_topic ${files.map((file) => `WHEN ${quoteLiteral(file.path)} THEN ${quoteLiteral(file.topic)}`).join(' ')} END`;
      excluded = ' EXCLUDE (_kafka_topic)';
    }
    await request.session.run(
      `CREATE OR REPLACE TABLE ${quoteIdentifier(request.table)} AS
       SELECT CAST(${topic} AS VARCHAR) AS _kafka_topic, *${excluded} REPLACE (${COORDINATE_CASTS})
       FROM read_json(${paths}, ${read.join(', ')}) WHERE _kafka_offset IS NOT NULL`,
    );
  } finally {
    await Promise.all(files.map((file) => rm(file.path, { force: true })));
  }
}

/** The records of each topic, in their order. */
function recordsByTopic(records: readonly JsonRecord[]): Map<string, JsonRecord[]> {
  const byTopic = new Map<string, JsonRecord[]>();
  for (const record of records) {
    const same = byTopic.get(record.topic);
    if (same === undefined) byTopic.set(record.topic, [record]);
    else same.push(record);
  }
  return byTopic;
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
async function withOtherFields(session: DuckDbSession, paths: string, options: readonly string[], columns: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const described = (await session.queryJson(`DESCRIBE SELECT * FROM read_json(${paths}, ${[...options, 'sample_size = -1'].join(', ')})`)) as Array<{
    column_name: string;
    column_type: string;
  }>;
  const taken = new Set<string>([...RECORD_COLUMNS, HEADERS_COLUMN, ...columns.keys()].map((name) => name.toLowerCase()));
  const all = new Map(columns);
  for (const { column_name: name, column_type: type } of described) if (!taken.has(name.toLowerCase())) all.set(name, type === 'NULL' ? 'JSON' : type);
  return all;
}

function columnsStruct(columns: ReadonlyMap<string, string>): string {
  const all = new Map<string, string>([...Object.entries(LINE_COLUMN_TYPES), [HEADERS_COLUMN, HEADERS_TYPE]]);
  for (const [name, type] of columns) if (!all.has(name)) all.set(name, type);
  return `{${[...all].map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
}

