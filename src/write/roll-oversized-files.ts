/**
 * Rolling for partitioned writes. DuckDB refuses FILE_SIZE_BYTES (and every other file rotation)
 * together with PARTITION_BY, so a partitioned COPY writes one file per partition (more when the
 * open-file cap closes one early). A staged file above the target size is copied once more,
 * by itself, with FILE_SIZE_BYTES, and the oversized original is dropped: only partitions larger
 * than the target pay a second write.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Schema } from '../iceberg/types.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { copyToParquet, parquetCopyOptions, type CopyStatsRow } from './parquet-copy.js';
import type { WriteSettings } from './write-properties.js';

export interface RollRequest {
  readonly session: DuckDbSession;
  readonly writerName: string;
  readonly schema: Schema;
  readonly settings: WriteSettings;
  /** The staging folder; rolled files go into subfolders of it. */
  readonly folder: string;
  readonly writeId: string;
}

/** A file as written, or one of the files an oversized one was rolled into, with its origin's stats row. */
export interface RolledFile<T> {
  readonly row: CopyStatsRow;
  readonly origin: T;
}

/**
 * Every staged file at or below the target size as it is; each larger one replaced by the
 * files of its rolled copy (the original is deleted). `origin` carries what the caller knows
 * about the source file (its partition tuple) over to its pieces.
 */
export async function rollOversizedFiles<T extends { readonly row: CopyStatsRow }>(
  request: RollRequest,
  files: readonly T[],
): Promise<RolledFile<T>[]> {
  const target = request.settings.targetFileSizeBytes;
  const out: RolledFile<T>[] = [];
  let rolled = 0;
  for (const file of files) {
    if (BigInt(file.row.file_size_bytes) <= target) {
      out.push({ row: file.row, origin: file });
      continue;
    }
    const options = parquetCopyOptions(request.schema, request.settings, [
      `FILE_SIZE_BYTES ${target}`,
      `FILENAME_PATTERN ${quoteLiteral(`${request.writeId}-r${rolled}-{i}`)}`,
    ]);
    // hive_partitioning off: the staged path's `key=value` folders are not columns of the file.
    const query = `SELECT * FROM read_parquet(${quoteLiteral(file.row.filename)}, hive_partitioning = false)`;
    const pieces = await copyToParquet(request.session, request.writerName, query, join(request.folder, `rolled-${rolled}`), options);
    rolled += 1;
    await rm(file.row.filename, { force: true });
    for (const row of pieces) if (row.count !== '0') out.push({ row, origin: file });
  }
  return out;
}
