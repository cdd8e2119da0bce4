/**
 * MERGE by key as one snapshot: every source row is written as a new row; live rows whose key
 * is in the source are deleted (position deletes under merge-on-read, file rewrites under
 * copy-on-write, per `write.update.mode`). Source keys must be unique and not null
 * (upsert-keys.ts). The caller fits the source to the table: a schema change it needs comes as
 * `layoutChange` and lands in the same commit; a table staged for creation gets the source rows
 * as its first snapshot, under the same key rules.
 *
 * With `deleteKeysQuery` the rows to delete are named apart from the rows to add (a change set,
 * as CDC apply-changes produces: SCD1 deletes by key, SCD2 by key and __START_AT), so a key may
 * be deleted without a new row, and added rows need not have unique keys.
 *
 * Candidate files are pruned by the delete keys' range (column bounds and partition values); the
 * range of the delete and added keys decides which concurrently added files conflict on a retry.
 */
import { formatIdentifier } from '../../catalog/catalog.js';
import { CommitStateUnknownError } from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import { quoteIdentifier } from '../iceberg/duckdb-types.js';
import { applyUpdates } from '../iceberg/metadata-builder.js';
import { currentSchema, currentSnapshot, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import type { NestedField } from '../iceberg/types.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { writePartitionedDataFiles } from '../write/partitioned-data-file-writer.js';
import { commitSnapshot, type LayoutChange } from './commit-snapshot.js';
import { planScan } from './delete-planning.js';
import { dataLocation } from './locations.js';
import { checkManifestsPresent } from './manifest-presence.js';
import { FILE_COLUMN, openLiveRows, POS_COLUMN } from './read-rows.js';
import { changesForMatches, rowLevelMode } from './row-changes.js';
import { canonicalSql, fromCanonical, type RowFilter } from './row-filter.js';
import { checkSourceKeys, keyFields, stageDeleteKeys, type KeyField } from './upsert-keys.js';
import { commitRowDelta, removeQuietly, targetCommitOptions, tempName, type RowOperationResult, type RowOperationTarget } from './row-operation.js';

/** Writes the rows of a query (table columns, in order, with the table's types) as data files of the table. */
export type DataWriter = (query: string, metadata: TableMetadata) => Promise<DataFile[]>;

export interface UpsertRequest {
  readonly keyColumns: readonly string[];
  /**
   * A DuckDB SELECT of the rows to add: exactly the columns of the table's schema (the one
   * `layoutChange` makes current, if any), in order, with their types — the data file writer's input.
   */
  readonly sourceQuery: string;
  /**
   * A DuckDB SELECT of the key columns: live rows with one of these keys are deleted (a key may
   * repeat; none may be null). Absent: the source rows' keys, each of which may appear once.
   */
  readonly deleteKeysQuery?: string;
  /**
   * The source query gives the same rows every time it is read (it reads tables nothing changes
   * meanwhile, no random or time functions): it is read where it is, as a view, rather than
   * copied into a temp table first. The copy costs about what computing the rows does.
   */
  readonly stableSource?: boolean;
  /** Commit a snapshot even when nothing changes (it carries the summary properties, e.g. positions). */
  readonly commitEmpty?: boolean;
  /** What the operation is called in messages and the writer name; default `upsert on (keys)`. */
  readonly operation?: string;
  /** Writer for the new rows; defaults to the partitioned data file writer under the table's default spec. */
  readonly writeData?: DataWriter;
  /**
   * The table the source was fitted to (loaded when absent); `create`: metadata staged for a new
   * table, which this upsert creates with the source rows as its first snapshot (its schema is
   * the staged one: no `layoutChange` then).
   */
  readonly base?: { readonly metadata: TableMetadata; readonly create: boolean };
  /** Schema and partition spec changes committed with the rows (the source already has the new columns). */
  readonly layoutChange?: LayoutChange;
}

export async function upsert(target: RowOperationTarget, request: UpsertRequest): Promise<RowOperationResult> {
  const { session, io } = target;
  const base = request.base ?? { metadata: (await target.catalog.loadTable(target.identifier)).metadata, create: false };
  const layoutChange = request.layoutChange === undefined || request.layoutChange.updates.length === 0 ? undefined : request.layoutChange;
  // The table as this commit leaves it: the source's columns and the writers' schema and spec.
  const metadata = layoutChange === undefined ? base.metadata : applyUpdates(base.metadata, layoutChange.updates);
  const mode = rowLevelMode(metadata, 'write.update.mode');
  const schema = currentSchema(metadata);
  const operation = request.operation ?? `upsert on (${request.keyColumns.join(', ')})`;
  const subject = `${operation} into ${formatIdentifier(target.identifier)}`;
  const keys = keyFields(subject, schema.fields, request.keyColumns, base.create ? undefined : currentSchema(base.metadata).fields);
  const writeData = request.writeData ?? defaultWriter(target, operation);
  const source = tempName('source');
  const deleteKeys = request.deleteKeysQuery === undefined ? source : tempName('delete_keys');
  const matched = tempName('matched');
  let rows: Awaited<ReturnType<typeof openLiveRows>> | undefined;
  try {
    await session.run(`CREATE TEMP ${request.stableSource === true ? 'VIEW' : 'TABLE'} ${source} AS ${request.sourceQuery}`);
    if (request.deleteKeysQuery === undefined) await checkSourceKeys(session, source, keys, subject);
    else await stageDeleteKeys(session, keys, request.deleteKeysQuery, deleteKeys, subject);
    if (base.create) return await createWithSource(target, { metadata, mode, writeData, source });
    // Before the scan, which would otherwise fail on a missing manifest without naming the table.
    await checkManifestsPresent(io, target.identifier, currentSnapshot(base.metadata));
    const keyList = keys.map((k) => quoteIdentifier(k.name)).join(', ');
    const scope = await keyRange(session, `(SELECT ${keyList} FROM ${deleteKeys} UNION ALL SELECT ${keyList} FROM ${source})`, keys);
    if (scope === undefined) {
      const nothing = { attempts: 0, mode, deletedRows: 0n, addedRows: 0n, addedDataFiles: [], addedDeleteFiles: [], removedDataFiles: [] };
      if (request.commitEmpty !== true) return { snapshot: undefined, ...nothing };
      const empty = await commitSnapshot({
        catalog: target.catalog,
        identifier: target.identifier,
        base: { metadata: base.metadata, io, create: false },
        mode: 'append',
        addedFiles: [],
        ...(layoutChange === undefined ? {} : { layoutChange }),
        ...targetCommitOptions(target),
      });
      return { ...nothing, snapshot: empty.snapshot, attempts: empty.attempts };
    }
    const filter = deleteKeys === source ? scope : await keyRange(session, deleteKeys, keys);
    const plan = filter === undefined ? { tasks: [] } : await planScan(io, metadata, { filter });
    rows = await openLiveRows({ session, io, schema, tasks: plan.tasks, positions: true });
    await session.run(`CREATE TEMP TABLE ${matched} AS SELECT t.${FILE_COLUMN} AS file_path, t.${POS_COLUMN} AS pos FROM (${rows.sql}) t ${matchClause(keys, deleteKeys)}`);
    const changes = await changesForMatches({ session, io, metadata, tasks: plan.tasks, matchedTable: matched, mode, writerName: operation, liveRowsAtLeast: rows.liveRowsAtLeast });
    let newRows: DataFile[];
    try {
      newRows = await writeData(`SELECT * FROM ${source}`, metadata);
    } catch (error) {
      await removeQuietly(io, [...changes.addedDataFiles, ...changes.addedDeleteFiles]);
      throw error;
    }
    const addedDataFiles = [...changes.addedDataFiles, ...newRows];
    const committed = await commitRowDelta({
      target,
      metadata: base.metadata,
      operation,
      filter: scope,
      ...changes,
      addedDataFiles,
      ...(layoutChange === undefined ? {} : { layoutChange }),
    });
    const addedRows = newRows.reduce((sum, file) => sum + file.recordCount, 0n);
    return { ...committed, mode, deletedRows: changes.deletedRows, addedRows, addedDataFiles, addedDeleteFiles: changes.addedDeleteFiles, removedDataFiles: changes.removedDataFiles };
  } finally {
    const dropSource = `DROP ${request.stableSource === true ? 'VIEW' : 'TABLE'} IF EXISTS ${source}`;
    await session.run(`${dropSource}; DROP TABLE IF EXISTS ${deleteKeys}; DROP TABLE IF EXISTS ${matched}`).catch(() => undefined);
    await rows?.release();
  }
}

/** The first snapshot of a new table: the checked source rows, appended in the commit that creates it. */
async function createWithSource(
  target: RowOperationTarget,
  args: { metadata: TableMetadata; mode: RowOperationResult['mode']; writeData: DataWriter; source: string },
): Promise<RowOperationResult> {
  const files = await args.writeData(`SELECT * FROM ${args.source}`, args.metadata);
  try {
    const result = await commitSnapshot({
      catalog: target.catalog,
      identifier: target.identifier,
      base: { metadata: args.metadata, io: target.io, create: true },
      mode: 'append',
      addedFiles: files,
      ...targetCommitOptions(target),
    });
    const addedRows = files.reduce((sum, file) => sum + file.recordCount, 0n);
    return { snapshot: result.snapshot, attempts: result.attempts, mode: args.mode, deletedRows: 0n, addedRows, addedDataFiles: files, addedDeleteFiles: [], removedDataFiles: [] };
  } catch (error) {
    if (!(error instanceof CommitStateUnknownError)) await removeQuietly(target.io, files);
    throw error;
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

/** The key range of `source` (a table or parenthesised query) as a filter (undefined when it has no rows), in one read of it. */
async function keyRange(session: DuckDbSession, source: string, keys: readonly KeyField[]): Promise<RowFilter | undefined> {
  const bounded = keys.flatMap((key) => {
    const column = quoteIdentifier(key.name);
    const low = canonicalSql(key.type, `min(${column})`);
    const high = canonicalSql(key.type, `max(${column})`);
    return low === undefined || high === undefined ? [] : [{ key, low, high }];
  });
  const select = [...bounded.flatMap(({ low, high }, i) => [`${low} AS lo${i}`, `${high} AS hi${i}`]), 'count(*)::VARCHAR AS n'].join(', ');
  const [row] = await session.queryJson(`SELECT ${select} FROM ${source}`);
  if (row === undefined || row['n'] === '0') return undefined;
  const children = bounded.flatMap(({ key }, i): RowFilter[] => [
    { kind: 'compare', fieldId: key.id, type: key.type, op: '>=', value: fromCanonical(key.type, row[`lo${i}`]) },
    { kind: 'compare', fieldId: key.id, type: key.type, op: '<=', value: fromCanonical(key.type, row[`hi${i}`]) },
  ]);
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
