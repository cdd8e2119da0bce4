/**
 * Manifest lists (spec §3.1): one `manifest_file` record per manifest of a snapshot, with
 * Java/PyIceberg's file metadata keys, v3 row-lineage assignment (§3.4), and reading v1/v2/v3
 * lists back by field id.
 */
import { IcebergFormatError } from '../errors.js';
import { decodeSingleValue } from './bounds.js';
import { ManifestContent } from './data-file.js';
import type { FieldSummary, ManifestFile } from './data-file.js';
import { readContainer, writeContainer } from './avro/container.js';
import type { AvroCodec } from './avro/container.js';
import { collectNamedTypes, RecordView } from './avro/field-view.js';
import { manifestFileSchema } from './avro/manifest-schemas.js';
import type { ManifestFormatVersion, PartitionFieldType } from './avro/manifest-schemas.js';

export interface WriteManifestListArgs {
  readonly manifests: readonly ManifestFile[];
  readonly snapshotId: bigint;
  readonly parentSnapshotId?: bigint | null;
  readonly sequenceNumber: bigint;
  readonly formatVersion: ManifestFormatVersion;
  /** v3: the snapshot's first-row-id (the table's next-row-id). Required for v3. */
  readonly firstRowId?: bigint;
  readonly codec?: AvroCodec;
}

export interface WrittenManifestList {
  readonly bytes: Uint8Array;
  /** The manifests as written (v3: with first_row_id assigned to data manifests lacking one). */
  readonly manifests: ManifestFile[];
  /** v3: row ids assigned by this list (the snapshot's `added-rows`); undefined for v2. */
  readonly addedRows: bigint | undefined;
}

export function writeManifestList(args: WriteManifestListArgs): WrittenManifestList {
  const { formatVersion } = args;
  const metadata: Record<string, string> = {
    'snapshot-id': String(args.snapshotId),
    'parent-snapshot-id': args.parentSnapshotId == null ? 'null' : String(args.parentSnapshotId),
    'sequence-number': String(args.sequenceNumber),
    'format-version': String(formatVersion),
  };
  let manifests = [...args.manifests];
  let addedRows: bigint | undefined;
  if (formatVersion >= 3) {
    if (args.firstRowId === undefined) {
      throw new IcebergFormatError('A v3 manifest list needs the snapshot first-row-id', {
        context: { snapshotId: args.snapshotId },
      });
    }
    let next = args.firstRowId;
    manifests = manifests.map((m) => {
      if (m.content !== ManifestContent.Data) return { ...m, firstRowId: null };
      if (m.firstRowId != null) return m;
      const assigned = { ...m, firstRowId: next };
      next += m.addedRowsCount + m.existingRowsCount;
      return assigned;
    });
    addedRows = next - args.firstRowId;
    metadata['first-row-id'] = String(args.firstRowId);
  }
  const records = manifests.map((m) => manifestRecord(m, formatVersion));
  const bytes = writeContainer({
    schema: manifestFileSchema(formatVersion),
    metadata,
    records,
    codec: args.codec ?? 'deflate',
  });
  return { bytes, manifests, addedRows };
}

function manifestRecord(m: ManifestFile, formatVersion: ManifestFormatVersion): Record<string, unknown> {
  const record: Record<string, unknown> = {
    manifest_path: m.manifestPath,
    manifest_length: m.manifestLength,
    partition_spec_id: m.partitionSpecId,
    content: m.content,
    sequence_number: m.sequenceNumber,
    min_sequence_number: m.minSequenceNumber,
    added_snapshot_id: m.addedSnapshotId,
    added_files_count: m.addedFilesCount,
    existing_files_count: m.existingFilesCount,
    deleted_files_count: m.deletedFilesCount,
    added_rows_count: m.addedRowsCount,
    existing_rows_count: m.existingRowsCount,
    deleted_rows_count: m.deletedRowsCount,
    partitions:
      m.partitions == null
        ? null
        : m.partitions.map((p) => ({
            contains_null: p.containsNull,
            contains_nan: p.containsNan ?? null,
            lower_bound: p.lowerBound == null ? null : Buffer.from(p.lowerBound),
            upper_bound: p.upperBound == null ? null : Buffer.from(p.upperBound),
          })),
    key_metadata: m.keyMetadata == null ? null : Buffer.from(m.keyMetadata),
  };
  if (formatVersion >= 3) record['first_row_id'] = m.firstRowId ?? null;
  return record;
}

/**
 * Read a manifest list. v1 lists lack content and sequence numbers (read as data, 0, 0); their
 * file/row counts are optional and read as 0 when absent — a v1 count of 0 therefore does not
 * prove a manifest empty.
 */
