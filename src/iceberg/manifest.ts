/**
 * Manifest files (spec §3.2): `manifest_entry` records in an Avro container, with the required
 * file metadata keys, and reading them back by field id with §3.3 inheritance applied.
 */
import { IcebergFormatError } from '../errors.js';
import { compareForPartitionSummary, encodeSingleValue } from './bounds.js';
import { DataFileContent, ManifestContent, ManifestEntryStatus } from './data-file.js';
import type { DataFile, FieldSummary, FileFormat, ManifestEntry, ManifestFile } from './data-file.js';
import { stringifyJson } from './json.js';
import { findField } from './schema.js';
import type { PartitionSpec } from './table-metadata.js';
import { schemaToJson } from './type-json.js';
import { primitive } from './types.js';
import type { Schema } from './types.js';
import { readContainer, writeContainer } from './avro/container.js';
import type { AvroCodec } from './avro/container.js';
import { collectNamedTypes, RecordView, resolveSchema } from './avro/field-view.js';
import { avroFieldName, manifestEntrySchema } from './avro/manifest-schemas.js';
import type { ManifestFormatVersion, PartitionFieldType } from './avro/manifest-schemas.js';
import { fromAvroPartitionValue, toAvroPartitionValue } from './avro/partition-values.js';
import { readDataFile } from './manifest-data-file.js';
import { transformResultType } from './transforms/result-type.js';
import { parseTransform } from './transforms/transform.js';

export type { PartitionFieldType } from './avro/manifest-schemas.js';

/**
 * The partition tuple type of a spec: each field's transform result type (spec §5), with a typed
 * error naming the field when a transform is unknown or does not accept its source type.
 */
export function partitionType(spec: PartitionSpec, schema: Schema): PartitionFieldType[] {
  return spec.fields.map((field) => {
    const transform = parseTransform(field.transform);
    const found = findField(schema, field.sourceId);
    if (found === undefined) {
      // A void field may outlive its dropped source column; its values are all null.
      if (transform.kind === 'void') return { fieldId: field.fieldId, name: field.name, type: primitive('int') };
      throw new IcebergFormatError(`Partition field ${field.name}: source column ${field.sourceId} is not in the schema`, {
        context: { partitionField: field.name, sourceId: field.sourceId },
      });
    }
    const site = { partitionField: field.name, sourceColumn: found.path.join('.') };
    return { fieldId: field.fieldId, name: field.name, type: transformResultType(transform, found.field.type, site) };
  });
}

export interface WriteManifestArgs {
  readonly entries: readonly ManifestEntry[];
  readonly spec: PartitionSpec;
  /** From `partitionType(spec, schema)`. */
  readonly partitionType: readonly PartitionFieldType[];
  readonly schema: Schema;
  /** The table schema JSON for the `schema` key; derived from `schema` when omitted. */
  readonly schemaJsonText?: string;
  readonly formatVersion: ManifestFormatVersion;
  readonly content: ManifestContent;
  /** The snapshot writing this manifest: snapshot_id of ADDED and DELETED entries. */
  readonly snapshotId: bigint;
  readonly codec?: AvroCodec;
}

export type ManifestSummary = Omit<ManifestFile, 'manifestPath' | 'manifestLength' | 'sequenceNumber' | 'minSequenceNumber'> & {
  readonly partitions: FieldSummary[];
  /**
   * Smallest explicit data sequence number among live (ADDED/EXISTING) entries; null when every
   * live entry inherits, in which case min_sequence_number is the snapshot's sequence number.
   */
  readonly minDataSequenceNumber: bigint | null;
};

