/**
 * Scan planning with deletes (spec §6.3): the live data files of a snapshot, each with the delete
 * files that apply to it (data sequence numbers throughout):
 * - its deletion vector (v3, Puffin): referenced_data_file is the data file's path, same spec and
 *   partition, data file's sequence number <= the vector's;
 * - only when no vector applies, the Parquet position delete files of the same spec and
 *   partition with sequence number >= the data file's and referenced_data_file (when set) naming
 *   it: a vector shadows them, as the spec says (its writer merged them into it);
 * - the Parquet equality delete files with sequence number strictly greater than the data
 *   file's, of the same spec and partition, or of an unpartitioned spec (those apply to every
 *   data file). "Unpartitioned" as Java's PartitionSpec.isUnpartitioned: no field, or only void
 *   ones (every tuple of such a spec is all nulls).
 * Two live vectors for one data file are a format error (the spec allows one): Java's
 * DeleteFileIndex throws on them rather than apply their union, and so does this. Delete files
 * that cannot be applied are refused, naming the file: ORC and Avro delete files, vectors
 * without referenced_data_file or their blob's offset and size, equality deletes without
 * equality ids.
 */
import { IcebergFormatError } from '../errors.js';
import { DataFileContent, isDeletionVector, ManifestContent, type DataFile, type PartitionValues } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { currentSchema, specById } from '../iceberg/snapshot-ancestry.js';
import type { PartitionSpec, Snapshot, TableMetadata } from '../iceberg/table-metadata.js';
import { FilePruner } from './file-pruning.js';
import type { RowFilter } from './row-filter.js';
import { liveEntriesOf, manifestsOf, snapshotOf } from './scan.js';

/** A live content file with its data sequence number (inherited one applied). */
export interface LiveFile {
  readonly file: DataFile;
  readonly dataSequenceNumber: bigint;
  /** The snapshot that added it (for conflict checks). */
  readonly snapshotId: bigint;
}

export interface ScanTask {
  readonly data: LiveFile;
  /** Its deletion vector or position delete files, then its equality delete files. */
  readonly deletes: readonly LiveFile[];
}

export interface ScanPlan {
  readonly snapshot: Snapshot | undefined;
  /** Live data files that may match the filter, with their applicable deletes. */
  readonly tasks: readonly ScanTask[];
  /** How many live data files the snapshot has (before pruning). */
  readonly liveDataFileCount: number;
}

export interface ScanOptions {
  readonly snapshotId?: bigint;
  /** Keeps only data files that may hold matching rows (partition values and column bounds). */
  readonly filter?: RowFilter;
}

export async function planScan(io: FileIO, metadata: TableMetadata, options: ScanOptions = {}): Promise<ScanPlan> {
  const snapshot = snapshotOf(metadata, options.snapshotId);
  if (snapshot === undefined) return { snapshot, tasks: [], liveDataFileCount: 0 };
  const { data, deletes } = await liveFilesOf(io, snapshot);
  const pruner = options.filter === undefined ? undefined : new FilePruner(metadata, currentSchema(metadata));
  const candidates = pruner === undefined ? data : data.filter((live) => pruner.mayMatch(options.filter!, live.file));
  const index = new DeleteIndex(deletes, (specId) => isUnpartitioned(metadata, specId));
  const tasks = candidates.map((live) => ({ data: live, deletes: index.forDataFile(live) }));
  return { snapshot, tasks, liveDataFileCount: data.length };
}

export async function liveFilesOf(io: FileIO, snapshot: Snapshot): Promise<{ data: LiveFile[]; deletes: LiveFile[] }> {
  const data: LiveFile[] = [];
  const deletes: LiveFile[] = [];
  for (const manifest of await manifestsOf(io, snapshot)) {
    for (const entry of await liveEntriesOf(io, manifest)) {
      const live = { file: entry.dataFile, dataSequenceNumber: entry.sequenceNumber ?? 0n, snapshotId: entry.snapshotId ?? manifest.addedSnapshotId };
      if (manifest.content === ManifestContent.Data) data.push(live);
      else deletes.push(refuseUnreadable(live));
    }
  }
  return { data, deletes };
}

