/**
 * The rows of a table snapshot as a DuckDB SELECT, through Thund's own scan planning: live data
 * files (pruned by `where` when given), the position deletes that apply to each, rows read by
 * field id. For consumers that need the current state of a table (CDC, SCD2, tests).
 */
import { checkValuesSupported } from '../iceberg/duckdb-types.js';
import type { FileIO } from '../iceberg/file-io.js';
import { NAME_MAPPING_PROPERTY, parseNameMapping } from '../iceberg/name-mapping.js';
import { currentSchema, schemaById } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { planScan, type ScanPlan } from './delete-planning.js';
import { openLiveRows, type LiveRows } from './read-rows.js';
import { parseRowFilter } from './row-filter.js';
import { snapshotOf } from './scan.js';

export interface TableRowsRequest {
  readonly session: DuckDbSession;
  readonly io: FileIO;
  readonly metadata: TableMetadata;
  /** Defaults to the current snapshot (read with the current schema); a given one reads with its own schema. */
  readonly snapshotId?: bigint;
  /** A DuckDB condition over the table's columns; also prunes the files read. */
  readonly where?: string;
  /** Adds the data file URI and row position columns (FILE_COLUMN, POS_COLUMN). */
  readonly positions?: boolean;
}

export interface TableRows extends LiveRows {
  readonly plan: ScanPlan;
}

export async function openTableRows(request: TableRowsRequest): Promise<TableRows> {
  const { session, io, metadata } = request;
  const at = request.snapshotId === undefined ? {} : { snapshotId: request.snapshotId };
  const snapshot = snapshotOf(metadata, request.snapshotId);
  // The current state reads with the current schema; time travel with the snapshot's own.
  const historic = request.snapshotId === undefined || snapshot?.schemaId === undefined ? undefined : schemaById(metadata, snapshot.schemaId);
  const schema = historic ?? currentSchema(metadata);
  checkValuesSupported(schema);
  const filter = request.where === undefined ? undefined : await parseRowFilter(session, schema, request.where);
  const plan = await planScan(io, metadata, { ...at, ...(filter === undefined ? {} : { filter }) });
  const mappingText = metadata.properties[NAME_MAPPING_PROPERTY];
  const nameMapping = mappingText === undefined ? undefined : parseNameMapping(mappingText, metadata.location);
  const rows = await openLiveRows({
    session,
    io,
    schema,
    tasks: plan.tasks,
    ...(request.positions === undefined ? {} : { positions: request.positions }),
    ...(nameMapping === undefined ? {} : { nameMapping }),
  });
  const sql = request.where === undefined ? rows.sql : `SELECT * FROM (${rows.sql}) WHERE (${request.where})`;
  return { sql, liveRowsAtLeast: rows.liveRowsAtLeast, release: rows.release, plan };
}
