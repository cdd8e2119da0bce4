/**
 * Registers existing Parquet files in a table without rewriting them, as Iceberg's `add_files`
 * procedure and pyiceberg's `add_files` do. Each file's footer is read with ranged reads (the
 * last 8 bytes, then the footer), its columns matched to the schema (parquet-file-match.ts), its
 * metrics and partition taken from the row-group statistics. Every file is validated first:
 * one refused file (it does not fit the schema, spans partitions, is already in the table or
 * named twice) refuses the whole request, naming each refused file, and nothing is committed.
 * Then one append commit; when another writer committed first, the plan is checked again on
 * its table (a file it added meanwhile is refused), never committed unchecked. When files without field ids are added to a table without a name
 * mapping, the mapping of the current schema's names is set in the same commit, so other
 * readers (Spark, Trino, pyiceberg) read them by name.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../catalog/catalog.js';
import { formatIdentifier } from '../../catalog/catalog.js';
import { CommitConflictError, InvalidInputError, StorageError, ThundError } from '../errors.js';
import { DataFileContent, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { NAME_MAPPING_PROPERTY, nameMappingJson, nameMappingOf, parseNameMapping, type NameMapping } from '../iceberg/name-mapping.js';
import { readParquetFooter } from '../iceberg/parquet-footer.js';
import { currentSchema, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type TableMetadata } from '../iceberg/table-metadata.js';
import { dataFileMetrics, metricsConfigFromProperties } from '../write/data-file-metrics.js';
import { derivePartition } from './added-file-partition.js';
import { columnStatistics, leafStats } from './added-file-stats.js';
import { commitSnapshot, type LayoutChange } from './commit-snapshot.js';
import { matchFileColumns } from './parquet-file-match.js';
import type { RetryPolicy } from './retry-policy.js';
import { liveDataFiles } from './scan.js';

/** What registering the files adds, decided before anything is committed. */
export interface AddFilesPlan {
  readonly files: readonly DataFile[];
  readonly rows: bigint;
  readonly bytes: bigint;
  /** The name mapping set with the commit, when the table had none and a file has no field ids. */
  readonly nameMapping?: string;
}

export interface AddFilesResult {
  readonly plan: AddFilesPlan;
  /** Undefined for a dry run. */
  readonly snapshotId?: bigint;
}

export interface AddFilesRequest {
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  readonly table: LoadedTable;
  /** Full URIs (file:///…, s3://…) of the Parquet files. */
  readonly locations: readonly string[];
  readonly dryRun?: boolean;
  readonly retryPolicy?: RetryPolicy;
}

/** How many footers are read at a time. */
const PARALLEL_FOOTERS = 8;

/** How many times a commit is planned again on a table that moved (each time another writer committed first). */
const MAX_REPLANS = 10;

/** Thrown by the fence when the table moved: the plan is checked against the new table before it is committed on it. */
class TableMoved extends Error {}

const mainSnapshotId = (metadata: TableMetadata): bigint | undefined => metadata.refs.get(MAIN_BRANCH)?.snapshotId;

export async function addFiles(request: AddFilesRequest): Promise<AddFilesResult> {
  const name = formatIdentifier(request.identifier);
  let table = request.table;
  let plan = await planAddFiles(table.io, table.metadata, name, request.locations);
  if (request.dryRun === true || plan.files.length === 0) return { plan };
  for (let replans = 0; ; replans++) {
    const layoutChange: LayoutChange | undefined =
      plan.nameMapping === undefined ? undefined : { updates: [{ action: 'set-properties', updates: { [NAME_MAPPING_PROPERTY]: plan.nameMapping } }], requirements: [] };
    const base = mainSnapshotId(table.metadata);
    try {
      const result = await commitSnapshot({
        catalog: request.catalog,
        identifier: request.identifier,
        base: { metadata: table.metadata, io: table.io, create: false },
        mode: 'append',
        addedFiles: plan.files,
        ...(layoutChange === undefined ? {} : { layoutChange }),
        ...(request.retryPolicy === undefined ? {} : { retryPolicy: request.retryPolicy }),
        // Another writer may have added one of these files meanwhile: never commit on a table not checked.
        fence: (current) => {
          if (mainSnapshotId(current) !== base) throw new TableMoved();
        },
      });
      return { plan, snapshotId: result.snapshot.snapshotId };
    } catch (error) {
      if (!(error instanceof TableMoved)) throw error;
      if (replans >= MAX_REPLANS) {
        throw new CommitConflictError(`${name} moved under add-files ${MAX_REPLANS + 1} times (other writers committing); nothing was added, run again`, {
          context: { table: name },
        });
      }
    }
    const moved = await request.catalog.loadTable(request.identifier);
    plan = sameLayout(table.metadata, moved.metadata) ? await checkedAgain(moved.io, moved.metadata, name, plan) : await planAddFiles(moved.io, moved.metadata, name, request.locations);
    table = moved;
  }
}

