/**
 * The live rows of planned scan tasks as DuckDB SQL: data files read by field id
 * (read_parquet's `schema` map, so renamed and added columns read right; by name when a file's
 * names and ids are the schema's) with their row position, minus the rows the delete files
 * planned for each file delete (delete-planning.ts says which apply):
 * - a deletion vector (v3, Puffin): its positions, decoded in JS, are appended to a temp table of
 *   the scan (file index, pos) through DuckDB's appender, and anti-joined on the row position;
 * - Parquet position delete files: read once for all the data files, each position staged in the
 *   same temp table under the task of its file_path that the delete file applies to, and
 *   anti-joined the same way;
 * - Parquet equality delete files: their equality columns, read by field id with the schema's
 *   types (other columns of the file ignored), anti-joined on all of them with
 *   IS NOT DISTINCT FROM (a null deletes rows whose value is null); one join per set of
 *   equality ids, over every applicable file with that set.
 * Hive-style directory names are never read as columns. release() drops the temp table and
 * removes downloaded copies.
 */
import type { DuckDBAppender } from '@duckdb/node-api';
import { IcebergFormatError } from '../errors.js';
import { DataFileContent, isDeletionVector, type DataFile } from '../iceberg/data-file.js';
import { icebergToDuckDbType, quoteIdentifier } from '../iceberg/duckdb-types.js';
import { checkNestedInitialDefaults, fieldDefaultText } from '../iceberg/default-values.js';
import type { FileIO } from '../iceberg/file-io.js';
import { readDeletionVector } from '../iceberg/puffin/read-deletion-vector.js';
import { mappedByName, nameMappingOf, type NameMapping } from '../iceberg/name-mapping.js';
import type { NestedField, Schema } from '../iceberg/types.js';
import type { DuckDbApi } from '../duckdb/node-api.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { holdsKind, isPrimitive } from '../iceberg/types.js';
import type { ScanTask } from './delete-planning.js';
import { TableFileStaging } from './file-staging.js';

/** Columns the relation adds when positions are asked for: the data file's URI and the row's position. */
export const FILE_COLUMN = '__thund_file';
export const POS_COLUMN = '__thund_pos';

const FILE_PATH_FIELD_ID = 2147483546;
const POS_FIELD_ID = 2147483545;

export interface LiveRows {
  /** A SELECT of the schema's columns (and FILE_COLUMN, POS_COLUMN with `positions`). */
  readonly sql: string;
  /**
   * At least how many live rows each task's data file has, by its path, for the files without
   * equality deletes: its record count less every position below it that its staged deletes
   * hold, a position staged twice (by two delete files) counted twice. Counted from what the scan
   * staged, without reading a data file; exact when no position repeats.
   */
  liveRowsAtLeast(): Promise<ReadonlyMap<string, bigint>>;
  /** Drops the scan's temp table (deletion vector positions) and removes the downloaded copies. */
  release(): Promise<void>;
}

export interface LiveRowsRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly schema: Schema;
  readonly tasks: readonly ScanTask[];
  readonly positions?: boolean;
  /**
   * v3 row lineage: add ROW_ID_COLUMN and LAST_UPDATED_COLUMN, each row's values as its file holds
   * them, else the file's first_row_id plus the row's position and the file's data sequence number.
   */
  readonly lineage?: boolean;
  /**
   * How files without field ids (registered by add-files) name their columns: the table's
   * `schema.name-mapping.default`; the schema's own names when absent.
   */
  readonly nameMapping?: NameMapping;
}

/** Columns the relation adds with `lineage`. */
export const ROW_ID_COLUMN = '__thund_row_id';
export const LAST_UPDATED_COLUMN = '__thund_last_updated_sequence_number';
export const ROW_ID_FIELD_ID = 2147483540;
export const LAST_UPDATED_FIELD_ID = 2147483539;

