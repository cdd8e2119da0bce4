/**
 * Writes Parquet data files of an unpartitioned spec with DuckDB's COPY: Iceberg field ids in
 * the Parquet schema (FIELD_IDS), per-file metrics from RETURN_STATS, files rolled at the table's
 * target size, staged and placed all-or-nothing (staged-files.ts). Partitioned specs go through
 * partitioned-data-file-writer.ts.
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { withoutUnknownColumns } from '../iceberg/duckdb-types.js';
import { markTimestamptzNanos } from '../iceberg/parquet-utc-nanos.js';
import type { Schema } from '../iceberg/types.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { metricsConfigFromProperties } from './data-file-metrics.js';
import { dataFileFromStats } from './data-file-from-stats.js';
import { countNans } from './nan-counts.js';
import { copyToParquet, parquetCopyOptions } from './parquet-copy.js';
import { placeStagedFiles, stagedFileLocation, withStagingFolder } from './staged-files.js';
import { writeProperties } from './write-properties.js';

export interface DataFileWriteRequest {
  readonly session: DuckDbSession;
  /** A SELECT whose columns are exactly the table schema's top-level fields, in order, cast to their types. */
  readonly query: string;
  readonly schema: Schema;
  readonly specId: number;
  /** URI of the folder the data files land in. */
  readonly dataLocation: string;
  readonly io: FileIO;
  readonly properties: Readonly<Record<string, string>>;
  /** Names the writer in errors (a flow or table). */
  readonly writerName: string;
}

export async function writeDataFiles(request: DataFileWriteRequest): Promise<DataFile[]> {
  const writeId = randomUUID();
  const settings = writeProperties(request.properties);
  const metrics = metricsConfigFromProperties(request.properties);
  return withStagingFolder(request.io, request.dataLocation, writeId, async (folder) => {
    const options = parquetCopyOptions(request.schema, settings, [
      `FILE_SIZE_BYTES ${settings.targetFileSizeBytes}`,
      `FILENAME_PATTERN ${quoteLiteral(`${writeId}-{i}`)}`,
    ]);
    const rows = await copyToParquet(request.session, request.writerName, withoutUnknownColumns(request.schema, request.query), folder, options);
    const written = rows.filter((row) => row.count !== '0');
    const nans = await countNans(request.session, request.writerName, request.schema, written);
    const staged = written.map((row) => ({ stagedPath: row.filename, relativePath: basename(row.filename) }));
    const files = written.map((row, i) =>
      dataFileFromStats({
        schema: request.schema,
        metrics,
        specId: request.specId,
        partition: new Map(),
        row,
        location: stagedFileLocation(request.dataLocation, staged[i]!.relativePath),
        nanStats: nans.get(row.filename),
      }),
    );
    await markTimestamptzNanos(request.schema, staged.map((file) => file.stagedPath));
    await placeStagedFiles(request.io, request.dataLocation, staged);
    return files;
  });
}
