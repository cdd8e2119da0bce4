/**
 * Runs one SQL flow into its target Iceberg table: describe the output, create the table or
 * check the output against it, write Parquet data files, commit one snapshot. A failure before
 * the commit leaves the catalog untouched and removes the data files it wrote.
 */
import { formatIdentifier, type Catalog, type TableIdentifier } from '../../catalog/catalog.js';
import { CommitStateUnknownError, NoSuchTableError, SchemaMismatchError } from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { assignFreshIds, checkWriteCompatible, type ColumnProjection } from '../iceberg/schema.js';
import { currentSchema } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import { commitSnapshot, type SnapshotCommitResult, type WriteMode } from '../table/commit-snapshot.js';
import { dataLocation } from '../table/locations.js';
import { writeDataFiles } from '../write/data-file-writer.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { describeFlow, projectNewTable, projectOntoTable, type FlowOutput } from './flow-output.js';

export interface FlowRunRequest {
  readonly session: DuckDbSession;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly flowName: string;
  readonly sql: string;
  readonly target: TableIdentifier;
  readonly mode: WriteMode;
  readonly tableProperties: Readonly<Record<string, string>>;
  readonly summaryProperties: Readonly<Record<string, string>>;
}

export interface FlowRunResult extends SnapshotCommitResult {
  readonly flowName: string;
  readonly created: boolean;
  readonly dataFiles: readonly DataFile[];
}

interface Target {
  readonly metadata: TableMetadata;
  readonly create: boolean;
  readonly query: string;
}

export async function runFlow(request: FlowRunRequest): Promise<FlowRunResult> {
  const output = await describeFlow(request.session, request.flowName, request.sql);
  const createdNamespace = await ensureNamespace(request.catalog, request.target.namespace);
  try {
    return await writeAndCommit(request, output);
  } catch (error) {
    if (createdNamespace) await request.catalog.dropNamespace(request.target.namespace).catch(() => undefined);
    throw error;
  }
}

async function writeAndCommit(request: FlowRunRequest, output: FlowOutput): Promise<FlowRunResult> {
  const target = await resolveTarget(request, output);
  const schema = currentSchema(target.metadata);
  const dataFiles = await writeDataFiles({
    session: request.session,
    query: target.query,
    schema,
    specId: target.metadata.defaultSpecId,
    dataLocation: dataLocation(target.metadata),
    io: request.io,
    properties: target.metadata.properties,
    writerName: `flow "${request.flowName}"`,
  });
  try {
    const result = await commitSnapshot({
      catalog: request.catalog,
      identifier: request.target,
      base: { metadata: target.metadata, io: request.io, create: target.create },
      mode: request.mode,
      addedFiles: dataFiles,
      summaryProperties: request.summaryProperties,
    });
    return { ...result, flowName: request.flowName, created: target.create, dataFiles };
  } catch (error) {
    if (!(error instanceof CommitStateUnknownError)) {
      await Promise.all(dataFiles.map((file) => request.io.delete(file.filePath).catch(() => undefined)));
    }
    throw error;
  }
}

async function resolveTarget(request: FlowRunRequest, output: FlowOutput): Promise<Target> {
  const existing = await loadIfExists(request.catalog, request.target);
  if (existing !== undefined) {
    return { metadata: existing, create: false, query: projectOntoTable(output, projectionOnto(request, existing, output)) };
  }
  const { fields } = assignFreshIds(output.fields);
  const metadata = await request.catalog.stageCreateTable(request.target, {
    schema: { schemaId: 0, identifierFieldIds: [], fields },
    properties: request.tableProperties,
  });
  return { metadata, create: true, query: projectNewTable(output, currentSchema(metadata).fields) };
}

async function loadIfExists(catalog: Catalog, identifier: TableIdentifier): Promise<TableMetadata | undefined> {
  try {
    return (await catalog.loadTable(identifier)).metadata;
  } catch (error) {
    if (error instanceof NoSuchTableError) return undefined;
    throw error;
  }
}

function projectionOnto(request: FlowRunRequest, table: TableMetadata, output: FlowOutput): ColumnProjection[] {
  try {
    return checkWriteCompatible(currentSchema(table), output.fields);
  } catch (error) {
    if (!(error instanceof SchemaMismatchError)) throw error;
    throw new SchemaMismatchError(
      `Flow "${request.flowName}" cannot write to ${formatIdentifier(request.target)}: its output does not match the table's schema: ${error.message}`,
      { cause: error, context: { ...error.context, flow: request.flowName, table: formatIdentifier(request.target) } },
    );
  }
}

/** True when this run created the namespace (so a failed run can remove it again). */
async function ensureNamespace(catalog: Catalog, namespace: readonly string[]): Promise<boolean> {
  if (namespace.length === 0 || (await catalog.namespaceExists(namespace))) return false;
  await catalog.createNamespace(namespace);
  return true;
}