export function readManifestList(bytes: Uint8Array, source: string): ManifestFile[] {
  const { schemaJson, metadata, records } = readContainer(bytes, source);
  const names = collectNamedTypes(schemaJson);
  const view = new RecordView(schemaJson, names, source);
  const summaryView = view.has(507) ? view.elementChild(507, 'partitions') : undefined;
  const listSnapshotId = metadata['snapshot-id'];
  return records.map((record, i) => {
    const where = `${source} manifest ${i}`;
    const int = (id: number, name: string, fallbackName?: string): number => {
      const v = view.get(record, id, name) ?? (fallbackName === undefined ? null : view.get(record, -1, fallbackName));
      return v === null ? 0 : Number(v);
    };
    const long = (id: number, name: string): bigint => {
      const v = view.get(record, id, name);
      return v === null ? 0n : BigInt(v as bigint | number);
    };
    let addedSnapshotId = view.get(record, 503, 'added_snapshot_id') as bigint | null;
    if (addedSnapshotId === null && listSnapshotId !== undefined && listSnapshotId !== 'null') {
      addedSnapshotId = BigInt(listSnapshotId);
    }
    if (addedSnapshotId === null) {
      throw new IcebergFormatError(`${where}: added_snapshot_id is missing`, { context: { file: source, manifest: i } });
    }
    const content = int(517, 'content');
    if (content !== ManifestContent.Data && content !== ManifestContent.Deletes) {
      throw new IcebergFormatError(`${where}: invalid manifest content ${content}`, { context: { file: source } });
    }
    const rawPartitions = view.get(record, 507, 'partitions') as unknown[] | null;
    const keyMetadata = view.get(record, 519, 'key_metadata') as Uint8Array | null;
    const firstRowId = view.get(record, 520, 'first_row_id') as bigint | null;
    return {
      manifestPath: String(view.require(record, 500, 'manifest_path')),
      manifestLength: BigInt(view.require(record, 501, 'manifest_length') as bigint),
      partitionSpecId: Number(view.require(record, 502, 'partition_spec_id')),
      content,
      sequenceNumber: long(515, 'sequence_number'),
      minSequenceNumber: long(516, 'min_sequence_number'),
      addedSnapshotId,
      addedFilesCount: int(504, 'added_files_count', 'added_data_files_count'),
      existingFilesCount: int(505, 'existing_files_count', 'existing_data_files_count'),
      deletedFilesCount: int(506, 'deleted_files_count', 'deleted_data_files_count'),
      addedRowsCount: long(512, 'added_rows_count'),
      existingRowsCount: long(513, 'existing_rows_count'),
      deletedRowsCount: long(514, 'deleted_rows_count'),
      partitions: rawPartitions === null || summaryView === undefined ? null : rawPartitions.map((p) => fieldSummary(summaryView, p)),
      keyMetadata: keyMetadata === null ? null : new Uint8Array(keyMetadata),
      firstRowId,
    };
  });
}

function fieldSummary(view: RecordView, record: unknown): FieldSummary {
  const containsNan = view.get(record, 518, 'contains_nan') as boolean | null;
  const lower = view.get(record, 510, 'lower_bound') as Uint8Array | null;
  const upper = view.get(record, 511, 'upper_bound') as Uint8Array | null;
  return {
    containsNull: Boolean(view.require(record, 509, 'contains_null')),
    containsNan,
    lowerBound: lower === null ? null : new Uint8Array(lower),
    upperBound: upper === null ? null : new Uint8Array(upper),
  };
}

/** A manifest's partition field summary with its bounds decoded into JS single-value forms. */
export interface DecodedFieldSummary {
  readonly containsNull: boolean;
  readonly containsNan: boolean | null;
  readonly lowerBound: unknown;
  readonly upperBound: unknown;
}

/**
 * Decode the `partitions` summaries of a manifest list entry against the partition tuple type of
 * the manifest's spec (`partitionType` in manifest.ts): bounds use the result types' single-value
 * encoding (spec §3.1, r508).
 */
export function decodePartitionSummaries(
  fields: readonly PartitionFieldType[],
  summaries: readonly FieldSummary[],
  source: string,
): DecodedFieldSummary[] {
  if (summaries.length !== fields.length) {
    throw new IcebergFormatError(`${source}: ${summaries.length} partition summaries for ${fields.length} partition fields`, {
      context: { file: source },
    });
  }
  return summaries.map((s, i) => {
    const type = fields[i]!.type;
    return {
      containsNull: s.containsNull,
      containsNan: s.containsNan ?? null,
      lowerBound: s.lowerBound == null ? null : decodeSingleValue(type, s.lowerBound),
      upperBound: s.upperBound == null ? null : decodeSingleValue(type, s.upperBound),
    };
  });
}