function refuseUnreadable(live: LiveFile): LiveFile {
  const { file } = live;
  const refuse = (what: string): never => {
    throw new IcebergFormatError(`Delete file ${file.filePath} ${what}; Thund's reader cannot apply it`, {
      context: { file: file.filePath, fileFormat: file.fileFormat, content: file.content },
    });
  };
  if (isDeletionVector(file)) {
    if (file.referencedDataFile === undefined) refuse('is a deletion vector (Puffin) without referenced_data_file');
    if (file.contentOffset === undefined || file.contentSizeInBytes === undefined) {
      refuse('is a deletion vector (Puffin) without content_offset and content_size_in_bytes');
    }
    return live;
  }
  if (file.content !== DataFileContent.PositionDeletes && file.content !== DataFileContent.EqualityDeletes) {
    refuse(`has content ${String(file.content)} in a delete manifest`);
  }
  if (file.fileFormat !== 'PARQUET') {
    const kind = file.content === DataFileContent.EqualityDeletes ? 'an equality delete file' : 'a position delete file';
    refuse(`is ${kind} in ${file.fileFormat} format (only Parquet delete files and Puffin deletion vectors are read)`);
  }
  if (file.content === DataFileContent.EqualityDeletes && (file.equalityIds === undefined || file.equalityIds.length === 0)) {
    refuse('is an equality delete file without equality_ids');
  }
  return live;
}

/** True for a spec without partition fields or with only void ones (Java's isUnpartitioned). */
export function isUnpartitionedSpec(spec: PartitionSpec): boolean {
  return spec.fields.every((field) => field.transform === 'void');
}

function isUnpartitioned(metadata: TableMetadata, specId: number): boolean {
  const spec = specById(metadata, specId);
  if (spec === undefined) {
    throw new IcebergFormatError(`A delete file names partition spec ${specId}, which is not in the table's metadata`, { context: { specId } });
  }
  return isUnpartitionedSpec(spec);
}

export function partitionKey(specId: number, partition: PartitionValues): string {
  const parts = [...partition.entries()].sort(([a], [b]) => a - b).map(([id, value]) => `${id}=${valueKey(value)}`);
  return `${specId}|${parts.join('|')}`;
}

function valueKey(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return `x${Buffer.from(value).toString('hex')}`;
  return `${typeof value}:${String(value)}`;
}

/** The live delete files of a snapshot, indexed by what they can apply to (spec §6.3). */
export class DeleteIndex {
  private readonly vectors = new Map<string, LiveFile>();
  private readonly positionsByPartition = new Map<string, LiveFile[]>();
  private readonly equalityByPartition = new Map<string, LiveFile[]>();
  private readonly globalEquality: LiveFile[] = [];

  /** `unpartitioned` tells whether a spec id is unpartitioned (its equality deletes apply to every data file). */
  constructor(deletes: readonly LiveFile[], unpartitioned: (specId: number) => boolean) {
    for (const live of deletes) {
      const { file } = live;
      if (isDeletionVector(file)) this.addVector(live);
      else if (file.content === DataFileContent.EqualityDeletes) {
        if (unpartitioned(file.specId)) this.globalEquality.push(live);
        else push(this.equalityByPartition, partitionKey(file.specId, file.partition), live);
      } else push(this.positionsByPartition, partitionKey(file.specId, file.partition), live);
    }
  }

  private addVector(live: LiveFile): void {
    const path = live.file.referencedDataFile ?? '';
    const other = this.vectors.get(path);
    if (other !== undefined) {
      throw new IcebergFormatError(
        `Data file ${path} has two live deletion vectors, ${vectorName(other.file)} and ${vectorName(live.file)}; the spec allows one per data file`,
        { context: { dataFile: path, vector: other.file.filePath, otherVector: live.file.filePath } },
      );
    }
    this.vectors.set(path, live);
  }

  /** The delete files that apply to a data file: its vector or its position delete files, then its equality deletes. */
  forDataFile(data: LiveFile): LiveFile[] {
    const key = partitionKey(data.file.specId, data.file.partition);
    const seq = data.dataSequenceNumber;
    const equality = [...this.globalEquality, ...(this.equalityByPartition.get(key) ?? [])].filter((live) => seq < live.dataSequenceNumber);
    const vector = this.vectors.get(data.file.filePath);
    if (vector !== undefined && seq <= vector.dataSequenceNumber && partitionKey(vector.file.specId, vector.file.partition) === key) {
      return [vector, ...equality];
    }
    const positions = (this.positionsByPartition.get(key) ?? []).filter(
      (live) => seq <= live.dataSequenceNumber && (live.file.referencedDataFile === undefined || live.file.referencedDataFile === data.file.filePath),
    );
    return [...positions, ...equality];
  }
}

function push(index: Map<string, LiveFile[]>, key: string, live: LiveFile): void {
  const list = index.get(key);
  if (list === undefined) index.set(key, [live]);
  else list.push(live);
}

function vectorName(file: DataFile): string {
  return `${file.filePath} (offset ${String(file.contentOffset)}, ${String(file.contentSizeInBytes)} bytes)`;
}