/** Whether a plan made on `before` holds on `after`: same schema and spec, same properties (name mapping, metrics modes). */
function sameLayout(before: TableMetadata, after: TableMetadata): boolean {
  return before.currentSchemaId === after.currentSchemaId && before.defaultSpecId === after.defaultSpecId && JSON.stringify(before.properties) === JSON.stringify(after.properties);
}

/** The plan, unless a file of it is now a data file of the table (refused as planAddFiles refuses it). */
async function checkedAgain(io: FileIO, metadata: TableMetadata, table: string, plan: AddFilesPlan): Promise<AddFilesPlan> {
  const live = new Set((await liveDataFiles(io, metadata)).map((file) => file.filePath));
  const refusals = plan.files.filter((file) => live.has(file.filePath)).map((file) => alreadyInTable(file.filePath, table));
  if (refusals.length > 0) throw refusedFiles(table, refusals);
  return plan;
}

function alreadyInTable(location: string, table: string): InvalidInputError {
  return new InvalidInputError(`Cannot add ${location}: it is already a data file of ${table}`, { context: { file: location, table } });
}

function refusedFiles(table: string, refusals: readonly ThundError[]): InvalidInputError {
  const message = refusals.length === 1 ? refusals[0]!.message : `${refusals.length} files refused, nothing added:\n${refusals.map((r) => `  ${r.message}`).join('\n')}`;
  return new InvalidInputError(message, { cause: refusals[0], context: { table, refused: refusals.length } });
}

/** Validates every file and builds its DataFile; throws one InvalidInputError naming every refused file. */
export async function planAddFiles(io: FileIO, metadata: TableMetadata, table: string, locations: readonly string[]): Promise<AddFilesPlan> {
  if (locations.length === 0) throw new InvalidInputError(`add-files for ${table}: no files given`, { context: { table } });
  const refusals: ThundError[] = [];
  const seen = new Set<string>();
  for (const location of locations) {
    if (seen.has(location)) refusals.push(new InvalidInputError(`Cannot add ${location}: it is named twice in the request`, { context: { file: location } }));
    seen.add(location);
  }
  const live = new Set((await liveDataFiles(io, metadata)).map((file) => file.filePath));
  const mappingText = metadata.properties[NAME_MAPPING_PROPERTY];
  const mapping = mappingText === undefined ? nameMappingOf(currentSchema(metadata)) : parseNameMapping(mappingText, table);
  const unique = [...seen];
  const files: DataFile[] = [];
  let byName = false;
  for (let start = 0; start < unique.length; start += PARALLEL_FOOTERS) {
    const batch = unique.slice(start, start + PARALLEL_FOOTERS);
    const outcomes = await Promise.allSettled(
      batch.map(async (location) => {
        if (live.has(location)) throw alreadyInTable(location, table);
        return describeFile(io, metadata, mapping, location);
      }),
    );
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        if (!(outcome.reason instanceof ThundError)) throw outcome.reason;
        refusals.push(outcome.reason);
        continue;
      }
      files.push(outcome.value.file);
      byName ||= !outcome.value.byFieldId;
    }
  }
  if (refusals.length > 0) throw refusedFiles(table, refusals);
  return {
    files,
    rows: files.reduce((sum, file) => sum + file.recordCount, 0n),
    bytes: files.reduce((sum, file) => sum + file.fileSizeInBytes, 0n),
    ...(byName && mappingText === undefined ? { nameMapping: nameMappingJson(mapping) } : {}),
  };
}

async function describeFile(io: FileIO, metadata: TableMetadata, mapping: NameMapping, location: string): Promise<{ file: DataFile; byFieldId: boolean }> {
  const readRange = io.readRange?.bind(io);
  if (readRange === undefined) {
    throw new StorageError(`Cannot add ${location}: its storage has no ranged reads`, { context: { file: location } });
  }
  const size = await io.length(location);
  const footer = await readParquetFooter(location, Number(size), (offset, length) => readRange(location, offset, length));
  const schema = currentSchema(metadata);
  const spec = defaultSpec(metadata);
  const columns = matchFileColumns(location, footer, schema, mapping);
  const stats = leafStats(schema, footer, columns.leaves);
  const file: DataFile = {
    content: DataFileContent.Data,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: spec.specId,
    partition: derivePartition(location, schema, spec, stats),
    recordCount: footer.numRows,
    fileSizeInBytes: size,
    ...dataFileMetrics(schema, metricsConfigFromProperties(metadata.properties), columnStatistics(schema, footer, columns.leaves, stats)),
  };
  for (const field of schema.fields) {
    // From the statistics, not the metrics: a metrics mode of `none` keeps no null counts.
    if (field.required && stats.get(field.id)?.rowGroups.some((group) => (group.nullCount ?? 0n) > 0n) === true) {
      throw new InvalidInputError(`Cannot add ${location}: column ${field.name} is required by the table but holds nulls in the file`, {
        context: { file: location, column: field.name },
      });
    }
  }
  return { file, byFieldId: columns.byFieldId };
}
