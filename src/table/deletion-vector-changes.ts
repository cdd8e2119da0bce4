/**
 * Merge-on-read deletes on a v3 table, as deletion vectors: each data file rows are deleted from
 * gets one new vector holding the matched positions and every position already deleted from it
 * (its earlier vector, or the position delete files of a table upgraded from v2), and the delete
 * files merged in are removed in the same snapshot, so a data file never has two vectors.
 */
import { randomUUID } from 'node:crypto';
import { DataFileContent, isDeletionVector, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { mergePositions } from '../iceberg/puffin/deletion-vector.js';
import { readDeletionVector } from '../iceberg/puffin/read-deletion-vector.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { writeDeletionVectors } from '../write/deletion-vector-writer.js';
import type { LiveFile, ScanTask } from './delete-planning.js';
import { TableFileStaging } from './file-staging.js';
import { positionDeletesOf } from './read-rows.js';

export interface DeletionVectorChangeRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly dataLocation: string;
  /** Temp table with columns file_path, pos: the matched live rows. */
  readonly matchedTable: string;
  readonly writerName: string;
}

export interface DeletionVectorChanges {
  readonly addedDeleteFiles: DataFile[];
  readonly removedDeleteFiles: DataFile[];
}

/** New vectors for the tasks rows were deleted from (files that stay), replacing what they merge. */
export async function deletionVectorChanges(request: DeletionVectorChangeRequest, tasks: readonly ScanTask[]): Promise<DeletionVectorChanges> {
  const staging = new TableFileStaging(request.io);
  try {
    const matchedByTask = await matchedPositions(request, tasks);
    const vectors = [];
    for (const [i, task] of tasks.entries()) {
      vectors.push({ dataFile: task.data.file, positions: mergePositions(matchedByTask[i]!, await deletedBefore(request, staging, task)) });
    }
    const addedDeleteFiles = await writeDeletionVectors({ io: request.io, dataLocation: request.dataLocation, vectors, writerName: request.writerName });
    return { addedDeleteFiles, removedDeleteFiles: tasks.flatMap((task) => replacedDeletes(task)) };
  } finally {
    await staging.close();
  }
}

/**
 * The matched positions of each task's data file, ascending, in task order. One pass over the
 * matched table, sorted by the task's index (a small temp table maps paths to indexes) and the
 * position, then cut by per-task counts: a query per data file would scan the whole matched
 * table once per file, and sorting by the path string instead of an index is several times slower.
 */
async function matchedPositions(request: DeletionVectorChangeRequest, tasks: readonly ScanTask[]): Promise<BigInt64Array[]> {
  const { session } = request;
  const index = `__thund_dv_files_${randomUUID().replaceAll('-', '')}`;
  try {
    await session.run(`CREATE TEMP TABLE ${index} (file_path VARCHAR, i INTEGER)`);
    const rows = tasks.map((task, i) => `(${quoteLiteral(task.data.file.filePath)}, ${i})`);
    for (let at = 0; at < rows.length; at += 1000) await session.run(`INSERT INTO ${index} VALUES ${rows.slice(at, at + 1000).join(', ')}`);
    const joined = `${request.matchedTable} m JOIN ${index} f ON f.file_path = m.file_path`;
    const counts = new Map(
      (await session.queryJson(`SELECT f.i AS i, count(*)::VARCHAR AS n FROM ${joined} GROUP BY f.i`)).map((row) => [Number(row['i']), Number(row['n'])]),
    );
    const all = await session.queryBigInts(`SELECT CAST(m.pos AS BIGINT) FROM ${joined} ORDER BY f.i, m.pos`);
    const out: BigInt64Array[] = [];
    let at = 0;
    for (let i = 0; i < tasks.length; i++) {
      const n = counts.get(i) ?? 0;
      out.push(all.subarray(at, at + n));
      at += n;
    }
    return out;
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${index}`).catch(() => undefined);
  }
}

/**
 * The delete files that go with a data file when it is removed or its deletes move into a new
 * vector: its vector, and position delete files that name it alone. Position delete files that
 * cover other data files stay; a vector shadows them for this one.
 */
export function replacedDeletes(task: ScanTask): DataFile[] {
  return task.deletes
    .map((live) => live.file)
    .filter((file) => isDeletionVector(file) || (file.content === DataFileContent.PositionDeletes && file.referencedDataFile === task.data.file.filePath));
}

/** Positions already deleted from the task's data file: its vector when it has one, else its position delete files. */
async function deletedBefore(request: DeletionVectorChangeRequest, staging: TableFileStaging, task: ScanTask): Promise<BigInt64Array> {
  const vector = task.deletes.find((live) => isDeletionVector(live.file));
  if (vector !== undefined) return readDeletionVector(request.io, vector.file);
  const positionFiles = task.deletes.filter((live: LiveFile) => live.file.content === DataFileContent.PositionDeletes);
  if (positionFiles.length === 0) return new BigInt64Array(0);
  const locals = await staging.localPaths(positionFiles.map((live) => live.file.filePath));
  return request.session.queryBigInts(`SELECT DISTINCT pos FROM (${positionDeletesOf(locals, task.data.file.filePath)}) ORDER BY 1`);
}
