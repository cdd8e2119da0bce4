/**
 * One Iceberg table from code: append, overwrite, upsert and delete rows, and read a snapshot as
 * Arrow. Rows are an Arrow table or a DuckDB query; they are written by the same code a pipeline
 * flow's output is (engine/run-flow.ts: the table is created on the first write and its schema
 * evolves as a flow's would), rows are deleted as `delete where` does (table/delete-where.ts),
 * and read through Thund's own scan planning (table/table-rows.ts). Each operation runs in a
 * DuckDB session of its own, closed when it ends.
 */
import type { Table } from 'apache-arrow';
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { InvalidInputError } from '../../errors.js';
import { snapshotById } from '../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import type { DuckDbSession } from '../../duckdb/session.js';
import type { OpenedCatalog } from '../open-catalog.js';

/** Rows to write: an Arrow table, or a DuckDB query (it may read files, e.g. `read_parquet('x.parquet')`). */
export type RowsInput = Table | { readonly sql: string };

export interface TableWriteResult {
  readonly snapshotId: bigint;
  readonly addedRows: bigint;
  /** The write created the table. */
  readonly created: boolean;
}

export interface TableDeleteResult {
  /** Absent when no row matched and nothing was committed. */
  readonly snapshotId?: bigint;
  readonly deletedRows: bigint;
}

export interface ReadOptions {
  /** Default: the current snapshot. */
  readonly snapshotId?: bigint;
  /** A DuckDB condition over the table's columns; it also prunes the files read. */
  readonly where?: string;
}

export interface UpsertOptions {
  /** The key columns: live rows with a key of the given rows are replaced by them. */
  readonly keys: readonly string[];
}

export interface ThundTable {
  readonly identifier: TableIdentifier;
  /** Adds the rows (creating the table on its first write). */
  append(rows: RowsInput): Promise<TableWriteResult>;
  /** Replaces every row of the table with these. */
  overwrite(rows: RowsInput): Promise<TableWriteResult>;
  /** Merges by key: each given row replaces the live row with its key, or is added. Keys must be unique and not null. */
  upsert(rows: RowsInput, options: UpsertOptions): Promise<TableWriteResult>;
  /** Deletes the live rows matching a DuckDB condition. */
  delete(where: string): Promise<TableDeleteResult>;
  /** The rows of a snapshot (position deletes and deletion vectors applied). */
  read(options?: ReadOptions): Promise<Table>;
}

export function tableHandle(opened: OpenedCatalog, identifier: TableIdentifier): ThundTable {
  const table = formatIdentifier(identifier);
  const write = (mode: 'append' | 'overwrite' | 'upsert', rows: RowsInput, keys?: readonly string[]): Promise<TableWriteResult> =>
    withSession(async (session) => {
      const [{ runFlow }, sql] = await Promise.all([import('../../engine/run-flow.js'), rowsQuery(session, rows)]);
      const result = await runFlow({
        session,
        catalog: opened.catalog,
        io: opened.io,
        flowName: `${mode} into ${table}`,
        sql,
        target: identifier,
        mode,
        ...(keys === undefined ? {} : { keys }),
        tableProperties: {},
        summaryProperties: {},
      });
      return {
        snapshotId: result.snapshot.snapshotId,
        addedRows: BigInt(result.snapshot.summary['added-records'] ?? '0'),
        created: result.created,
      };
    });
  return {
    identifier,
    append: (rows) => write('append', rows),
    overwrite: (rows) => write('overwrite', rows),
    upsert: (rows, options) => write('upsert', rows, options.keys),
    delete: (where) =>
      withSession(async (session) => {
        const { deleteWhere } = await import('../../table/delete-where.js');
        const result = await deleteWhere({ catalog: opened.catalog, identifier, io: opened.io, session }, where);
        return {
          ...(result.snapshot === undefined ? {} : { snapshotId: result.snapshot.snapshotId }),
          deletedRows: result.deletedRows,
        };
      }),
    read: (options = {}) =>
      withSession(async (session) => {
        const [{ openTableRows }, { queryArrow }] = await Promise.all([import('../../table/table-rows.js'), import('../../duckdb/arrow-out.js')]);
        const loaded = await opened.catalog.loadTable(identifier);
        if (options.snapshotId !== undefined) requireSnapshot(loaded.metadata, table, options.snapshotId);
        const rows = await openTableRows({
          session,
          io: loaded.io,
          metadata: loaded.metadata,
          ...(options.snapshotId === undefined ? {} : { snapshotId: options.snapshotId }),
          ...(options.where === undefined ? {} : { where: options.where }),
        });
        try {
          return await queryArrow(session, rows.sql);
        } finally {
          await rows.release();
        }
      }),
  };
}

async function withSession<T>(use: (session: DuckDbSession) => Promise<T>): Promise<T> {
  const { DuckDbSession } = await import('../../duckdb/session.js');
  const session = await DuckDbSession.open();
  try {
    return await use(session);
  } finally {
    session.close();
  }
}

/** An Arrow table is staged as a temp table of the session; a query is taken as it is. */
async function rowsQuery(session: DuckDbSession, rows: RowsInput): Promise<string> {
  if ('sql' in rows && typeof rows.sql === 'string') return rows.sql;
  const [{ stageArrowTable }, { tempName }, { quoteIdentifier }] = await Promise.all([
    import('../../duckdb/arrow-in.js'),
    import('../../table/row-operation.js'),
    import('../../iceberg/duckdb-types.js'),
  ]);
  const name = tempName('rows');
  await stageArrowTable(session, rows as Table, name);
  return `SELECT * FROM ${quoteIdentifier(name)}`;
}

/**
 * A snapshot id to read is the caller's input: one the metadata does not hold (expired, mistyped,
 * or on a server such as Nessie whose metadata keeps only the current one) is refused as such.
 */
function requireSnapshot(metadata: TableMetadata, table: string, snapshotId: bigint): void {
  if (snapshotById(metadata, snapshotId) !== undefined) return;
  const kept = metadata.snapshots.length;
  const current = metadata.currentSnapshotId === undefined ? '' : `; the current one is ${metadata.currentSnapshotId}`;
  throw new InvalidInputError(`Snapshot ${snapshotId} is not in the metadata of table ${table} (it keeps ${kept} snapshot${kept === 1 ? '' : 's'}${current})`, {
    context: { table, snapshotId: String(snapshotId) },
  });
}
