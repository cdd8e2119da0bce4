/**
 * Which data files a compaction rewrites (Iceberg's bin-pack strategy): per partition of the
 * current spec, the files smaller than `minFileSizeBytes` (default 75% of the target, Iceberg's
 * `min-file-size-bytes`) and those with at least `deleteFileThreshold` delete files; a
 * partition is rewritten when it has `minInputFiles` (the option, else the table property
 * `thund.maintenance.compact.min-input-files`, else 5) such files, or when one of them
 * has deletes (rewriting applies them). Files of older specs are rewritten into the current spec
 * only with `includeOlderSpecs`, all of them. The target size is the table's
 * `write.target-file-size-bytes` (default 512 MiB) unless the options say otherwise.
 */
import { InvalidInputError } from '../../errors.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { PartitionValues } from '../../iceberg/data-file.js';
import type { Snapshot, TableMetadata } from '../../iceberg/table-metadata.js';
import { writeProperties } from '../../write/write-properties.js';
import { partitionKey, planScan, type ScanTask } from '../delete-planning.js';

export interface CompactOptions {
  readonly targetFileSizeBytes?: bigint;
  readonly minFileSizeBytes?: bigint;
  readonly minInputFiles?: number;
  /** A file with at least this many delete files is rewritten whatever its size (Iceberg's `delete-file-threshold`). */
  readonly deleteFileThreshold?: number;
  readonly includeOlderSpecs?: boolean;
}

/** The candidate files of one partition (spec and tuple), rewritten together. */
export interface FileGroup {
  readonly specId: number;
  readonly partition: PartitionValues;
  readonly tasks: readonly ScanTask[];
  readonly bytes: bigint;
  /** ceil(bytes / target): the files the rewrite should produce at most. */
  readonly estimatedFiles: number;
}

export interface CompactionPlan {
  /** The table as read: the commit is validated against what was committed since. */
  readonly metadata: TableMetadata;
  readonly snapshot: Snapshot | undefined;
  readonly targetFileSizeBytes: bigint;
  readonly groups: readonly FileGroup[];
  /** Every live data file of the snapshot with its deletes, the rewritten ones included. */
  readonly tasks: readonly ScanTask[];
}

const DEFAULT_MIN_INPUT_FILES = 5;
/** The table's own `min-input-files` (serve's compaction, and `thund maintain` without the option, read it). */
export const MIN_INPUT_FILES_PROPERTY = 'thund.maintenance.compact.min-input-files';

export async function planCompaction(io: FileIO, metadata: TableMetadata, options: CompactOptions = {}): Promise<CompactionPlan> {
  const targetFileSizeBytes = options.targetFileSizeBytes ?? writeProperties(metadata.properties).targetFileSizeBytes;
  const minFileSize = options.minFileSizeBytes ?? (targetFileSizeBytes * 3n) / 4n;
  const fromTable = metadata.properties[MIN_INPUT_FILES_PROPERTY];
  const minInputFiles = options.minInputFiles ?? (fromTable === undefined ? DEFAULT_MIN_INPUT_FILES : Number(fromTable));
  checkOptions(targetFileSizeBytes, minInputFiles, options.deleteFileThreshold);
  const scan = await planScan(io, metadata);
  const byPartition = new Map<string, ScanTask[]>();
  for (const task of scan.tasks) {
    const { file } = task.data;
    const current = file.specId === metadata.defaultSpecId;
    if (!current && options.includeOlderSpecs !== true) continue;
    const small = file.fileSizeInBytes < minFileSize;
    const manyDeletes = options.deleteFileThreshold !== undefined && task.deletes.length >= options.deleteFileThreshold;
    if (current && !small && !manyDeletes) continue;
    const key = partitionKey(file.specId, file.partition);
    byPartition.set(key, [...(byPartition.get(key) ?? []), task]);
  }
  const groups: FileGroup[] = [];
  for (const tasks of byPartition.values()) {
    const { specId, partition } = tasks[0]!.data.file;
    const older = specId !== metadata.defaultSpecId;
    if (!older && tasks.length < minInputFiles && !tasks.some((task) => task.deletes.length > 0)) continue;
    const bytes = tasks.reduce((sum, task) => sum + task.data.file.fileSizeInBytes, 0n);
    const estimatedFiles = Math.max(1, Number((bytes + targetFileSizeBytes - 1n) / targetFileSizeBytes));
    groups.push({ specId, partition, tasks, bytes, estimatedFiles });
  }
  return { metadata, snapshot: scan.snapshot, targetFileSizeBytes, groups, tasks: scan.tasks };
}

function checkOptions(target: bigint, minInputFiles: number, deleteFileThreshold: number | undefined): void {
  const refuse = (what: string): never => {
    throw new InvalidInputError(`compact: ${what}`, { context: { action: 'compact' } });
  };
  if (target <= 0n) refuse(`the target file size must be positive (got ${target})`);
  if (!Number.isSafeInteger(minInputFiles) || minInputFiles < 1) refuse(`min-input-files (option or table property ${MIN_INPUT_FILES_PROPERTY}) must be a positive integer (got ${minInputFiles})`);
  if (deleteFileThreshold !== undefined && (!Number.isSafeInteger(deleteFileThreshold) || deleteFileThreshold < 1)) {
    refuse(`delete-file-threshold must be a positive integer (got ${deleteFileThreshold})`);
  }
}
