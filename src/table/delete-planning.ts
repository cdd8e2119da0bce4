/**
 * Scan planning with deletes (spec §6.3): the live data files of a snapshot, each with the
 * position delete files that apply to it — same spec and partition, data sequence number of the
 * data file <= that of the delete file, and referenced_data_file (when set) naming it.
 * Equality deletes and deletion vectors are refused: this reader cannot apply them.
 */
import { IcebergFormatError } from '../errors.js';
import { DataFileContent, ManifestContent, type DataFile, type PartitionValues } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { currentSchema } from '../iceberg/snapshot-ancestry.js';
import type { Snapshot, TableMetadata } from '../iceberg/table-metadata.js';
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
  const index = indexDeletes(deletes);
  const tasks = candidates.map((live) => ({ data: live, deletes: applicableDeletes(index, live) }));
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
  if (file.content === DataFileContent.EqualityDeletes) {
    throw new IcebergFormatError(
      `The table has equality delete files (${file.filePath}); Thund's reader applies only position deletes and cannot read it correctly`,
      { context: { file: file.filePath } },
    );
  }
  if (file.fileFormat !== 'PARQUET') {
    throw new IcebergFormatError(
      `Delete file ${file.filePath} is ${file.fileFormat === 'PUFFIN' ? 'a deletion vector (Puffin)' : file.fileFormat}; Thund's reader applies only Parquet position delete files`,
      { context: { file: file.filePath, fileFormat: file.fileFormat } },
    );
  }
  return live;
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

function indexDeletes(deletes: readonly LiveFile[]): Map<string, LiveFile[]> {
  const index = new Map<string, LiveFile[]>();
  for (const live of deletes) {
    const key = partitionKey(live.file.specId, live.file.partition);
    const list = index.get(key) ?? [];
    list.push(live);
    index.set(key, list);
  }
  return index;
}

function applicableDeletes(index: ReadonlyMap<string, readonly LiveFile[]>, data: LiveFile): LiveFile[] {
  const samePartition = index.get(partitionKey(data.file.specId, data.file.partition)) ?? [];
  return samePartition.filter(
    (live) =>
      data.dataSequenceNumber <= live.dataSequenceNumber &&
      (live.file.referencedDataFile === undefined || live.file.referencedDataFile === data.file.filePath),
  );
}
