/**
 * Turns matched row positions (a DuckDB table of file_path, pos over live rows) into the files of
 * a row delta, by the table's write mode:
 * - merge-on-read: a data file whose every live row matched is removed whole; the others get
 *   position delete files, one per partition of the data files they delete from (v2), or one
 *   deletion vector each, merged with what was deleted from them before (v3);
 * - copy-on-write: every affected data file is removed, and its unmatched live rows are written
 *   to a new data file in the same spec and partition.
 * A removed or rewritten data file takes its deletion vector (and position delete files that
 * name it alone) with it.
 */
import { InvalidInputError } from '../errors.js';
import { DataFileContent, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { currentSchema } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { primitive, type Schema } from '../iceberg/types.js';
import { quoteIdentifier } from '../iceberg/duckdb-types.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { writeDataFiles } from '../write/data-file-writer.js';
import { writePositionDeletes, type PositionDeleteGroup } from '../write/position-delete-writer.js';
import { partitionKey, type ScanTask } from './delete-planning.js';
import { deletionVectorChanges, replacedDeletes } from './deletion-vector-changes.js';
import { dataLocation } from './locations.js';
import { FILE_COLUMN, LAST_UPDATED_COLUMN, LAST_UPDATED_FIELD_ID, openLiveRows, POS_COLUMN, ROW_ID_COLUMN, ROW_ID_FIELD_ID } from './read-rows.js';

export type RowLevelMode = 'merge-on-read' | 'copy-on-write';

export interface MatchedChanges {
  readonly addedDataFiles: DataFile[];
  readonly addedDeleteFiles: DataFile[];
  readonly removedDataFiles: DataFile[];
  /** Delete files replaced by new deletion vectors, or of data files this change removes. */
  readonly removedDeleteFiles: DataFile[];
  /** Data files rows were deleted from, removed or rewritten (conflict scope). */
  readonly touchedDataFiles: DataFile[];
  readonly deletedRows: bigint;
}

export interface MatchedChangesRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly metadata: TableMetadata;
  /** Candidate tasks of the scan the matches were read from. */
  readonly tasks: readonly ScanTask[];
  /** Temp table with columns file_path, pos: the matched live rows. */
  readonly matchedTable: string;
  readonly mode: RowLevelMode;
  readonly writerName: string;
  /**
   * A lower bound of each data file's live rows from the scan the matches came from
   * (LiveRows.liveRowsAtLeast): a file with fewer matches is not matched whole, without a count.
   */
  readonly liveRowsAtLeast?: () => Promise<ReadonlyMap<string, bigint>>;
}

/** The table's write mode for an operation (`write.delete.mode`, `write.update.mode`, …). */
export function rowLevelMode(metadata: TableMetadata, property: string): RowLevelMode {
  const value = (metadata.properties[property] ?? 'merge-on-read').toLowerCase();
  if (value !== 'merge-on-read' && value !== 'copy-on-write') {
    throw new InvalidInputError(`Table property ${property}: "${value}" is not merge-on-read or copy-on-write`, {
      context: { property },
    });
  }
  return value;
}

