/**
 * Content files and manifest records (spec §3) as plain data. int64 values are bigint.
 */
export enum DataFileContent {
  Data = 0,
  PositionDeletes = 1,
  EqualityDeletes = 2,
}

export enum ManifestEntryStatus {
  Existing = 0,
  Added = 1,
  Deleted = 2,
}

export enum ManifestContent {
  Data = 0,
  Deletes = 1,
}

export type FileFormat = 'PARQUET' | 'AVRO' | 'ORC' | 'PUFFIN';

/** A partition tuple: partition field id → value in its single-value JS form (null allowed). */
export type PartitionValues = ReadonlyMap<number, unknown>;

export interface DataFile {
  readonly content: DataFileContent;
  readonly filePath: string;
  readonly fileFormat: FileFormat;
  readonly specId: number;
  readonly partition: PartitionValues;
  readonly recordCount: bigint;
  readonly fileSizeInBytes: bigint;
  readonly columnSizes?: ReadonlyMap<number, bigint>;
  readonly valueCounts?: ReadonlyMap<number, bigint>;
  readonly nullValueCounts?: ReadonlyMap<number, bigint>;
  readonly nanValueCounts?: ReadonlyMap<number, bigint>;
  readonly lowerBounds?: ReadonlyMap<number, Uint8Array>;
  readonly upperBounds?: ReadonlyMap<number, Uint8Array>;
  readonly keyMetadata?: Uint8Array;
  readonly splitOffsets?: readonly bigint[];
  readonly equalityIds?: readonly number[];
  readonly sortOrderId?: number;
  readonly firstRowId?: bigint;
  readonly referencedDataFile?: string;
  readonly contentOffset?: bigint;
  readonly contentSizeInBytes?: bigint;
}

/** A v3 deletion vector: position deletes of one data file, as a blob in a Puffin file. */
export function isDeletionVector(file: DataFile): boolean {
  return file.content === DataFileContent.PositionDeletes && file.fileFormat === 'PUFFIN';
}

export interface ManifestEntry {
  readonly status: ManifestEntryStatus;
  /** null = inherited from the manifest's added_snapshot_id. */
  readonly snapshotId: bigint | null;
  /** null = inherited from the manifest list's sequence_number. */
  readonly sequenceNumber: bigint | null;
  readonly fileSequenceNumber: bigint | null;
  readonly dataFile: DataFile;
}

export interface FieldSummary {
  readonly containsNull: boolean;
  readonly containsNan?: boolean | null;
  readonly lowerBound?: Uint8Array | null;
  readonly upperBound?: Uint8Array | null;
}

export interface ManifestFile {
  readonly manifestPath: string;
  readonly manifestLength: bigint;
  readonly partitionSpecId: number;
  readonly content: ManifestContent;
  readonly sequenceNumber: bigint;
  readonly minSequenceNumber: bigint;
  readonly addedSnapshotId: bigint;
  readonly addedFilesCount: number;
  readonly existingFilesCount: number;
  readonly deletedFilesCount: number;
  readonly addedRowsCount: bigint;
  readonly existingRowsCount: bigint;
  readonly deletedRowsCount: bigint;
  readonly partitions?: readonly FieldSummary[] | null;
  readonly keyMetadata?: Uint8Array | null;
  readonly firstRowId?: bigint | null;
}