export function writeManifest(args: WriteManifestArgs): { bytes: Uint8Array; summary: ManifestSummary } {
  const { entries, spec, formatVersion, content, snapshotId } = args;
  const fields = args.partitionType;
  const records = entries.map((entry, i) => entryRecord(entry, i, args));

  let added = 0;
  let existing = 0;
  let deleted = 0;
  let addedRows = 0n;
  let existingRows = 0n;
  let deletedRows = 0n;
  let minSeq: bigint | null = null;
  for (const entry of entries) {
    const rows = entry.dataFile.recordCount;
    if (entry.status === ManifestEntryStatus.Added) (added++, (addedRows += rows));
    else if (entry.status === ManifestEntryStatus.Existing) (existing++, (existingRows += rows));
    else (deleted++, (deletedRows += rows));
    if (entry.status !== ManifestEntryStatus.Deleted && entry.sequenceNumber !== null) {
      if (minSeq === null || entry.sequenceNumber < minSeq) minSeq = entry.sequenceNumber;
    }
  }

  const metadata: Record<string, string> = {
    schema: args.schemaJsonText ?? stringifyJson(schemaToJson(args.schema)),
    'schema-id': String(args.schema.schemaId),
    'partition-spec': JSON.stringify(
      spec.fields.map((f) => ({ name: f.name, transform: f.transform, 'source-id': f.sourceId, 'field-id': f.fieldId })),
    ),
    'partition-spec-id': String(spec.specId),
    'format-version': String(formatVersion),
    content: content === ManifestContent.Data ? 'data' : 'deletes',
  };
  const bytes = writeContainer({
    schema: manifestEntrySchema(formatVersion, fields),
    metadata,
    records,
    codec: args.codec ?? 'deflate',
  });
  return {
    bytes,
    summary: {
      partitionSpecId: spec.specId,
      content,
      addedSnapshotId: snapshotId,
      addedFilesCount: added,
      existingFilesCount: existing,
      deletedFilesCount: deleted,
      addedRowsCount: addedRows,
      existingRowsCount: existingRows,
      deletedRowsCount: deletedRows,
      partitions: fieldSummaries(fields, entries),
      keyMetadata: null,
      firstRowId: null,
      minDataSequenceNumber: minSeq,
    },
  };
}

function entryRecord(entry: ManifestEntry, index: number, args: WriteManifestArgs): Record<string, unknown> {
  const file = entry.dataFile;
  const where = `manifest entry ${index} (${file.filePath})`;
  const fail = (message: string): IcebergFormatError =>
    new IcebergFormatError(`${where}: ${message}`, { context: { entry: index, file: file.filePath } });
  if (file.specId !== args.spec.specId) throw fail(`partition spec ${file.specId} differs from the manifest's ${args.spec.specId}`);
  const isData = file.content === DataFileContent.Data;
  if (isData !== (args.content === ManifestContent.Data)) {
    throw fail(`a ${isData ? 'data' : 'delete'} file cannot go into a ${isData ? 'delete' : 'data'} manifest`);
  }
  if (args.formatVersion < 3 && (file.firstRowId != null || file.contentOffset != null || file.contentSizeInBytes != null)) {
    throw fail('first_row_id, content_offset and content_size_in_bytes need format version 3');
  }
  const isAdded = entry.status === ManifestEntryStatus.Added;
  if (!isAdded && (entry.sequenceNumber === null || entry.fileSequenceNumber === null)) {
    throw fail('EXISTING and DELETED entries must carry explicit sequence numbers (spec §3.3)');
  }
  if (entry.status === ManifestEntryStatus.Existing && entry.snapshotId === null) {
    throw fail('an EXISTING entry must keep the snapshot id that added it');
  }
  const partition: Record<string, unknown> = {};
  for (const f of args.partitionType) {
    if (!file.partition.has(f.fieldId)) throw fail(`no value for partition field ${f.name} (id ${f.fieldId})`);
    partition[avroFieldName(f.name)] = toAvroPartitionValue(f.type, file.partition.get(f.fieldId), f.name);
  }
  for (const id of file.partition.keys()) {
    if (!args.partitionType.some((f) => f.fieldId === id)) throw fail(`partition field id ${id} is not in spec ${args.spec.specId}`);
  }
  const dataFile: Record<string, unknown> = {
    content: file.content,
    file_path: file.filePath,
    file_format: file.fileFormat,
    partition,
    record_count: file.recordCount,
    file_size_in_bytes: file.fileSizeInBytes,
    column_sizes: mapRecords(file.columnSizes),
    value_counts: mapRecords(file.valueCounts),
    null_value_counts: mapRecords(file.nullValueCounts),
    nan_value_counts: mapRecords(file.nanValueCounts),
    lower_bounds: mapRecords(file.lowerBounds, (v) => Buffer.from(v)),
    upper_bounds: mapRecords(file.upperBounds, (v) => Buffer.from(v)),
    key_metadata: file.keyMetadata == null ? null : Buffer.from(file.keyMetadata),
    split_offsets: file.splitOffsets == null ? null : [...file.splitOffsets],
    equality_ids: file.equalityIds == null ? null : [...file.equalityIds],
    sort_order_id: file.sortOrderId ?? null,
    referenced_data_file: file.referencedDataFile ?? null,
  };
  if (args.formatVersion >= 3) {
    dataFile['first_row_id'] = file.firstRowId ?? null;
    dataFile['content_offset'] = file.contentOffset ?? null;
    dataFile['content_size_in_bytes'] = file.contentSizeInBytes ?? null;
  }
  return {
    status: entry.status,
    snapshot_id: entry.status === ManifestEntryStatus.Existing ? entry.snapshotId : args.snapshotId,
    // ADDED: null inherits the commit's sequence number; an explicit data sequence number is a
    // deliberate backdate. The file sequence number of an added file is always the commit's.
    sequence_number: entry.sequenceNumber,
    file_sequence_number: isAdded ? null : entry.fileSequenceNumber,
    data_file: dataFile,
  };
}

