/**
 * The live rows of planned scan tasks as DuckDB SQL: data files read by field id
 * (read_parquet's `schema` map, so renamed and added columns read right; by name when a file's
 * names and ids are the schema's) with their row position, anti-joined with the positions of
 * the delete files that apply to each file.
 */
import { icebergToDuckDbType, quoteIdentifier } from '../iceberg/duckdb-types.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { Schema } from '../iceberg/types.js';
import { quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { isPrimitive } from '../iceberg/types.js';
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
  /** Removes the downloaded copies. */
  release(): Promise<void>;
}

export interface LiveRowsRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly schema: Schema;
  readonly tasks: readonly ScanTask[];
  readonly positions?: boolean;
}

export async function openLiveRows(request: LiveRowsRequest): Promise<LiveRows> {
  const { schema, tasks } = request;
  if (tasks.length === 0) {
    const empty = schema.fields.map((f) => `CAST(NULL AS ${icebergToDuckDbType(f.type)}) AS ${quoteIdentifier(f.name)}`);
    if (request.positions === true) empty.push(`CAST(NULL AS VARCHAR) AS ${FILE_COLUMN}`, `CAST(NULL AS BIGINT) AS ${POS_COLUMN}`);
    return { sql: `SELECT ${empty.join(', ')} WHERE false`, release: async () => {} };
  }
  const staging = new TableFileStaging(request.io);
  try {
    const dataLocal = await staging.localPaths(tasks.map((task) => task.data.file.filePath));
    const deleteUris = [...new Set(tasks.flatMap((task) => task.deletes.map((d) => d.file.filePath)))];
    const deleteLocal = await staging.localPaths(deleteUris);
    const localOfDelete = new Map(deleteUris.map((uri, i) => [uri, deleteLocal[i]!]));
    const byName = await readableByName(request, dataLocal);
    const parts = tasks.map((task, i) =>
      fileRows(request, task, dataLocal[i]!, byName.has(dataLocal[i]!), task.deletes.map((d) => localOfDelete.get(d.file.filePath)!)),
    );
    return { sql: parts.join(' UNION ALL '), release: () => staging.close() };
  } catch (error) {
    await staging.close();
    throw error;
  }
}

/**
 * One data file's live rows. The file's URI is a constant and its deletes are filtered to its
 * path, so no per-row file name is read or joined: that keeps the scan parallel and pushed down.
 */
function fileRows(request: LiveRowsRequest, task: ScanTask, dataLocal: string, byName: boolean, deleteLocal: readonly string[]): string {
  const uri = quoteLiteral(task.data.file.filePath);
  const columns = request.schema.fields.map((field) =>
    byName
      ? `CAST(d.${quoteIdentifier(field.name)} AS ${icebergToDuckDbType(field.type)}) AS ${quoteIdentifier(field.name)}`
      : `d.${quoteIdentifier(field.name)}`,
  );
  if (request.positions === true) columns.push(`${uri} AS ${FILE_COLUMN}`, `d.file_row_number AS ${POS_COLUMN}`);
  const projection = byName ? '' : `, schema = ${schemaMap(request.schema)}`;
  let sql = `SELECT ${columns.join(', ')} FROM read_parquet(${quoteLiteral(dataLocal)}, file_row_number = true${projection}) d`;
  if (deleteLocal.length > 0) {
    const deletes =
      `SELECT x.pos FROM read_parquet(${listOf(deleteLocal)}, schema = map {` +
      `${FILE_PATH_FIELD_ID}: {name: 'file_path', type: 'VARCHAR', default_value: NULL}, ` +
      `${POS_FIELD_ID}: {name: 'pos', type: 'BIGINT', default_value: NULL}}) x WHERE x.file_path = ${uri}`;
    sql += ` ANTI JOIN (${deletes}) z ON z.pos = d.file_row_number`;
  }
  return `(${sql})`;
}

/**
 * Data files whose columns carry the schema's field ids under the schema's names (no rename, no
 * column added since): read by name, which DuckDB scans faster than through the field-id map.
 * Only for schemas of primitive top-level columns, where an id and a name identify a column.
 */
async function readableByName(request: LiveRowsRequest, locals: readonly string[]): Promise<Set<string>> {
  const { fields } = request.schema;
  if (!fields.every((field) => isPrimitive(field.type))) return new Set();
  const nodes = (await request.session.queryJson(
    `SELECT file_name, name, field_id::INTEGER AS field_id FROM parquet_schema(${listOf(locals)}) WHERE field_id IS NOT NULL`,
  )) as { file_name: string; name: string; field_id: number }[];
  const byFile = new Map<string, Map<number, string>>();
  for (const node of nodes) {
    const ids = byFile.get(node.file_name) ?? new Map<number, string>();
    ids.set(node.field_id, node.name);
    byFile.set(node.file_name, ids);
  }
  return new Set(locals.filter((local) => fields.every((field) => byFile.get(local)?.get(field.id) === field.name)));
}

function listOf(paths: readonly string[]): string {
  return `[${paths.map(quoteLiteral).join(', ')}]`;
}

/** read_parquet's field-id projection: each top-level field by id, NULL where a file lacks it. */
function schemaMap(schema: Schema): string {
  const entries = schema.fields.map(
    (f) => `${f.id}: {name: ${quoteLiteral(f.name)}, type: ${quoteLiteral(icebergToDuckDbType(f.type))}, default_value: NULL}`,
  );
  return `map {${entries.join(', ')}}`;
}
