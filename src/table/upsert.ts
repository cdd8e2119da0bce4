/**
 * MERGE by key as one snapshot: every source row is written as a new row; live rows whose key
 * is in the source are deleted (position deletes under merge-on-read, file rewrites under
 * copy-on-write, per `write.update.mode`). Source keys must be unique and not null.
 *
 * With `deleteKeysQuery` the rows to delete are named apart from the rows to add (a change set,
 * as CDC apply-changes produces: SCD1 deletes by key, SCD2 by key and __START_AT), so a key may
 * be deleted without a new row, and added rows need not have unique keys.
 *
 * Candidate files are pruned by the delete keys' range (column bounds and partition values); the
 * range of the delete and added keys decides which concurrently added files conflict on a retry.
 */
import { InvalidInputError, SchemaMismatchError } from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import { icebergToDuckDbType, quoteIdentifier } from '../iceberg/duckdb-types.js';
import { checkWriteCompatible } from '../iceberg/schema.js';
import { currentSchema, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import type { NestedField, PrimitiveType } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { describeFlow, projectOntoTable } from '../engine/flow-output.js';
import { writePartitionedDataFiles } from '../write/partitioned-data-file-writer.js';
import { commitSnapshot } from './commit-snapshot.js';
import { planScan } from './delete-planning.js';
import { dataLocation } from './locations.js';
import { FILE_COLUMN, openLiveRows, POS_COLUMN } from './read-rows.js';
import { changesForMatches, rowLevelMode } from './row-changes.js';
import { canonicalSql, fromCanonical, type RowFilter } from './row-filter.js';
import { commitRowDelta, removeQuietly, tempName, type RowOperationResult, type RowOperationTarget } from './row-operation.js';

/** Writes the rows of a query (table columns, in order, with the table's types) as data files of the table. */
export type DataWriter = (query: string, metadata: TableMetadata) => Promise<DataFile[]>;

export interface UpsertRequest {
  readonly keyColumns: readonly string[];
  /** A DuckDB SELECT whose columns match the table's by name: the rows to add. */
  readonly sourceQuery: string;
  /**
   * A DuckDB SELECT of the key columns: live rows with one of these keys are deleted (a key may
   * repeat; none may be null). Absent: the source rows' keys, each of which may appear once.
   */
  readonly deleteKeysQuery?: string;
  /** Commit a snapshot even when nothing changes (it carries the summary properties, e.g. positions). */
  readonly commitEmpty?: boolean;
  /** What the operation is called in messages and the writer name; default `upsert on (keys)`. */
  readonly operation?: string;
  /** Writer for the new rows; defaults to the partitioned data file writer under the table's default spec. */
  readonly writeData?: DataWriter;
}

const FLOAT_KINDS: ReadonlySet<string> = new Set(['float', 'double']);

export async function upsert(target: RowOperationTarget, request: UpsertRequest): Promise<RowOperationResult> {
  const { session, io } = target;
  const { metadata } = await target.catalog.loadTable(target.identifier);
  const mode = rowLevelMode(metadata, 'write.update.mode');
  const schema = currentSchema(metadata);
  const keys = keyFields(schema.fields, request.keyColumns);
  const operation = request.operation ?? `upsert on (${keys.map((k) => k.name).join(', ')})`;
  const writeData = request.writeData ?? defaultWriter(target, operation);
  const source = tempName('source');
  const deleteKeys = request.deleteKeysQuery === undefined ? source : tempName('delete_keys');
  const matched = tempName('matched');
  let rows: Awaited<ReturnType<typeof openLiveRows>> | undefined;
  try {
    await stageSource(session, schema.fields, request.sourceQuery, source);
    if (request.deleteKeysQuery === undefined) await checkKeys(session, source, keys);
    else await stageDeleteKeys(session, keys, request.deleteKeysQuery, deleteKeys);
    const keyList = keys.map((k) => quoteIdentifier(k.name)).join(', ');
    const scope = await keyRange(session, `(SELECT ${keyList} FROM ${deleteKeys} UNION ALL SELECT ${keyList} FROM ${source})`, keys);
    if (scope === undefined) {
      const nothing = { attempts: 0, mode, deletedRows: 0n, addedRows: 0n, addedDataFiles: [], addedDeleteFiles: [], removedDataFiles: [] };
      if (request.commitEmpty !== true) return { snapshot: undefined, ...nothing };
      const empty = await commitSnapshot({
        catalog: target.catalog,
        identifier: target.identifier,
        base: { metadata, io, create: false },
        mode: 'append',
        addedFiles: [],
        ...(target.summaryProperties === undefined ? {} : { summaryProperties: target.summaryProperties }),
      });
      return { ...nothing, snapshot: empty.snapshot, attempts: empty.attempts };
    }
    const filter = deleteKeys === source ? scope : await keyRange(session, deleteKeys, keys);
    const plan = filter === undefined ? { tasks: [] } : await planScan(io, metadata, { filter });
    rows = await openLiveRows({ session, io, schema, tasks: plan.tasks, positions: true });
    await session.run(`CREATE TEMP TABLE ${matched} AS SELECT t.${FILE_COLUMN} AS file_path, t.${POS_COLUMN} AS pos FROM (${rows.sql}) t ${matchClause(keys, deleteKeys)}`);
    const changes = await changesForMatches({ session, io, metadata, tasks: plan.tasks, matchedTable: matched, mode, writerName: operation });
    let newRows: DataFile[];
    try {
      newRows = await writeData(`SELECT * FROM ${source}`, metadata);
    } catch (error) {
      await removeQuietly(io, [...changes.addedDataFiles, ...changes.addedDeleteFiles]);
      throw error;
    }
    const addedDataFiles = [...changes.addedDataFiles, ...newRows];
    const committed = await commitRowDelta({ target, metadata, operation, filter: scope, ...changes, addedDataFiles });
    const addedRows = newRows.reduce((sum, file) => sum + file.recordCount, 0n);
    return { ...committed, mode, deletedRows: changes.deletedRows, addedRows, addedDataFiles, addedDeleteFiles: changes.addedDeleteFiles, removedDataFiles: changes.removedDataFiles };
  } finally {
    await session.run(`DROP TABLE IF EXISTS ${source}; DROP TABLE IF EXISTS ${deleteKeys}; DROP TABLE IF EXISTS ${matched}`).catch(() => undefined);
    await rows?.release();
  }
}

/** Live rows whose key is in the source. One key: an IN filter, which DuckDB pushes into the scan. */
function matchClause(keys: readonly NestedField[], source: string): string {
  const [only] = keys;
  if (keys.length === 1 && only !== undefined) {
    return `WHERE t.${quoteIdentifier(only.name)} IN (SELECT ${quoteIdentifier(only.name)} FROM ${source})`;
  }
  const on = keys.map((k) => `t.${quoteIdentifier(k.name)} = s.${quoteIdentifier(k.name)}`).join(' AND ');
  return `SEMI JOIN ${source} s ON ${on}`;
}

function keyFields(fields: readonly NestedField[], names: readonly string[]): (NestedField & { type: PrimitiveType })[] {
  if (names.length === 0) throw new InvalidInputError('An upsert needs at least one key column');
  return names.map((name) => {
    const field = fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (field === undefined) {
      throw new InvalidInputError(`Upsert key column "${name}" is not a column of the table`, { context: { column: name } });
    }
    if (!isPrimitive(field.type) || FLOAT_KINDS.has(field.type.kind)) {
      throw new InvalidInputError(`Upsert key column "${name}" must be a primitive, non-floating-point column`, { context: { column: name } });
    }
    return field as NestedField & { type: PrimitiveType };
  });
}

async function stageSource(session: DuckDbSession, fields: readonly NestedField[], sourceQuery: string, table: string): Promise<void> {
  const output = await describeFlow(session, 'upsert source', sourceQuery);
  let projection;
  try {
    projection = checkWriteCompatible({ fields }, output.fields);
  } catch (error) {
    if (!(error instanceof SchemaMismatchError)) throw error;
    throw new SchemaMismatchError(`The upsert source does not match the table's schema: ${error.message}`, { cause: error, context: error.context });
  }
  await session.run(`CREATE TEMP TABLE ${table} AS ${projectOntoTable(output, projection)}`);
}

async function checkKeys(session: DuckDbSession, source: string, keys: readonly NestedField[]): Promise<void> {
  const list = keys.map((k) => quoteIdentifier(k.name)).join(', ');
  const nulls = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM ${source} WHERE ${keys.map((k) => `${quoteIdentifier(k.name)} IS NULL`).join(' OR ')}`);
  if (nulls[0]?.['n'] !== '0') {
    throw new InvalidInputError(`The upsert source has ${String(nulls[0]?.['n'])} rows with a null key (${list}); keys must not be null`, {
      context: { keys: list },
    });
  }
  const shown = keys.map((k) => `${quoteIdentifier(k.name)}::VARCHAR AS ${quoteIdentifier(k.name)}`).join(', ');
  const duplicates = await session.queryJson(
    `SELECT ${shown}, count(*)::VARCHAR AS __n FROM ${source} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1`,
  );
  const first = duplicates[0];
  if (first !== undefined) {
    const key = keys.map((k) => `${k.name}=${String(first[k.name])}`).join(', ');
    throw new InvalidInputError(`The upsert source has ${String(first['__n'])} rows with key ${key}; each key may appear once`, {
      context: { key },
    });
  }
}

/** The delete keys, distinct and typed as the table's key columns; a null key is an error. */
async function stageDeleteKeys(session: DuckDbSession, keys: readonly NestedField[], query: string, table: string): Promise<void> {
  const typed = keys.map((k) => `CAST(${quoteIdentifier(k.name)} AS ${icebergToDuckDbType(k.type)}) AS ${quoteIdentifier(k.name)}`).join(', ');
  await session.run(`CREATE TEMP TABLE ${table} AS SELECT DISTINCT ${typed} FROM (${query})`);
  const list = keys.map((k) => quoteIdentifier(k.name)).join(', ');
  const [row] = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM ${table} WHERE ${keys.map((k) => `${quoteIdentifier(k.name)} IS NULL`).join(' OR ')}`);
  if (row?.['n'] !== '0') {
    throw new InvalidInputError(`The delete keys hold ${String(row?.['n'])} null key(s) (${list}); keys must not be null`, { context: { keys: list } });
  }
}