function mapRecords<V>(map: ReadonlyMap<number, V> | undefined, convert: (v: V) => unknown = (v) => v): unknown {
  if (map === undefined) return null;
  return [...map].map(([key, value]) => ({ key, value: convert(value) }));
}

/** Per partition field: nulls, NaNs, and bounds over non-null non-NaN values (spec §3.1 r508). */
function fieldSummaries(fields: readonly PartitionFieldType[], entries: readonly ManifestEntry[]): FieldSummary[] {
  return fields.map((f) => {
    let containsNull = false;
    let containsNan = false;
    let lower: unknown = null;
    let upper: unknown = null;
    for (const entry of entries) {
      const value = entry.dataFile.partition.get(f.fieldId) ?? null;
      if (value === null) containsNull = true;
      else if (typeof value === 'number' && Number.isNaN(value)) containsNan = true;
      else {
        if (lower === null || compareForPartitionSummary(f.type, value, lower) < 0) lower = value;
        if (upper === null || compareForPartitionSummary(f.type, value, upper) > 0) upper = value;
      }
    }
    return {
      containsNull,
      containsNan,
      lowerBound: lower === null ? null : encodeSingleValue(f.type, lower),
      upperBound: upper === null ? null : encodeSingleValue(f.type, upper),
    };
  });
}

export interface ManifestInheritance {
  /** The manifest list's added_snapshot_id. */
  readonly snapshotId: bigint;
  /** The manifest list's sequence_number (0 for v1 lists). */
  readonly sequenceNumber: bigint;
  /** The manifest list's first_row_id (v3 data manifests). */
  readonly firstRowId?: bigint | null;
  /** The manifest list's partition_spec_id, used when the file lacks `partition-spec-id`. */
  readonly partitionSpecId?: number;
}

