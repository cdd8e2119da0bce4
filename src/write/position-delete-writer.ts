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
import { dataFileMetrics } from './data-file-metrics.js';
import { newStagingFolderPath } from './staged-files.js';
import { writeProperties } from './write-properties.js';

export const POSITION_DELETE_SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 2147483546, name: 'file_path', required: true, type: primitive('string') },
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
  const groupsTable = `__thund_delete_groups_${writeId.replaceAll('-', '')}`;
  try {
    await mkdir(stagingDir, { recursive: true });
    await request.session.run(`CREATE TEMP TABLE ${groupsTable} (file_path VARCHAR, grp INTEGER, path_rank INTEGER)`);
    const ranks = pathRanks(request.groups.flatMap((group) => group.dataFilePaths));
    const rows = request.groups.flatMap((group, i) => group.dataFilePaths.map((path) => `(${quoteLiteral(path)}, ${i}, ${ranks.get(path)})`));
    for (let i = 0; i < rows.length; i += 1000) {
      await request.session.run(`INSERT INTO ${groupsTable} VALUES ${rows.slice(i, i + 1000).join(', ')}`);
    }
    const staged: { group: PositionDeleteGroup; path: string; stats: CopyStatsRow }[] = [];
    for (const [i, group] of request.groups.entries()) {
      const path = join(stagingDir, `${writeId}-deletes-${i}.parquet`);
      const stats = await copyGroup(request, groupsTable, i, path);
      if (stats.count !== '0') staged.push({ group, path, stats });
    }
    for (const { group, path, stats } of staged) {
      const fileName = path.slice(stagingDir.length + 1);
      const location = `${request.dataLocation.replace(/\/+$/, '')}/${fileName}`;
      if (localDataDir !== undefined) await rename(path, join(localDataDir, fileName));
      else await upload(request.io, location, path);
      placed.push(toDeleteFile(group, stats, location));
    }
    return placed;
  } catch (error) {
    await Promise.all(placed.map((file) => request.io.delete(file.filePath).catch(() => undefined)));
    throw error;
  } finally {
    await request.session.run(`DROP TABLE IF EXISTS ${groupsTable}`).catch(() => undefined);
    await rm(stagingDir, { recursive: true, force: true });
  }
}

/**
 * Each path's place in the order the spec sorts delete rows by (file_path as UTF-8 bytes), so the
 * rows sort by an integer rather than by comparing long paths that share their prefix.
 */
function pathRanks(paths: readonly string[]): Map<string, number> {
  const sorted = [...new Set(paths)].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  return new Map(sorted.map((path, rank) => [path, rank]));
}

async function copyGroup(request: PositionDeleteWriteRequest, groupsTable: string, index: number, path: string): Promise<CopyStatsRow> {
  const settings = writeProperties(request.properties);
  const query =
    `SELECT p.file_path, CAST(p.pos AS BIGINT) AS pos FROM ${request.positions} p ` +
    `JOIN ${groupsTable} g ON g.file_path = p.file_path WHERE g.grp = ${index} ORDER BY g.path_rank, p.pos`;
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

function toDeleteFile(group: PositionDeleteGroup, stats: CopyStatsRow, location: string): DataFile {
  const metrics = dataFileMetrics(POSITION_DELETE_SCHEMA, { defaultMode: { kind: 'full' }, columnModes: new Map() }, stats.column_statistics);
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