/** The key range of `source` (a table or parenthesised query) as a filter (undefined when it has no rows). */
async function keyRange(session: DuckDbSession, source: string, keys: readonly (NestedField & { type: PrimitiveType })[]): Promise<RowFilter | undefined> {
  const children: RowFilter[] = [];
  for (const key of keys) {
    const column = quoteIdentifier(key.name);
    const canonical = (agg: string): string | undefined => canonicalSql(key.type, `${agg}(${column})`);
    const low = canonical('min');
    const high = canonical('max');
    if (low === undefined || high === undefined) continue;
    const [row] = await session.queryJson(`SELECT ${low} AS lo, ${high} AS hi, count(*)::VARCHAR AS n FROM ${source}`);
    if (row === undefined || row['n'] === '0') return undefined;
    children.push({ kind: 'compare', fieldId: key.id, type: key.type, op: '>=', value: fromCanonical(key.type, row['lo']) });
    children.push({ kind: 'compare', fieldId: key.id, type: key.type, op: '<=', value: fromCanonical(key.type, row['hi']) });
  }
  if (children.length === 0) {
    const [row] = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM ${source}`);
    if (row?.['n'] === '0') return undefined;
  }
  return { kind: 'and', children };
}

/** New rows fanned out by the table's default partition spec (unpartitioned specs included). */
function defaultWriter(target: RowOperationTarget, operation: string): DataWriter {
  return (query, metadata) =>
    writePartitionedDataFiles({
      session: target.session,
      query,
      schema: currentSchema(metadata),
      spec: defaultSpec(metadata),
      dataLocation: dataLocation(metadata),
      io: target.io,
      properties: metadata.properties,
      writerName: operation,
    });
}
