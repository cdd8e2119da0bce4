/**
 * The upsert of a flow's rows into its target (`mode: upsert`, a streaming update-mode batch, an
 * apply-changes change set): run-flow fits the rows to the table exactly as for an append
 * (schema evolution included) and this hands them to src/table/upsert.ts, which replaces the live
 * rows with the same key and adds the others in one snapshot, the schema change in the same
 * commit. The run that creates the table goes the same way, so its rows obey the same key rules.
 */
import { formatIdentifier, type Catalog, type LoadedTable, type TableIdentifier } from '../../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { matchByName } from '../iceberg/schema-evolution.js';
import { snapshotForRef } from '../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type Snapshot, type TableMetadata } from '../iceberg/table-metadata.js';
import type { DuckDbSession } from '../duckdb/session.js';
import type { CommitFence, LayoutChange } from '../table/commit-snapshot.js';
import type { CommitNoticeSink } from '../table/commit-notice.js';
import { upsert } from '../table/upsert.js';
import type { FlowOutput } from './flow-output.js';

/** A change set's rows to delete, named apart from the rows to add (apply-changes). */
export interface DeleteKeys {
  /** A DuckDB SELECT of the key columns whose live rows are deleted. */
  readonly sql: string;
  /** Commit even when nothing changes: the snapshot carries the batch's positions. */
  readonly commitEmpty: boolean;
}

export interface UpsertInto {
  readonly session: DuckDbSession;
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  readonly flowName: string;
  readonly keys: readonly string[];
  readonly summaryProperties: Readonly<Record<string, string>>;
  /** The table the rows were fitted to; `create`: staged, created by this upsert. */
  readonly metadata: TableMetadata;
  readonly io: FileIO;
  readonly create: boolean;
  /** The rows to add: the table's (evolved) columns, in order, with their types. */
  readonly query: string;
  readonly layoutChange?: LayoutChange;
  readonly deleteKeys?: DeleteKeys;
  /** `query` gives the same rows every time it is read (UpsertRequest.stableSource). */
  readonly stableQuery?: boolean;
  readonly fence?: CommitFence;
  readonly onNotice?: CommitNoticeSink;
}

export interface UpsertOutcome {
  readonly table: LoadedTable;
  readonly snapshot: Snapshot;
  readonly attempts: number;
  readonly dataFiles: readonly DataFile[];
  /** False when there was nothing to change and nothing was committed (nor the schema change). */
  readonly committed: boolean;
}

/** Every key column is one the flow produces (before any table is touched). */
export function checkKeysProduced(output: FlowOutput, identifier: TableIdentifier, keys: readonly string[] | undefined): readonly string[] {
  const table = formatIdentifier(identifier);
  if (keys === undefined || keys.length === 0) {
    throw new InvalidInputError(`Flow "${output.flowName}": an upsert into ${table} needs key columns`, { context: { flow: output.flowName, table } });
  }
  for (const key of keys) {
    if (matchByName(output.fields, key) >= 0) continue;
    throw new InvalidInputError(
      `Flow "${output.flowName}": key column "${key}" of ${table} is not a column of the flow's output (${output.fields.map((f) => f.name).join(', ')})`,
      { context: { flow: output.flowName, table, column: key } },
    );
  }
  return keys;
}

export async function upsertInto(request: UpsertInto): Promise<UpsertOutcome> {
  const operation = `upsert of flow "${request.flowName}" on (${request.keys.join(', ')})`;
  const result = await upsert(
    {
      catalog: request.catalog,
      identifier: request.identifier,
      io: request.io,
      session: request.session,
      summaryProperties: request.summaryProperties,
      ...(request.fence === undefined ? {} : { fence: request.fence }),
      ...(request.onNotice === undefined ? {} : { onNotice: request.onNotice }),
    },
    {
      keyColumns: request.keys,
      sourceQuery: request.query,
      operation,
      base: { metadata: request.metadata, create: request.create },
      ...(request.layoutChange === undefined ? {} : { layoutChange: request.layoutChange }),
      ...(request.deleteKeys === undefined ? {} : { deleteKeysQuery: request.deleteKeys.sql, commitEmpty: request.deleteKeys.commitEmpty }),
      ...(request.stableQuery === true ? { stableSource: true } : {}),
    },
  );
  const after = await request.catalog.loadTable(request.identifier);
  // No rows: nothing was committed; report the table as it is.
  const snapshot = result.snapshot ?? snapshotForRef(after.metadata, MAIN_BRANCH);
  if (snapshot === undefined) {
    throw new InvalidInputError(`Flow "${request.flowName}": ${formatIdentifier(request.identifier)} has no snapshot after the upsert`, {
      context: { flow: request.flowName, table: formatIdentifier(request.identifier) },
    });
  }
  return { table: after, snapshot, attempts: result.attempts, dataFiles: result.addedDataFiles, committed: result.snapshot !== undefined };
}
