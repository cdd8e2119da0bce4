/**
 * Runs one SQL flow into its target Iceberg table: describe the output, create the table or
 * check the output against it, write Parquet data files, commit one snapshot. A failure before
 * the commit leaves the catalog untouched and removes the data files it wrote.
 */
import type { Catalog, TableIdentifier } from '../../catalog/catalog.js';
import { CommitStateUnknownError, NoSuchTableError } from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { assignFreshIds, checkWriteCompatible } from '../iceberg/schema.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import type { Schema } from '../iceberg/types.js';
import { commitSnapshot, type SnapshotCommitResult, type WriteMode } from '../table/commit-snapshot.js';
import { dataLocation } from '../table/locations.js';
import { writeDataFiles } from '../write/data-file-writer.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { describeFlow, projectNewTable, projectOntoTable } from './flow-output.js';

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
    if (target.create) await ensureNamespace(request.catalog, request.target.namespace);
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

async function resolveTarget(request: FlowRunRequest, output: Awaited<ReturnType<typeof describeFlow>>): Promise<Target> {
  const existing = await loadIfExists(request.catalog, request.target);
  if (existing !== undefined) {
    const projection = checkWriteCompatible(currentSchema(existing), output.fields);
    return { metadata: existing, create: false, query: projectOntoTable(output, projection) };
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

async function ensureNamespace(catalog: Catalog, namespace: readonly string[]): Promise<void> {
  if (namespace.length > 0 && !(await catalog.namespaceExists(namespace))) await catalog.createNamespace(namespace);
}

function currentSchema(metadata: TableMetadata): Schema {
  const schema = metadata.schemas.find((candidate) => candidate.schemaId === metadata.currentSchemaId);
  if (schema === undefined) throw new NoSuchTableError(`Table at ${metadata.location} has no current schema`);
  return schema;
}