export async function changesForMatches(request: MatchedChangesRequest): Promise<MatchedChanges> {
  const { session } = request;
  const counts = (await session.queryJson(
    `SELECT file_path, count(*)::VARCHAR AS n FROM ${request.matchedTable} GROUP BY file_path`,
  )) as { file_path: string; n: string }[];
  const matchedByFile = new Map(counts.map((row) => [row.file_path, BigInt(row.n)]));
  const touched = request.tasks.filter((task) => matchedByFile.has(task.data.file.filePath));
  const wholePaths = await fullyMatched(request, touched, matchedByFile);
  const whole = touched.filter((task) => wholePaths.has(task.data.file.filePath));
  const partial = touched.filter((task) => !wholePaths.has(task.data.file.filePath));
  const deletedRows = [...matchedByFile.values()].reduce((sum, n) => sum + n, 0n);
  const touchedDataFiles = touched.map((task) => task.data.file);
  const removedDataFiles = whole.map((task) => task.data.file);
  const removedWithData = request.metadata.formatVersion >= 3 ? whole.flatMap(replacedDeletes) : [];
  if (partial.length === 0) return { addedDataFiles: [], addedDeleteFiles: [], removedDataFiles, removedDeleteFiles: removedWithData, touchedDataFiles, deletedRows };
  if (request.mode === 'merge-on-read' && request.metadata.formatVersion >= 3) {
    const vectors = await deletionVectorChanges(
      { session, io: request.io, dataLocation: dataLocation(request.metadata), matchedTable: request.matchedTable, writerName: request.writerName },
      partial,
    );
    return {
      addedDataFiles: [],
      addedDeleteFiles: vectors.addedDeleteFiles,
      removedDataFiles,
      removedDeleteFiles: [...removedWithData, ...vectors.removedDeleteFiles],
      touchedDataFiles,
      deletedRows,
    };
  }
  if (request.mode === 'merge-on-read') {
    const addedDeleteFiles = await writePositionDeletes({
      session,
      positions: request.matchedTable,
      groups: groupByPartition(partial),
      dataLocation: dataLocation(request.metadata),
      io: request.io,
      properties: request.metadata.properties,
      writerName: request.writerName,
    });
    return { addedDataFiles: [], addedDeleteFiles, removedDataFiles, removedDeleteFiles: [], touchedDataFiles, deletedRows };
  }
  const addedDataFiles: DataFile[] = [];
  try {
    for (const task of partial) addedDataFiles.push(...(await rewriteWithout(request, task)));
  } catch (error) {
    await Promise.all(addedDataFiles.map((file) => request.io.delete(file.filePath).catch(() => undefined)));
    throw error;
  }
  const rewritten = partial.map((task) => task.data.file);
  const removedDeleteFiles = request.metadata.formatVersion >= 3 ? [...removedWithData, ...partial.flatMap(replacedDeletes)] : [];
  return { addedDataFiles, addedDeleteFiles: [], removedDataFiles: [...removedDataFiles, ...rewritten], removedDeleteFiles, touchedDataFiles, deletedRows };
}

/**
 * The data files whose every live row matched. Without deletes, live rows are the record count;
 * a file with position deletes or a deletion vector is counted only when its matches could cover
 * all its live rows: its record count minus the rows of its delete files (which may hold other
 * files' positions too), then minus the positions the scan staged for it, bound its live rows from
 * below. A file with equality deletes is always counted: one delete row can delete any number of
 * its rows, so their record counts bound nothing.
 */
async function fullyMatched(request: MatchedChangesRequest, tasks: readonly ScanTask[], matchedByFile: ReadonlyMap<string, bigint>): Promise<Set<string>> {
  const whole = new Set<string>();
  const toCount: ScanTask[] = [];
  for (const task of tasks) {
    const { filePath, recordCount } = task.data.file;
    const matched = matchedByFile.get(filePath) ?? 0n;
    if (task.deletes.some((d) => d.file.content === DataFileContent.EqualityDeletes)) {
      toCount.push(task);
      continue;
    }
    const deletedAtMost = task.deletes.reduce((sum, d) => sum + d.file.recordCount, 0n);
    if (deletedAtMost === 0n && matched === recordCount) whole.add(filePath);
    else if (deletedAtMost > 0n && matched >= recordCount - deletedAtMost) toCount.push(task);
  }
  if (toCount.length > 0) {
    const atLeast = (await request.liveRowsAtLeast?.()) ?? new Map<string, bigint>();
    const open = toCount.filter((task) => {
      const least = atLeast.get(task.data.file.filePath);
      return least === undefined || (matchedByFile.get(task.data.file.filePath) ?? 0n) >= least;
    });
    if (open.length > 0) for (const [path, live] of await countLiveRows(request, open)) if (matchedByFile.get(path) === live) whole.add(path);
  }
  return whole;
}

