/**
 * Writes v2 position delete files (spec §6.1): one Parquet file per partition of the data files
 * it deletes from, rows (file_path, pos) sorted by file_path then pos, with the reserved field
 * ids, full metrics for both columns (readers narrow a delete file to its data file by the
 * file_path bounds), and the partition tuple and spec of its data files. Files are staged
 * locally and placed only once all are written; a failure removes what it placed.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FlowError } from '../errors.js';
import { DataFileContent, type DataFile, type PartitionValues } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { primitive, type Schema } from '../iceberg/types.js';
import { duckDbMessage, quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { encodeSingleValue } from '../iceberg/bounds.js';
import { dataFileMetrics } from './data-file-metrics.js';
import { newStagingFolderPath } from './staged-files.js';
import { writeProperties } from './write-properties.js';

const FILE_PATH_FIELD_ID = 2147483546;

export const POSITION_DELETE_SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: FILE_PATH_FIELD_ID, name: 'file_path', required: true, type: primitive('string') },
    { id: 2147483545, name: 'pos', required: true, type: primitive('long') },
  ],
};

/** Data files of one partition whose positions go into one delete file. */
export interface PositionDeleteGroup {
  readonly specId: number;
  readonly partition: PartitionValues;
  readonly dataFilePaths: readonly string[];
}

export interface PositionDeleteWriteRequest {
  readonly session: DuckDbSession;
  /** A relation (table name or parenthesised SELECT) with columns file_path VARCHAR, pos BIGINT. */
  readonly positions: string;
  readonly groups: readonly PositionDeleteGroup[];
  readonly dataLocation: string;
  readonly io: FileIO;
  readonly properties: Readonly<Record<string, string>>;
  readonly writerName: string;
}

interface CopyStatsRow {
  readonly count: string;
  readonly file_size_bytes: string;
  readonly column_statistics: unknown;
}

export async function writePositionDeletes(request: PositionDeleteWriteRequest): Promise<DataFile[]> {
  const writeId = randomUUID();
  const localDataDir = request.io.localPathFor?.(request.dataLocation);
  const stagingDir = await newStagingFolderPath(request.io, request.dataLocation, writeId);
  const placed: DataFile[] = [];
  try {
    await mkdir(stagingDir, { recursive: true });
    const staged: { group: PositionDeleteGroup; paths: string[]; path: string; stats: CopyStatsRow }[] = [];
    for (const [i, group] of request.groups.entries()) {
      const path = join(stagingDir, `${writeId}-deletes-${i}.parquet`);
      const paths = inSpecOrder(group.dataFilePaths);
      const stats = await copyGroup(request, paths, path);
      if (stats.count !== '0') staged.push({ group, paths, path, stats });
    }
    for (const { group, paths, path, stats } of staged) {
      const fileName = path.slice(stagingDir.length + 1);
      const location = `${request.dataLocation.replace(/\/+$/, '')}/${fileName}`;
      if (localDataDir !== undefined) await rename(path, join(localDataDir, fileName));
      else await upload(request.io, location, path);
      placed.push(toDeleteFile(group, paths, stats, location));
    }
    return placed;
  } catch (error) {
    await Promise.all(placed.map((file) => request.io.delete(file.filePath).catch(() => undefined)));
    throw error;
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}

/** The paths, each once, in the order the spec sorts delete rows by: file_path as UTF-8 bytes. */
function inSpecOrder(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/**
 * One group's rows, sorted by file_path then pos. The path is cast to an ENUM of the group's paths
 * declared in spec order, so the sort compares small integers and carries no long strings (about
 * half the CPU of sorting with the text); the file holds the same UTF-8 strings. DuckDB reports
 * no min/max for an ENUM column: the bounds are the group's first and last paths, which hold every
 * path written (the callers' groups name only data files with positions, so they are exact then).
 */
async function copyGroup(request: PositionDeleteWriteRequest, paths: readonly string[], path: string): Promise<CopyStatsRow> {
  const settings = writeProperties(request.properties);
  const literals = paths.map(quoteLiteral).join(', ');
  const query =
    `SELECT CAST(p.file_path AS ENUM(${literals})) AS file_path, CAST(p.pos AS BIGINT) AS pos FROM ${request.positions} p ` +
    `WHERE p.file_path IN (${literals}) ORDER BY 1, 2`;
  const options = [
    'FORMAT parquet',
    `COMPRESSION ${settings.compressionCodec}`,
    'FIELD_IDS {file_path: 2147483546, pos: 2147483545}',
    'RETURN_STATS true',
  ];
  try {
    const rows = (await request.session.queryJson(`COPY (${query}) TO ${quoteLiteral(path)} (${options.join(', ')})`)) as unknown as CopyStatsRow[];
    return rows[0] ?? { count: '0', file_size_bytes: '0', column_statistics: null };
  } catch (error) {
    throw new FlowError(`Writing position delete files for ${request.writerName} failed: ${duckDbMessage(error)}`, {
      cause: error,
      context: { writer: request.writerName },
    });
  }
}

async function upload(io: FileIO, location: string, stagedPath: string): Promise<void> {
  if (io.writeNewFromFile !== undefined) await io.writeNewFromFile(location, stagedPath);
  else await io.writeNew(location, await readFile(stagedPath));
}

/** `paths`: the group's paths in spec order, whose first and last bound the file_path column. */
function toDeleteFile(group: PositionDeleteGroup, paths: readonly string[], stats: CopyStatsRow, location: string): DataFile {
  const metrics = dataFileMetrics(POSITION_DELETE_SCHEMA, { defaultMode: { kind: 'full' }, columnModes: new Map() }, stats.column_statistics);
  metrics.lowerBounds.set(FILE_PATH_FIELD_ID, encodeSingleValue(primitive('string'), paths[0]));
  metrics.upperBounds.set(FILE_PATH_FIELD_ID, encodeSingleValue(primitive('string'), paths[paths.length - 1]));
  const only = group.dataFilePaths.length === 1 ? group.dataFilePaths[0] : undefined;
  return {
    content: DataFileContent.PositionDeletes,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: group.specId,
    partition: group.partition,
    recordCount: BigInt(stats.count),
    fileSizeInBytes: BigInt(stats.file_size_bytes),
    ...metrics,
    ...(only === undefined ? {} : { referencedDataFile: only }),
  };
}