export async function openLiveRows(request: LiveRowsRequest): Promise<LiveRows> {
  const { schema, tasks } = request;
  if (tasks.length === 0) {
    const empty = schema.fields.map((f) => `CAST(NULL AS ${icebergToDuckDbType(f.type)}) AS ${quoteIdentifier(f.name)}`);
    if (request.positions === true) empty.push(`CAST(NULL AS VARCHAR) AS ${FILE_COLUMN}`, `CAST(NULL AS BIGINT) AS ${POS_COLUMN}`);
    if (request.lineage === true) empty.push(`CAST(NULL AS BIGINT) AS ${ROW_ID_COLUMN}`, `CAST(NULL AS BIGINT) AS ${LAST_UPDATED_COLUMN}`);
    return { sql: `SELECT ${empty.join(', ')} WHERE false`, liveRowsAtLeast: async () => new Map(), release: async () => {} };
  }
  const staging = new TableFileStaging(request.io, schema.fields.some((field) => holdsKind(field.type, 'timestamptz_ns')));
  const tempTables: string[] = [];
  const release = async (): Promise<void> => {
    // A session already closed has dropped its temp tables with it.
    for (const table of tempTables.splice(0)) await request.session.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await staging.close();
  };
  try {
    const dataLocal = await staging.localPaths(tasks.map((task) => task.data.file.filePath));
    const deleteUris = [...new Set(tasks.flatMap((task) => task.deletes.filter((d) => !isDeletionVector(d.file)).map((d) => d.file.filePath)))];
    const deleteLocal = await staging.localPaths(deleteUris);
    const localOfDelete = new Map(deleteUris.map((uri, i) => [uri, deleteLocal[i]!]));
    // Lineage columns are read by field id, which only the field-id projection does.
    const byName = request.lineage === true ? new Map<string, ReadonlyMap<number, string>>() : await readableByName(request, dataLocal);
    await checkEqualityColumns(request, tasks, localOfDelete);
    const vectors = await stageDeletionVectors(request, tasks, tempTables);
    await stagePositionDeletes(request, tasks, localOfDelete, vectors, tempTables);
    const parts = tasks.map((task, i) =>
      fileRows(request, task, { local: dataLocal[i]!, byName: byName.get(dataLocal[i]!), localOfDelete, vector: vectors.get(i) }),
    );
    return { sql: parts.join(' UNION ALL '), liveRowsAtLeast: () => liveRowsAtLeast(request.session, tasks, vectors), release };
  } catch (error) {
    await release();
    throw error;
  }
}

interface FileSources {
  /** The data file's local path. */
  readonly local: string;
  /** Read by name (see readableByName) rather than through the field-id map: field id → the file's column name. */
  readonly byName: ReadonlyMap<number, string> | undefined;
  readonly localOfDelete: ReadonlyMap<string, string>;
  /** Where its deletion vector's positions are staged, when one applies. */
  readonly vector: StagedVector | undefined;
}

/**
 * One data file's live rows. The file's URI is a constant and its deletes are filtered to its
 * path (or file index), so no per-row file name is read or joined: that keeps the scan parallel
 * and pushed down.
 */