async function countLiveRows(request: MatchedChangesRequest, tasks: readonly ScanTask[]): Promise<Map<string, bigint>> {
  const rows = await openLiveRows({ session: request.session, io: request.io, schema: currentSchema(request.metadata), tasks, positions: true });
  try {
    const counts = (await request.session.queryJson(
      `SELECT ${FILE_COLUMN} AS file_path, count(*)::VARCHAR AS n FROM (${rows.sql}) GROUP BY 1`,
    )) as { file_path: string; n: string }[];
    return new Map(counts.map((row) => [row.file_path, BigInt(row.n)]));
  } finally {
    await rows.release();
  }
}

function groupByPartition(tasks: readonly ScanTask[]): PositionDeleteGroup[] {
  const groups = new Map<string, { specId: number; partition: DataFile['partition']; dataFilePaths: string[] }>();
  for (const { data } of tasks) {
    const key = partitionKey(data.file.specId, data.file.partition);
    const group = groups.get(key) ?? { specId: data.file.specId, partition: data.file.partition, dataFilePaths: [] };
    group.dataFilePaths.push(data.file.filePath);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The file's live rows minus the matched ones, as new data files in its own spec and partition. */
async function rewriteWithout(request: MatchedChangesRequest, task: ScanTask): Promise<DataFile[]> {
  const { lineage, columns, schema } = rewriteProjection(request.metadata, 'r');
  const rows = await openLiveRows({ session: request.session, io: request.io, schema: currentSchema(request.metadata), tasks: [task], positions: true, lineage });
  try {
    const query =
      `SELECT ${columns.join(', ')} FROM (${rows.sql}) r ANTI JOIN ${request.matchedTable} m ` +
      `ON m.file_path = r.${FILE_COLUMN} AND m.pos = r.${POS_COLUMN}`;
    const files = await writeDataFiles({
      session: request.session,
      query,
      schema,
      specId: task.data.file.specId,
      dataLocation: dataLocation(request.metadata),
      io: request.io,
      properties: request.metadata.properties,
      writerName: request.writerName,
    });
    // Every row comes from one data file, so the new files share its partition tuple.
    return files.map((file) => ({ ...file, specId: task.data.file.specId, partition: task.data.file.partition }));
  } finally {
    await rows.release();
  }
}

/** How rows read with openLiveRows (`lineage` as it says) are written again by a rewrite. */
export interface RewriteProjection {
  /** openLiveRows' `lineage` option. */
  readonly lineage: boolean;
  /** The SELECT list over the live rows' alias. */
  readonly columns: readonly string[];
  /** The schema to write: the table's, with the lineage fields on v3. */
  readonly schema: Schema;
}

/**
 * The table's columns of rows being rewritten (copy-on-write, compaction); on v3 the rows keep
 * their ids, written into the new files as the spec's lineage columns.
 */
export function rewriteProjection(metadata: TableMetadata, alias: string): RewriteProjection {
  const tableSchema = currentSchema(metadata);
  const lineage = metadata.formatVersion >= 3 && !tableSchema.fields.some((field) => RESERVED_LINEAGE_NAMES.has(field.name));
  const columns = tableSchema.fields.map((field) => `${alias}.${quoteIdentifier(field.name)}`);
  if (lineage) columns.push(`${alias}.${ROW_ID_COLUMN} AS _row_id`, `${alias}.${LAST_UPDATED_COLUMN} AS _last_updated_sequence_number`);
  return { lineage, columns, schema: lineage ? { ...tableSchema, fields: [...tableSchema.fields, ...LINEAGE_FIELDS] } : tableSchema };
}

const LINEAGE_FIELDS = [
  { id: ROW_ID_FIELD_ID, name: '_row_id', required: false, type: primitive('long') },
  { id: LAST_UPDATED_FIELD_ID, name: '_last_updated_sequence_number', required: false, type: primitive('long') },
];
const RESERVED_LINEAGE_NAMES = new Set(LINEAGE_FIELDS.map((field) => field.name));
