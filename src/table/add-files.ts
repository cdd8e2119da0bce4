/**
 * Registers existing Parquet files in a table without rewriting them, as Iceberg's `add_files`
 * procedure and pyiceberg's `add_files` do. Each file's footer is read with ranged reads (the
 * last 8 bytes, then the footer), its columns matched to the schema (parquet-file-match.ts), its
 * metrics and partition taken from the row-group statistics. Every file is validated first:
 * one refused file (it does not fit the schema, spans partitions, is already in the table or
 * named twice) refuses the whole request, naming each refused file, and nothing is committed.
 * Then one append commit. When files without field ids are added to a table without a name
 * mapping, the mapping of the current schema's names is set in the same commit, so other
 * readers (Spark, Trino, pyiceberg) read them by name.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../catalog/catalog.js';
import { formatIdentifier } from '../../catalog/catalog.js';
import { InvalidInputError, StorageError, ThundError } from '../errors.js';
import { DataFileContent, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { NAME_MAPPING_PROPERTY, nameMappingJson, nameMappingOf, parseNameMapping, type NameMapping } from '../iceberg/name-mapping.js';
import { readParquetFooter } from '../iceberg/parquet-footer.js';
import { currentSchema, defaultSpec } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
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

export async function addFiles(request: AddFilesRequest): Promise<AddFilesResult> {
  const { table } = request;
  const plan = await planAddFiles(table.io, table.metadata, formatIdentifier(request.identifier), request.locations);
  if (request.dryRun === true || plan.files.length === 0) return { plan };
  const layoutChange: LayoutChange | undefined =
    plan.nameMapping === undefined ? undefined : { updates: [{ action: 'set-properties', updates: { [NAME_MAPPING_PROPERTY]: plan.nameMapping } }], requirements: [] };
  const result = await commitSnapshot({
    catalog: request.catalog,
    identifier: request.identifier,
    base: { metadata: table.metadata, io: table.io, create: false },
    mode: 'append',
    addedFiles: plan.files,
    ...(layoutChange === undefined ? {} : { layoutChange }),
    ...(request.retryPolicy === undefined ? {} : { retryPolicy: request.retryPolicy }),
  });
  return { plan, snapshotId: result.snapshot.snapshotId };
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
        if (live.has(location)) throw new InvalidInputError(`Cannot add ${location}: it is already a data file of ${table}`, { context: { file: location, table } });
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
  if (refusals.length > 0) {
    const message = refusals.length === 1 ? refusals[0]!.message : `${refusals.length} files refused, nothing added:\n${refusals.map((r) => `  ${r.message}`).join('\n')}`;
    throw new InvalidInputError(message, { cause: refusals[0], context: { table, refused: refusals.length } });
  }
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
