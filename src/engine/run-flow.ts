/**
 * Runs one SQL flow into its target Iceberg table: describe the output, create the table or
 * fit the output to it, write Parquet data files under the table's default partition spec,
 * commit one snapshot. With the table property
 * `thund.schema.auto-evolve` (default true) the table's schema evolves to take new columns and
 * widened types (schema-evolution.ts); with it false the output must fit the schema as it is.
 * An evolved schema is committed in the same commit as the snapshot. A failure before the commit
 * leaves the catalog untouched and removes the data files it wrote. An upsert (`mode: upsert`,
 * streaming update mode, apply-changes) fits its rows the same way and commits through
 * upsert-flow.ts, the run that creates the table included, so every run obeys the key rules.
 */
import { formatIdentifier, type Catalog, type LoadedTable, type TableIdentifier } from '../../catalog/catalog.js';
import { ensureNamespace } from '../../catalog/ensure-namespace.js';
import {
  CommitConflictError,
  CommitStateUnknownError,
  ConcurrentSchemaChangeError,
  InvalidInputError,
  NoSuchTableError,
  SchemaMismatchError,
} from '../errors.js';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { assignFreshIds, checkWriteCompatible, type ColumnProjection } from '../iceberg/schema.js';
import { evolveSchema, type SchemaEvolution, type SchemaEvolutionChange } from '../iceberg/schema-evolution.js';
import { schemaUpdate } from '../iceberg/schema-update.js';
import { applyUpdates } from '../iceberg/metadata-builder.js';
import type { PartitionField as PartitionTerm } from '../pipeline/ir/partition-field.js';
import { newTablePartitionSpec, partitionSpecEvolution } from './target-partitioning.js';
import { checkKeysProduced, upsertInto, type DeleteKeys } from './upsert-flow.js';
import { currentSchema, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import type { PartitionSpec, TableMetadata } from '../iceberg/table-metadata.js';
import type { Schema } from '../iceberg/types.js';
import type { CommitNoticeSink } from '../table/commit-notice.js';
import { commitSnapshot, type CommitFence, type LayoutChange, type SnapshotCommitResult, type WriteMode } from '../table/commit-snapshot.js';
import { dataLocation } from '../table/locations.js';
import { writePartitionedDataFiles } from '../write/partitioned-data-file-writer.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { describeFlow, projectEvolved, projectNewTable, projectOntoTable, type FlowOutput } from './flow-output.js';

/**
 * Table property: `true` evolves the table's schema to take a flow's new columns and wider types;
 * `false` keeps it and fails on any difference; `ignore-new` keeps it, leaves output columns the
 * table lacks unwritten and writes null for table columns the output lacks (a stream whose
 * records gain and lose fields, as `thund serve --topic` lands them).
 */
export const AUTO_EVOLVE_PROPERTY = 'thund.schema.auto-evolve';
type AutoEvolve = 'true' | 'false' | 'ignore-new';
const AUTO_EVOLVE_DEFAULT: AutoEvolve = 'true';
/** A concurrent schema change between our evolution and its commit: evolve again from the new schema. */
const SCHEMA_COMMIT_ATTEMPTS = 3;

export interface FlowRunRequest {
  readonly session: DuckDbSession;
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly flowName: string;
  readonly sql: string;
  readonly target: TableIdentifier;
  readonly mode: WriteMode | 'upsert';
  /** Key columns of an upsert. */
  readonly keys?: readonly string[];
  /** An upsert's rows to delete, named apart from the rows `sql` adds (an apply-changes change set). */
  readonly deleteKeys?: DeleteKeys;
  /**
   * `sql` reads only tables nothing changes while the flow writes, so every read gives the same
   * rows: an upsert reads it where it is rather than copying the rows first (UpsertRequest.stableSource).
   */
  readonly stableSql?: boolean;
  readonly tableProperties: Readonly<Record<string, string>>;
  readonly summaryProperties: Readonly<Record<string, string>>;
  /** The partitioning the table should have; undefined leaves an existing table's spec as it is. */
  readonly partitionedBy?: readonly PartitionTerm[];
  /** Checked before every commit attempt: a streaming batch's source positions must still be the table's. */
  readonly fence?: CommitFence;
  /** Told about lost answers, 409 retries and fenced commits (commit-notice.ts). */
  readonly onNotice?: CommitNoticeSink;
}

export interface FlowRunResult extends SnapshotCommitResult {
  readonly flowName: string;
  readonly created: boolean;
  readonly dataFiles: readonly DataFile[];
  /** Columns added and types widened in the table's schema by this run (empty when none). */
  readonly schemaChanges: readonly SchemaEvolutionChange[];
  /** Optional table columns the flow did not produce; written as nulls. */
  readonly absentColumns: readonly string[];
}

interface Target {
  readonly metadata: TableMetadata;
  readonly io: FileIO;
  readonly create: boolean;
  readonly query: string;
  /** The schema the data files are written with (the evolved one when the schema changes). */
  readonly schema: Schema;
  /** The spec the data files are written with (the evolved one when partitioning changes). */
  readonly spec: PartitionSpec;
  /** Schema and partition spec updates committed with the snapshot. */
  readonly layoutChange?: LayoutChange;
  readonly evolution?: SchemaEvolution;
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
  const keys = request.mode === 'upsert' ? checkKeysProduced(output, request.target, request.keys) : undefined;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return keys === undefined ? await writeAndCommitOnce(request, output) : await upsertOnce(request, output, keys);
    } catch (error) {
      if (!(error instanceof ConcurrentSchemaChangeError)) throw error;
      if (attempt >= SCHEMA_COMMIT_ATTEMPTS) {
        const table = formatIdentifier(request.target);
        throw new CommitConflictError(
          `Flow "${request.flowName}": the schema of ${table} kept changing under concurrent writers; nothing was written, run again (${error.message})`,
          { cause: error, retryable: false, context: { flow: request.flowName, table } },
        );
      }
    }
  }
}