function fileRows(request: LiveRowsRequest, task: ScanTask, sources: FileSources): string {
  const uri = quoteLiteral(task.data.file.filePath);
  const { byName } = sources;
  const column = (field: NestedField): string => {
    if (byName === undefined) return `d.${quoteIdentifier(field.name)}`;
    const name = byName.get(field.id);
    return `CAST(${name === undefined ? 'NULL' : `d.${quoteIdentifier(name)}`} AS ${icebergToDuckDbType(field.type)})`;
  };
  const columns = request.schema.fields.map((field) => (byName ? `${column(field)} AS ${quoteIdentifier(field.name)}` : column(field)));
  if (request.positions === true) columns.push(`${uri} AS ${FILE_COLUMN}`, `d.file_row_number AS ${POS_COLUMN}`);
  if (request.lineage === true) columns.push(...lineageColumns(task));
  const projection = byName ? '' : `, schema = ${schemaMap(request.schema, request.lineage === true ? LINEAGE_MAP_ENTRIES : [])}`;
  let sql = `SELECT ${columns.join(', ')} FROM read_parquet(${quoteLiteral(sources.local)}, file_row_number = true, hive_partitioning = false${projection}) d`;
  if (sources.vector !== undefined) {
    sql += ` ANTI JOIN (SELECT v.pos FROM ${sources.vector.table} v WHERE v.file_index = ${sources.vector.index}) z ON z.pos = d.file_row_number`;
  }
  equalityGroups(task).forEach((group, g) => {
    const fields = group.ids.map((id) => topLevelField(request.schema, id)!);
    const alias = `e${g}`;
    const keys = fields.map((_, k) => `k${k}`);
    const map = fields.map((field, k) => `${field.id}: {name: '${keys[k]}', type: ${quoteLiteral(icebergToDuckDbType(field.type))}, default_value: NULL}`);
    const locals = group.files.map((file) => sources.localOfDelete.get(file.filePath)!);
    const on = fields.map((field, k) => `${column(field)} IS NOT DISTINCT FROM ${alias}.${keys[k]}`).join(' AND ');
    sql += ` ANTI JOIN (SELECT DISTINCT ${keys.join(', ')} FROM read_parquet(${listOf(locals)}, hive_partitioning = false, schema = map {${map.join(', ')}})) ${alias} ON ${on}`;
  });
  return `(${sql})`;
}

/** read_parquet's projection of Parquet position delete files by their reserved field ids: file_path, pos. */
export const POSITION_DELETE_PROJECTION =
  `schema = map {${FILE_PATH_FIELD_ID}: {name: 'file_path', type: 'VARCHAR', default_value: NULL}, ` +
  `${POS_FIELD_ID}: {name: 'pos', type: 'BIGINT', default_value: NULL}}`;

/** A SELECT of the positions (column `pos`) that local Parquet position delete files delete from one data file. */
export function positionDeletesOf(localDeleteFiles: readonly string[], dataFilePath: string): string {
  return (
    `SELECT x.pos FROM read_parquet(${listOf(localDeleteFiles)}, hive_partitioning = false, ${POSITION_DELETE_PROJECTION}) x ` +
    `WHERE x.file_path = ${quoteLiteral(dataFilePath)}`
  );
}

