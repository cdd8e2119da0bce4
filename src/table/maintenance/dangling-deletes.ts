/**
 * The delete files a rewrite leaves without anything to delete, removed in its snapshot. Only
 * delete files that applied to a rewritten data file are looked at; one of them still applies
 * when a data file that stays (`remaining`) can be reached by it (spec §6.3):
 * - a deletion vector, or a position delete file naming one data file: that file stays;
 * - a position delete file for several data files: one of the paths it holds stays (read from
 *   the file only when a staying data file of its partition is old enough for it);
 * - an equality delete file: a staying data file of its partition (any partition when its spec
 *   is unpartitioned) has a smaller data sequence number. The rewrite's own output carries the
 *   sequence number of the snapshot it read, never smaller than a delete file live in it.
 */
import { DataFileContent, isDeletionVector, type DataFile } from '../../iceberg/data-file.js';
import type { FileIO } from '../../iceberg/file-io.js';
import { specById } from '../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { quoteLiteral, type DuckDbSession } from '../../duckdb/session.js';
import { isUnpartitionedSpec, partitionKey, type LiveFile, type ScanTask } from '../delete-planning.js';
import { TableFileStaging } from '../file-staging.js';
import { POSITION_DELETE_PROJECTION } from '../read-rows.js';

export interface DanglingDeletesRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly metadata: TableMetadata;
  readonly rewritten: readonly ScanTask[];
  readonly remaining: readonly ScanTask[];
}

export async function danglingDeletes(request: DanglingDeletesRequest): Promise<DataFile[]> {
  const candidates = new Map<string, LiveFile>();
  for (const task of request.rewritten) for (const live of task.deletes) candidates.set(deleteKey(live.file), live);
  const stayingPaths = new Set(request.remaining.map((task) => task.data.file.filePath));
  const stayingByPartition = new Map<string, LiveFile[]>();
  for (const { data } of request.remaining) {
    const key = partitionKey(data.file.specId, data.file.partition);
    stayingByPartition.set(key, [...(stayingByPartition.get(key) ?? []), data]);
  }
  const dangling: DataFile[] = [];
  const toRead: DataFile[] = [];
  for (const live of candidates.values()) {
    const { file } = live;
    const sameScope = (): LiveFile[] =>
      file.content === DataFileContent.EqualityDeletes && isUnpartitionedSpec(specById(request.metadata, file.specId) ?? { specId: file.specId, fields: [] })
        ? request.remaining.map((task) => task.data)
        : (stayingByPartition.get(partitionKey(file.specId, file.partition)) ?? []);
    if (file.content === DataFileContent.EqualityDeletes) {
      if (!sameScope().some((data) => data.dataSequenceNumber < live.dataSequenceNumber)) dangling.push(file);
    } else if (isDeletionVector(file) || file.referencedDataFile !== undefined) {
      if (!stayingPaths.has(file.referencedDataFile ?? '')) dangling.push(file);
    } else if (!sameScope().some((data) => data.dataSequenceNumber <= live.dataSequenceNumber)) {
      dangling.push(file);
    } else {
      toRead.push(file);
    }
  }
  for (const [file, paths] of await pathsIn(request, toRead)) if (!paths.some((path) => stayingPaths.has(path))) dangling.push(file);
  return dangling;
}

/** The data file paths each position delete file holds. */
async function pathsIn(request: DanglingDeletesRequest, files: readonly DataFile[]): Promise<Map<DataFile, string[]>> {
  const result = new Map<DataFile, string[]>();
  if (files.length === 0) return result;
  const staging = new TableFileStaging(request.io);
  try {
    const locals = await staging.localPaths(files.map((file) => file.filePath));
    for (const [i, file] of files.entries()) {
      const rows = await request.session.queryJson(
        `SELECT DISTINCT file_path FROM read_parquet(${quoteLiteral(locals[i]!)}, hive_partitioning = false, ${POSITION_DELETE_PROJECTION})`,
      );
      result.set(file, rows.map((row) => String(row['file_path'])));
    }
    return result;
  } finally {
    await staging.close();
  }
}

/** Several deletion vectors share one Puffin file: each is its blob within the file. */
function deleteKey(file: DataFile): string {
  return isDeletionVector(file) ? `${file.filePath}#${String(file.contentOffset)}` : file.filePath;
}