async function writeAndCommitOnce(request: FlowRunRequest, output: FlowOutput): Promise<FlowRunResult> {
  const target = await resolveTarget(request, output);
  const dataFiles = await writePartitionedDataFiles({
    session: request.session,
    query: target.query,
    schema: target.schema,
    spec: target.spec,
    dataLocation: dataLocation(target.metadata),
    io: target.io,
    properties: target.metadata.properties,
    writerName: `flow "${request.flowName}"`,
  });
  try {
    const result = await commitSnapshot({
      catalog: request.catalog,
      identifier: request.target,
      base: { metadata: target.metadata, io: target.io, create: target.create },
      mode: request.mode === 'upsert' ? 'append' : request.mode,
      addedFiles: dataFiles,
      summaryProperties: request.summaryProperties,
      ...(target.layoutChange === undefined ? {} : { layoutChange: target.layoutChange }),
      ...(request.fence === undefined ? {} : { fence: request.fence }),
      ...(request.onNotice === undefined ? {} : { onNotice: request.onNotice }),
    });
    return {
      ...result,
      flowName: request.flowName,
      created: target.create,
      dataFiles,
      schemaChanges: target.evolution?.changes ?? [],
      absentColumns: target.evolution?.absentColumns ?? [],
    };
  } catch (error) {
    if (!(error instanceof CommitStateUnknownError)) {
      await Promise.all(dataFiles.map((file) => target.io.delete(file.filePath).catch(() => undefined)));
    }
    throw error;
  }
}

async function upsertOnce(request: FlowRunRequest, output: FlowOutput, keys: readonly string[]): Promise<FlowRunResult> {
  const target = await resolveTarget(request, output);
  const outcome = await upsertInto({
    session: request.session,
    catalog: request.catalog,
    identifier: request.target,
    flowName: request.flowName,
    keys,
    summaryProperties: request.summaryProperties,
    metadata: target.metadata,
    io: target.io,
    create: target.create,
    query: target.query,
    ...(target.layoutChange === undefined ? {} : { layoutChange: target.layoutChange }),
    ...(request.deleteKeys === undefined ? {} : { deleteKeys: request.deleteKeys }),
    ...(request.stableSql === true ? { stableQuery: true } : {}),
    ...(request.fence === undefined ? {} : { fence: request.fence }),
    ...(request.onNotice === undefined ? {} : { onNotice: request.onNotice }),
  });
  const evolved = outcome.committed ? target.evolution : undefined;
  return {
    table: outcome.table,
    snapshot: outcome.snapshot,
    attempts: outcome.attempts,
    flowName: request.flowName,
    created: target.create,
    dataFiles: outcome.dataFiles,
    schemaChanges: evolved?.changes ?? [],
    absentColumns: evolved?.absentColumns ?? [],
  };
}

