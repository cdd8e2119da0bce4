/**
 * One DuckDB `COPY … TO <folder> (FORMAT parquet, …, FIELD_IDS …, RETURN_STATS true)`: the
 * options every data file writer shares, and the statement run with its failure as a FlowError.
 */
import { FlowError } from '../errors.js';
import { fieldIdsClause } from '../iceberg/duckdb-types.js';
import type { Schema } from '../iceberg/types.js';
import { duckDbMessage, quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import type { WriteSettings } from './write-properties.js';

/** One row of RETURN_STATS: one written file. Numbers arrive as text (queryJson). */
export interface CopyStatsRow {
  readonly filename: string;
  readonly count: string;
  readonly file_size_bytes: string;
  readonly column_statistics: unknown;
  /** With PARTITION_BY: the partition column values of the file (null for SQL NULL). */
  readonly partition_keys?: unknown;
}

/** The options of a Parquet COPY with Iceberg field ids and per-file statistics. */
export function parquetCopyOptions(schema: Schema, settings: WriteSettings, extra: readonly string[]): string[] {
  const options = ['FORMAT parquet', `COMPRESSION ${settings.compressionCodec}`, ...extra, 'OVERWRITE_OR_IGNORE true', fieldIdsClause(schema), 'RETURN_STATS true'];
  if (settings.rowGroupSizeBytes !== undefined) options.push(`ROW_GROUP_SIZE_BYTES ${settings.rowGroupSizeBytes}`);
  return options;
}

export async function copyToParquet(
  session: DuckDbSession,
  writerName: string,
  query: string,
  folder: string,
  options: readonly string[],
): Promise<CopyStatsRow[]> {
  const sql = `COPY (${query}) TO ${quoteLiteral(folder)} (${options.join(', ')})`;
  try {
    return (await session.queryJson(sql)) as unknown as CopyStatsRow[];
  } catch (error) {
    throw copyFailure(writerName, 'Writing data files', error);
  }
}

/** A failed DuckDB statement of a data file writer, naming the writer (a flow or table). */
export function copyFailure(writerName: string, what: string, error: unknown): FlowError {
  return new FlowError(`${what} for ${writerName} failed: ${duckDbMessage(error)}`, { cause: error, context: { writer: writerName } });
}
