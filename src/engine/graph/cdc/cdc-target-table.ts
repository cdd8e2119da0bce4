/**
 * Whole-table writes of an apply-changes target, each one snapshot: creating the table from the
 * operator's target rows (schema from their columns, all optional, with the dataset's
 * partitioning and properties) together with its first snapshot, and replacing every row of an
 * existing table (a full refresh). Row-level batches go through upsert with delete keys instead.
 */
import { formatIdentifier, type Catalog, type LoadedTable, type TableIdentifier } from '../../../../catalog/catalog.js';
import { AlreadyExistsError, CommitStateUnknownError, SchemaMismatchError } from '../../../errors.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { assignFreshIds, checkWriteCompatible } from '../../../iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../../iceberg/snapshot-ancestry.js';
import type { Snapshot, TableMetadata } from '../../../iceberg/table-metadata.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { TableDataset } from '../../../pipeline/ir/dataset.js';
import { commitSnapshot, type CommitMode } from '../../../table/commit-snapshot.js';
import { dataLocation } from '../../../table/locations.js';
import { writePartitionedDataFiles } from '../../../write/partitioned-data-file-writer.js';
import { describeFlow, projectNewTable, projectOntoTable } from '../../flow-output.js';
import { newTablePartitionSpec } from '../../target-partitioning.js';

export interface CdcTargetTable {
  readonly session: DuckDbSession;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly identifier: TableIdentifier;
  readonly dataset: TableDataset;
  readonly flowName: string;
  readonly summary: Readonly<Record<string, string>>;
}

/** Creates the table with the rows of `query` as its first snapshot (an empty one when it has none). */
export async function createWithRows(target: CdcTargetTable, query: string): Promise<Snapshot> {
  const output = await describeFlow(target.session, target.flowName, query);
  await ensureNamespace(target.catalog, target.identifier.namespace);
  const { fields } = assignFreshIds(output.fields);
  const create = { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: target.dataset.table.properties };
  let metadata = await target.catalog.stageCreateTable(target.identifier, create);
  if (target.dataset.table.partitioning.length > 0) {
    const partitionSpec = newTablePartitionSpec(metadata, target.dataset.table.partitioning);
    metadata = await target.catalog.stageCreateTable(target.identifier, { ...create, partitionSpec });
  }
  const rows = projectNewTable(output, currentSchema(metadata).fields);
  return writeAndCommit(target, { metadata, io: target.io, create: true }, rows, 'append');
}

/** Replaces every row of `table` with the rows of `query`, fitted to the table's schema. */
export async function replaceRows(target: CdcTargetTable, table: LoadedTable, query: string): Promise<Snapshot> {
  const output = await describeFlow(target.session, target.flowName, query);
  let projection;
  try {
    projection = checkWriteCompatible(currentSchema(table.metadata), output.fields);
  } catch (error) {
    if (!(error instanceof SchemaMismatchError)) throw error;
    throw new SchemaMismatchError(`Flow "${target.flowName}" cannot replace the rows of ${formatIdentifier(target.identifier)}: ${error.message}`, {
      cause: error,
      context: { ...error.context, flow: target.flowName },
    });
  }
  return writeAndCommit(target, { metadata: table.metadata, io: table.io, create: false }, projectOntoTable(output, projection), 'overwrite');
}

async function writeAndCommit(
  target: CdcTargetTable,
  base: { readonly metadata: TableMetadata; readonly io: FileIO; readonly create: boolean },
  query: string,
  mode: CommitMode & ('append' | 'overwrite'),
): Promise<Snapshot> {
  const files: DataFile[] = await writePartitionedDataFiles({
    session: target.session,
    query,
    schema: currentSchema(base.metadata),
    spec: defaultSpec(base.metadata),
    dataLocation: dataLocation(base.metadata),
    io: base.io,
    properties: base.metadata.properties,
    writerName: `flow "${target.flowName}"`,
  });
  try {
    const result = await commitSnapshot({ catalog: target.catalog, identifier: target.identifier, base, mode, addedFiles: files, summaryProperties: target.summary });
    return result.snapshot;
  } catch (error) {
    if (!(error instanceof CommitStateUnknownError)) await Promise.all(files.map((file) => base.io.delete(file.filePath).catch(() => undefined)));
    throw error;
  }
}

async function ensureNamespace(catalog: Catalog, namespace: readonly string[]): Promise<void> {
  if (namespace.length === 0 || (await catalog.namespaceExists(namespace))) return;
  await catalog.createNamespace(namespace).catch((error: unknown) => {
    if (!(error instanceof AlreadyExistsError)) throw error;
  });
}
