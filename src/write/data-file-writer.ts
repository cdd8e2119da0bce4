/**
 * Writes Parquet data files with DuckDB's COPY: Iceberg field ids in the Parquet schema
 * (FIELD_IDS), per-file metrics from RETURN_STATS, files rolled at the table's target size.
 * Files are written into a private staging folder and only moved (or uploaded) into the data
 * folder once the whole COPY succeeded; a failure while placing them removes the ones already
 * placed, so a failed write leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FlowError } from '../errors.js';
import { DataFileContent, type DataFile } from '../iceberg/data-file.js';
import { fieldIdsClause } from '../iceberg/duckdb-types.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { Schema } from '../iceberg/types.js';
import { duckDbMessage, quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { dataFileMetrics, metricsConfigFromProperties } from './data-file-metrics.js';
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

interface CopyStatsRow {
  readonly filename: string;
  readonly count: string;
  readonly file_size_bytes: string;
  readonly column_statistics: unknown;
}

export async function writeDataFiles(request: DataFileWriteRequest): Promise<DataFile[]> {
  const writeId = randomUUID();
  const localDataDir = request.io.localPathFor?.(request.dataLocation);
  const stagingDir = join(localDataDir ?? tmpdir(), `.thund-staging-${writeId}`);
  const files: DataFile[] = [];
  try {
    const stats = await copyToParquet(request, stagingDir, writeId);
    for (const row of stats) {
      if (row.count === '0') continue;
      const fileName = basename(row.filename);
      const location = `${request.dataLocation.replace(/\/+$/, '')}/${fileName}`;
      if (localDataDir !== undefined) {
        await mkdir(localDataDir, { recursive: true });
        await rename(row.filename, join(localDataDir, fileName));
      } else {
        await upload(request.io, location, row.filename);
      }
      files.push(toDataFile(request, row, location));
    }
    return files;
  } catch (error) {
    // The files already placed belong to no snapshot yet: nothing can reference them.
    await Promise.all(files.map((file) => request.io.delete(file.filePath).catch(() => undefined)));
    throw error;
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}

/** Streams the staged file where the FileIO can, so memory use does not grow with the file size. */
async function upload(io: FileIO, location: string, stagedPath: string): Promise<void> {
  if (io.writeNewFromFile !== undefined) await io.writeNewFromFile(location, stagedPath);
  else await io.writeNew(location, await readFile(stagedPath));
}

async function copyToParquet(request: DataFileWriteRequest, stagingDir: string, writeId: string): Promise<CopyStatsRow[]> {
  const settings = writeProperties(request.properties);
  await mkdir(stagingDir, { recursive: true });
  const options = [
    'FORMAT parquet',
    `COMPRESSION ${settings.compressionCodec}`,
    `FILE_SIZE_BYTES ${settings.targetFileSizeBytes}`,
    `FILENAME_PATTERN ${quoteLiteral(`${writeId}-{i}`)}`,
    'OVERWRITE_OR_IGNORE true',
    fieldIdsClause(request.schema),
    'RETURN_STATS true',
  ];
  if (settings.rowGroupSizeBytes !== undefined) options.push(`ROW_GROUP_SIZE_BYTES ${settings.rowGroupSizeBytes}`);
  const sql = `COPY (${request.query}) TO ${quoteLiteral(stagingDir)} (${options.join(', ')})`;
  try {
    return (await request.session.queryJson(sql)) as unknown as CopyStatsRow[];
  } catch (error) {
    throw new FlowError(`Writing data files for ${request.writerName} failed: ${duckDbMessage(error)}`, {
      cause: error,
      context: { writer: request.writerName },
    });
  }
}

function toDataFile(request: DataFileWriteRequest, row: CopyStatsRow, location: string): DataFile {
  const metrics = dataFileMetrics(request.schema, metricsConfigFromProperties(request.properties), row.column_statistics);
  return {
    content: DataFileContent.Data,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: request.specId,
    partition: new Map(),
    recordCount: BigInt(row.count),
    fileSizeInBytes: BigInt(row.file_size_bytes),
    ...metrics,
  };
}

