/**
 * Stages a micro-batch of decoded JSON records in DuckDB: one newline-delimited JSON file read by
 * DuckDB's own JSON reader into a table, never row-by-row inserts. @duckdb/node-api has no Arrow
 * ingestion and the arrow extension is not built in; its columnar way in, the appender's
 * appendDataChunk, needs every column's type before the batch is read (nested JSON included) and
 * was not measured. Measured on 100k ~200-byte records (2 shared cores):
 * building the lines ≈0.5-0.8 s, DuckDB's read ≈0.5-0.7 s. Each row carries the value's fields
 * plus the record's coordinates in the reserved columns below. With known column types (the
 * target table's) the reader casts to them; otherwise it detects types over the whole batch.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceRecord } from '../../../connectors/streaming-source.js';
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../duckdb/session.js';

export type JsonRecord = SourceRecord<Record<string, unknown>>;

/** Columns every staged row has besides the value's fields. */
export const RECORD_COLUMNS = ['_topic', '_partition', '_offset', '_timestamp', '_key'] as const;
const RECORD_COLUMN_TYPES: Readonly<Record<(typeof RECORD_COLUMNS)[number], string>> = {
  _topic: 'VARCHAR',
  _partition: 'INTEGER',
  _offset: 'BIGINT',
  _timestamp: 'BIGINT',
  _key: 'VARCHAR',
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
}

/** The reserved column a value field collides with, if any. */
export function reservedFieldOf(value: Record<string, unknown>): string | undefined {
  for (const column of RECORD_COLUMNS) if (Object.hasOwn(value, column)) return column;
  return undefined;
}

export function stagedLine(record: JsonRecord): string {
  const key = record.key === null ? 'null' : JSON.stringify(record.key.toString('utf8'));
  const head = `{"_topic":${JSON.stringify(record.topic)},"_partition":${record.partition},"_offset":${record.offset},"_timestamp":${record.timestampMs},"_key":${key}`;
  const value = JSON.stringify(record.value);
  return value.length <= 2 ? `${head}}` : `${head},${value.slice(1)}`;
}

let fileCounter = 0;

export async function stageRecords(request: StagingRequest): Promise<void> {
  const file = join(request.tempDir, `batch-${process.pid}-${++fileCounter}.ndjson`);
  const lines = new Array<string>(request.records.length);
  for (let i = 0; i < request.records.length; i++) lines[i] = stagedLine(request.records[i] as JsonRecord);
  await writeFile(file, lines.join('\n'));
  try {
    const options = [`format = 'newline_delimited'`, `maximum_object_size = 67108864`];
    if (request.columns === undefined) options.push('sample_size = -1');
    else options.push(`columns = ${columnsStruct(request.columns)}`);
    await request.session.run(
      `CREATE OR REPLACE TABLE ${quoteIdentifier(request.table)} AS SELECT * REPLACE (epoch_ms(_timestamp) AS _timestamp) FROM read_json(${quoteLiteral(file)}, ${options.join(', ')})`,
    );
  } finally {
    await rm(file, { force: true });
  }
}

function columnsStruct(columns: ReadonlyMap<string, string>): string {
  const all = new Map<string, string>(Object.entries(RECORD_COLUMN_TYPES));
  for (const [name, type] of columns) if (!all.has(name)) all.set(name, type);
  return `{${[...all].map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
}