/** A data file's equality delete files grouped by their set of equality ids. */
function equalityGroups(task: ScanTask): { ids: number[]; files: DataFile[] }[] {
  const groups = new Map<string, { ids: number[]; files: DataFile[] }>();
  for (const { file } of task.deletes) {
    if (file.content !== DataFileContent.EqualityDeletes) continue;
    const ids = [...new Set(file.equalityIds ?? [])].sort((a, b) => a - b);
    const key = ids.join(',');
    const group = groups.get(key) ?? { ids, files: [] };
    group.files.push(file);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function topLevelField(schema: Schema, id: number): NestedField | undefined {
  return schema.fields.find((field) => field.id === id);
}

/**
 * Refuses equality delete files this reader cannot apply, naming the file: an equality id that
 * is not a primitive top-level column of the schema read (nested fields, or a column the
 * schema does not have), or one the delete file has no column for (it would read as null and
 * delete the rows whose value is null).
 */
async function checkEqualityColumns(request: LiveRowsRequest, tasks: readonly ScanTask[], localOfDelete: ReadonlyMap<string, string>): Promise<void> {
  const files = new Map<string, DataFile>();
  for (const task of tasks) for (const { file } of task.deletes) if (file.content === DataFileContent.EqualityDeletes) files.set(file.filePath, file);
  if (files.size === 0) return;
  for (const file of files.values()) {
    for (const id of file.equalityIds ?? []) {
      const field = topLevelField(request.schema, id);
      if (field === undefined || !isPrimitive(field.type)) {
        throw new IcebergFormatError(
          `Equality delete file ${file.filePath} matches on field id ${id}, which is not a primitive top-level column of the table schema read; Thund's reader cannot apply it`,
          { context: { file: file.filePath, fieldId: id } },
        );
      }
    }
  }
  const locals = [...files.keys()].map((uri) => localOfDelete.get(uri)!);
  const nodes = (await request.session.queryJson(
    `SELECT file_name, field_id::INTEGER AS field_id FROM parquet_schema(${listOf(locals)}) WHERE field_id IS NOT NULL`,
  )) as { file_name: string; field_id: number }[];
  const idsOf = new Map<string, Set<number>>();
  for (const node of nodes) idsOf.set(node.file_name, (idsOf.get(node.file_name) ?? new Set<number>()).add(node.field_id));
  for (const [uri, file] of files) {
    const missing = (file.equalityIds ?? []).filter((id) => idsOf.get(localOfDelete.get(uri)!)?.has(id) !== true);
    if (missing.length > 0) {
      throw new IcebergFormatError(`Equality delete file ${uri} has no column for equality field id(s) ${missing.join(', ')} it lists in equality_ids`, {
        context: { file: uri, fieldIds: missing.join(', ') },
      });
    }
  }
}

/** Where a data file's deletion vector positions are staged: rows of `table` whose `file_index` is `index`. */
interface StagedVector {
  readonly table: string;
  readonly index: number;
}

/** How many deletion vectors are read at a time. */
const PARALLEL_VECTOR_READS = 4;
/** Rows per appended chunk: DuckDB's vector size. */
const CHUNK_ROWS = 2048;
let scanCounter = 0;

/**
 * Decodes the deletion vectors of the tasks and appends their positions to one temp table of the
 * scan, (file_index INTEGER, pos BIGINT), file_index the task's index, in task order: each file's rows
 * are contiguous, so its filter skips the others by zone map. The table's name goes into
 * `tempTables` before anything is appended, for release() to drop.
 */
async function stageDeletionVectors(request: LiveRowsRequest, tasks: readonly ScanTask[], tempTables: string[]): Promise<Map<number, StagedVector>> {
  const staged = new Map<number, StagedVector>();
  const withVector = tasks.flatMap((task, index) => {
    const vector = task.deletes.find((d) => isDeletionVector(d.file));
    return vector === undefined ? [] : [{ index, file: vector.file }];
  });
  if (withVector.length === 0) return staged;
  const name = `__thund_dv_${process.pid}_${++scanCounter}_${Math.random().toString(36).slice(2, 10)}`;
  const table = quoteIdentifier(name);
  await request.session.run(`CREATE TEMP TABLE ${table} (file_index INTEGER, pos BIGINT)`);
  tempTables.push(table);
  const appender = await request.session.connection.createAppender(name);
  let closed = false;
  try {
    for (let start = 0; start < withVector.length; start += PARALLEL_VECTOR_READS) {
      const batch = withVector.slice(start, start + PARALLEL_VECTOR_READS);
      const positions = await Promise.all(batch.map(({ file }) => readDeletionVector(request.io, file)));
      batch.forEach(({ index }, k) => {
        appendPositions(request.session.duckdb, appender, index, positions[k]!);
        staged.set(index, { table, index });
      });
    }
    appender.closeSync();
    closed = true;
  } finally {
    if (!closed) {
      try {
        appender.closeSync();
      } catch {
        // The error that brought us here is the one to report.
      }
    }
  }
  return staged;
}

/**
 * Stages the positions the Parquet position delete files of the tasks without a vector delete
 * (planning never gives both: a vector shadows them) into a temp table like the vectors', with
 * one read of all the delete files: each position goes to the task of its file_path that the
 * file applies to. Filtering every delete file per data file instead reads them all once per
 * data file, which grows with the square of the file count (bench:compact's 2,000 small files with
 * three delete files covering all of them: compaction 23 s and 2.4 GB peak RSS that way, 17.6 s
 * and 0.97 GB this way).
 */
async function stagePositionDeletes(
  request: LiveRowsRequest,
  tasks: readonly ScanTask[],
  localOfDelete: ReadonlyMap<string, string>,
  staged: Map<number, StagedVector>,
  tempTables: string[],
): Promise<void> {
  const pairs: string[] = [];
  const locals = new Set<string>();
  const withPositions: number[] = [];
  tasks.forEach((task, index) => {
    const files = staged.has(index) ? [] : task.deletes.filter((d) => d.file.content === DataFileContent.PositionDeletes && !isDeletionVector(d.file));
    if (files.length > 0) withPositions.push(index);
    for (const { file } of files) {
      const local = localOfDelete.get(file.filePath)!;
      locals.add(local);
      pairs.push(`(${index}, ${quoteLiteral(local)}, ${quoteLiteral(task.data.file.filePath)})`);
    }
  });
  if (pairs.length === 0) return;
  const suffix = `${process.pid}_${++scanCounter}_${Math.random().toString(36).slice(2, 10)}`;
  const table = quoteIdentifier(`__thund_pd_${suffix}`);
  const pairsTable = quoteIdentifier(`__thund_pd_pairs_${suffix}`);
  tempTables.push(pairsTable, table);
  await request.session.run(`CREATE TEMP TABLE ${pairsTable} (file_index INTEGER, local VARCHAR, data_path VARCHAR)`);
  for (let at = 0; at < pairs.length; at += 1000) await request.session.run(`INSERT INTO ${pairsTable} VALUES ${pairs.slice(at, at + 1000).join(', ')}`);
  await request.session.run(
    `CREATE TEMP TABLE ${table} AS SELECT p.file_index, x.pos FROM read_parquet(${listOf([...locals])}, hive_partitioning = false, filename = true, ${POSITION_DELETE_PROJECTION}) x ` +
      `JOIN ${pairsTable} p ON p.local = x.filename AND p.data_path = x.file_path ORDER BY p.file_index, x.pos`,
  );
  for (const index of withPositions) staged.set(index, { table, index });
}

async function liveRowsAtLeast(session: DuckDbSession, tasks: readonly ScanTask[], staged: ReadonlyMap<number, StagedVector>): Promise<Map<string, bigint>> {
  const deleted = new Map<number, bigint>();
  const tables = new Map<string, number[]>();
  for (const [index, { table }] of staged) {
    const indexes = tables.get(table) ?? [];
    indexes.push(index);
    tables.set(table, indexes);
  }
  for (const [table, indexes] of tables) {
    // A position at or past the file's record count deletes nothing.
    const sizes = indexes.map((index) => `(${index}, ${tasks[index]!.data.file.recordCount})`).join(', ');
    const rows = (await session.queryJson(
      `SELECT t.file_index, count(*)::VARCHAR AS n FROM ${table} t JOIN (VALUES ${sizes}) v(file_index, records) ON v.file_index = t.file_index ` +
        `WHERE t.pos >= 0 AND t.pos < v.records GROUP BY t.file_index`,
    )) as { file_index: number; n: string }[];
    for (const row of rows) deleted.set(row.file_index, BigInt(row.n));
  }
  const counts = new Map<string, bigint>();
  tasks.forEach((task, index) => {
    if (task.deletes.some((d) => d.file.content === DataFileContent.EqualityDeletes)) return;
    counts.set(task.data.file.filePath, task.data.file.recordCount - (deleted.get(index) ?? 0n));
  });
  return counts;
}

/** Appends (file, pos) rows a chunk at a time: one native call per 2048 positions, not per row. */
function appendPositions(duckdb: DuckDbApi, appender: DuckDBAppender, file: number, positions: BigInt64Array): void {
  for (let start = 0; start < positions.length; start += CHUNK_ROWS) {
    const count = Math.min(CHUNK_ROWS, positions.length - start);
    const chunk = duckdb.DuckDBDataChunk.create([duckdb.INTEGER, duckdb.BIGINT], count);
    const files = chunk.getColumnVector(0);
    const pos = chunk.getColumnVector(1);
    for (let i = 0; i < count; i++) {
      files.setItem(i, file);
      pos.setItem(i, positions[start + i]!);
    }
    files.flush();
    pos.flush();
    appender.appendDataChunk(chunk);
  }
}

/**
 * Data files read by name rather than through the field-id map, each with its field id → column
 * name: files whose columns carry the schema's field ids under the schema's names (no rename, no
 * column added since), which DuckDB scans faster; and files without any field id (registered by
 * add-files), whose top-level columns are named through the name mapping, a field the file lacks
 * reading as NULL (a struct, list or map column is cast to the schema's type, so its nested
 * fields are matched by their names). The first kind only for schemas of primitive top-level
 * columns, where an id and a name identify a column.
 */
async function readableByName(request: LiveRowsRequest, locals: readonly string[]): Promise<Map<string, ReadonlyMap<number, string>>> {
  const { fields } = request.schema;
  const out = new Map<string, ReadonlyMap<number, string>>();
  const primitives = fields.every((field) => isPrimitive(field.type));
  const nodes = (await request.session.queryJson(
    `SELECT file_name, name, field_id::INTEGER AS field_id, coalesce(num_children, 0)::INTEGER AS num_children FROM parquet_schema(${listOf(locals)})`,
  )) as { file_name: string; name: string; field_id: number | null; num_children: number }[];
  const byFile = new Map<string, typeof nodes>();
  for (const node of nodes) byFile.set(node.file_name, [...(byFile.get(node.file_name) ?? []), node]);
  const mapping = request.nameMapping ?? nameMappingOf(request.schema);
  for (const local of locals) {
    const elements = byFile.get(local) ?? [];
    const ids = new Map(elements.flatMap((node) => (node.field_id === null ? [] : [[node.field_id, node.name] as const])));
    if (ids.size > 0) {
      if (primitives && fields.every((field) => ids.get(field.id) === field.name)) out.set(local, new Map(fields.map((field) => [field.id, field.name])));
      continue;
    }
    const named = new Map<number, string>();
    for (const name of topLevelNames(elements)) {
      const id = mappedByName(mapping, name)?.fieldId;
      if (id !== undefined && !named.has(id)) named.set(id, name);
    }
    out.set(local, named);
  }
  return out;
}

/** The top-level column names of a file from its parquet_schema rows (depth first, the root first). */
function topLevelNames(elements: readonly { name: string; num_children: number }[]): string[] {
  const names: string[] = [];
  let i = 1;
  const skip = (): void => {
    const children = elements[i++]?.num_children ?? 0;
    for (let c = 0; c < children; c++) skip();
  };
  while (i < elements.length) {
    names.push(elements[i]!.name);
    skip();
  }
  return names;
}

function listOf(paths: readonly string[]): string {
  return `[${paths.map(quoteLiteral).join(', ')}]`;
}

/** read_parquet's field-id projection: each top-level field by id, NULL where a file lacks it. */
const LINEAGE_MAP_ENTRIES = [
  `${ROW_ID_FIELD_ID}: {name: '${ROW_ID_COLUMN}', type: 'BIGINT', default_value: NULL}`,
  `${LAST_UPDATED_FIELD_ID}: {name: '${LAST_UPDATED_COLUMN}', type: 'BIGINT', default_value: NULL}`,
];

function lineageColumns(task: ScanTask): string[] {
  const { firstRowId } = task.data.file;
  const rowId = firstRowId === undefined ? `d.${ROW_ID_COLUMN}` : `coalesce(d.${ROW_ID_COLUMN}, ${firstRowId}::BIGINT + d.file_row_number)`;
  return [`${rowId} AS ${ROW_ID_COLUMN}`, `coalesce(d.${LAST_UPDATED_COLUMN}, ${task.data.dataSequenceNumber}::BIGINT) AS ${LAST_UPDATED_COLUMN}`];
}

function schemaMap(schema: Schema, extraEntries: readonly string[] = []): string {
  // A file without a field (written before it was added) reads its v3 initial-default, as text
  // DuckDB casts to the field's type; NULL when it has none. Nested defaults are refused.
  checkNestedInitialDefaults(schema);
  const entries = schema.fields.map((f) => {
    const initial = fieldDefaultText(f, 'initial');
    const type = icebergToDuckDbType(f.type, f.name);
    return `${f.id}: {name: ${quoteLiteral(f.name)}, type: ${quoteLiteral(type)}, default_value: ${initial === undefined ? 'NULL' : quoteLiteral(initial)}}`;
  });
  return `map {${[...entries, ...extraEntries].join(', ')}}`;
}