async function resolveTarget(request: FlowRunRequest, output: FlowOutput): Promise<Target> {
  const loaded = await loadIfExists(request.catalog, request.target);
  if (loaded !== undefined) {
    // The loaded table's FileIO: it carries the catalog's vended credentials, if any.
    const { metadata: existing, io } = loaded;
    const mode = autoEvolve(request, existing);
    if (mode === 'false') {
      const query = projectOntoTable(output, projectionOnto(request, existing, output));
      return withPartitioning(request, withFormatUpgrade(request, { metadata: existing, io, create: false, query, schema: currentSchema(existing), spec: defaultSpec(existing) }));
    }
    const tableColumns = new Set(currentSchema(existing).fields.map((f) => f.name.toLowerCase()));
    const kept = mode === 'ignore-new' ? { ...output, fields: output.fields.filter((f) => tableColumns.has(f.name.toLowerCase())) } : output;
    const evolution = evolveOnto(request, existing, kept);
    const update = schemaUpdate(existing, evolution.fields);
    const query = projectEvolved(output, evolution.columns);
    const layoutChange = update.updates.length === 0 ? undefined : { updates: update.updates, requirements: update.requirements };
    const target: Target = { metadata: existing, io, create: false, query, schema: update.schema, spec: defaultSpec(existing), evolution };
    return withPartitioning(request, withFormatUpgrade(request, layoutChange === undefined ? target : { ...target, layoutChange }));
  }
  const { fields } = assignFreshIds(output.fields);
  const create = { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: request.tableProperties };
  let metadata = await request.catalog.stageCreateTable(request.target, create);
  if (request.partitionedBy !== undefined && request.partitionedBy.length > 0) {
    const partitionSpec = newTablePartitionSpec(metadata, request.partitionedBy);
    metadata = await request.catalog.stageCreateTable(request.target, { ...create, partitionSpec });
  }
  const schema = currentSchema(metadata);
  // The staged table's FileIO: the stage-create answer may have vended credentials for its files.
  const io = request.catalog.tableIO?.(request.target) ?? request.io;
  return { metadata, io, create: true, query: projectNewTable(output, schema.fields), schema, spec: defaultSpec(metadata) };
}

/**
 * Upgrades an existing table to the `format-version` the pipeline's table properties ask for, in
 * the run's commit (as Spark's ALTER TABLE … SET TBLPROPERTIES does); a lower version than the
 * table's is refused, since a format version never goes down.
 */
function withFormatUpgrade(request: FlowRunRequest, target: Target): Target {
  const wanted = request.tableProperties['format-version'];
  if (wanted === undefined) return target;
  const version = Number(wanted);
  const current = target.metadata.formatVersion;
  if (!Number.isInteger(version) || version < 1 || version > 3) {
    throw new InvalidInputError(`Table ${formatIdentifier(request.target)}: property format-version must be 1, 2 or 3, got "${wanted}"`, { context: { table: formatIdentifier(request.target), field: 'format-version' } });
  }
  if (version === current) return target;
  if (version < current) {
    throw new InvalidInputError(`Table ${formatIdentifier(request.target)} is format v${current}; the pipeline asks for format-version ${version}, and a table's format version never goes down`, {
      context: { table: formatIdentifier(request.target), field: 'format-version' },
    });
  }
  const upgrade = { action: 'upgrade-format-version' as const, formatVersion: version as 2 | 3 };
  return { ...target, layoutChange: { updates: [upgrade, ...(target.layoutChange?.updates ?? [])], requirements: [...(target.layoutChange?.requirements ?? [])] } };
}

/**
 * Adds the partition spec evolution `partitioned_by` asks for, computed on the table as it will
 * be after the schema change (a new column may be a partition source).
 */
function withPartitioning(request: FlowRunRequest, target: Target): Target {
  if (request.partitionedBy === undefined) return target;
  const staged = target.layoutChange === undefined ? target.metadata : applyUpdates(target.metadata, target.layoutChange.updates);
  const evolution = partitionSpecEvolution(staged, request.partitionedBy);
  if (evolution === undefined || evolution.updates.length === 0) return target;
  return {
    ...target,
    spec: evolution.spec,
    layoutChange: {
      updates: [...(target.layoutChange?.updates ?? []), ...evolution.updates],
      requirements: [...(target.layoutChange?.requirements ?? []), ...evolution.requirements],
    },
  };
}

/**
 * The pipeline's table properties say what the user wants now, so they win over the value stored
 * in the table (stored only when the pipeline created it).
 */
function autoEvolve(request: FlowRunRequest, table: TableMetadata): AutoEvolve {
  const value = request.tableProperties[AUTO_EVOLVE_PROPERTY] ?? table.properties[AUTO_EVOLVE_PROPERTY];
  if (value === undefined) return AUTO_EVOLVE_DEFAULT;
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true' || normalized === 'false' || normalized === 'ignore-new') return normalized;
  throw new InvalidInputError(`Table ${formatIdentifier(request.target)}: property ${AUTO_EVOLVE_PROPERTY} must be true, false or ignore-new, got "${value}"`, {
    context: { table: formatIdentifier(request.target), property: AUTO_EVOLVE_PROPERTY },
  });
}

function evolveOnto(request: FlowRunRequest, table: TableMetadata, output: FlowOutput): SchemaEvolution {
  const name = formatIdentifier(request.target);
  try {
    return evolveSchema({ table: name, fields: currentSchema(table).fields, lastColumnId: table.lastColumnId, incoming: output.fields });
  } catch (error) {
    if (!(error instanceof SchemaMismatchError)) throw error;
    throw new SchemaMismatchError(`Flow "${request.flowName}" cannot write to ${name}: ${error.message}`, {
      cause: error,
      context: { ...error.context, flow: request.flowName },
    });
  }
}

async function loadIfExists(catalog: Catalog, identifier: TableIdentifier): Promise<LoadedTable | undefined> {
  try {
    return await catalog.loadTable(identifier);
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