export function readManifest(bytes: Uint8Array, source: string, inherit: ManifestInheritance): ManifestEntry[] {
  const { schemaJson, metadata, records } = readContainer(bytes, source);
  const names = collectNamedTypes(schemaJson);
  const entryView = new RecordView(schemaJson, names, source);
  const fileView = entryView.child(2, 'data_file');
  const partitionView = fileView.child(102, 'partition');
  const formatVersion = Number(metadata['format-version'] ?? (entryView.has(3) ? 2 : 1));
  const specIdText = metadata['partition-spec-id'];
  const specId = specIdText !== undefined ? Number(specIdText) : (inherit.partitionSpecId ?? 0);
  const partitionIds = partitionFieldIds(partitionView, metadata['partition-spec'], source);

  let nextRowId = inherit.firstRowId ?? null;
  return records.map((record, i) => {
    const where = `${source} entry ${i}`;
    const status = Number(entryView.require(record, 0, 'status'));
    if (status !== 0 && status !== 1 && status !== 2) {
      throw new IcebergFormatError(`${where}: invalid status ${status}`, { context: { file: source, entry: i } });
    }
    const fileRecord = entryView.require(record, 2, 'data_file');
    const partitionRecord = fileView.get(fileRecord, 102, 'partition');
    const partition = new Map<number, unknown>();
    partitionView.fields.forEach((f, index) => {
      const schema = resolveSchema(f.schema, names);
      const raw = partitionRecord === null ? null : (partitionRecord as Record<string, unknown>)[f.name];
      partition.set(partitionIds[index]!, fromAvroPartitionValue(schema, raw ?? null, where));
    });
    let dataFile: DataFile = readDataFile(fileView, fileRecord, { where, specId, partition, parseFormat: (t) => fileFormat(t, where) });

    const added = status === ManifestEntryStatus.Added;
    const snapshotId = (entryView.get(record, 1, 'snapshot_id') as bigint | null) ?? inherit.snapshotId;
    let sequenceNumber = entryView.get(record, 3, 'sequence_number') as bigint | null;
    let fileSequenceNumber = entryView.get(record, 4, 'file_sequence_number') as bigint | null;
    if (formatVersion < 2) {
      sequenceNumber = 0n;
      fileSequenceNumber = 0n;
    } else {
      if (sequenceNumber === null && (added || inherit.sequenceNumber === 0n)) sequenceNumber = inherit.sequenceNumber;
      if (fileSequenceNumber === null && (added || inherit.sequenceNumber === 0n)) fileSequenceNumber = inherit.sequenceNumber;
    }
    if (nextRowId !== null && dataFile.content === DataFileContent.Data && status !== ManifestEntryStatus.Deleted) {
      if (dataFile.firstRowId === undefined) {
        dataFile = { ...dataFile, firstRowId: nextRowId };
        nextRowId += dataFile.recordCount;
      }
    }
    return { status, snapshotId, sequenceNumber, fileSequenceNumber, dataFile };
  });
}

/** Partition field ids in r102 order: `field-id`, else by name from `partition-spec`, else 1000+i. */
function partitionFieldIds(view: RecordView, specText: string | undefined, source: string): number[] {
  let specFields: { name?: unknown; 'field-id'?: unknown }[] = [];
  if (specText !== undefined && view.fields.some((f) => f.fieldId === undefined)) {
    try {
      const parsed: unknown = JSON.parse(specText);
      const list = Array.isArray(parsed) ? parsed : (parsed as { fields?: unknown }).fields;
      if (Array.isArray(list)) specFields = list as typeof specFields;
    } catch (cause) {
      throw new IcebergFormatError(`${source}: unreadable partition-spec metadata`, { cause, context: { file: source } });
    }
  }
  return view.fields.map((f, i) => {
    if (f.fieldId !== undefined) return f.fieldId;
    const byName = specFields.find((s) => s.name === f.name)?.['field-id'];
    return typeof byName === 'number' ? byName : 1000 + i;
  });
}

const FILE_FORMATS: ReadonlySet<string> = new Set<FileFormat>(['PARQUET', 'AVRO', 'ORC', 'PUFFIN']);

function fileFormat(text: string, where: string): FileFormat {
  const upper = text.toUpperCase();
  if (!FILE_FORMATS.has(upper)) {
    throw new IcebergFormatError(`${where}: unknown file_format '${text}'`, { context: { fileFormat: text } });
  }
  return upper as FileFormat;
}
