/**
 * What a snapshot changes relative to its parent: the entries a full overwrite removes, and the
 * summary counters (spec §1.2) and operation of the result.
 */
import {
  DataFileContent,
  isDeletionVector,
  ManifestContent,
  type DataFile,
  type ManifestEntry,
  type ManifestFile,
} from '../iceberg/data-file.js';
import { buildSummary, type SummaryCounts } from '../iceberg/snapshot-summary.js';
import type { Snapshot, SnapshotOperation, SnapshotSummary } from '../iceberg/table-metadata.js';
import { writeDeletedManifest, type ManifestWriteContext, type PendingManifest } from './pending-manifests.js';
import { liveEntriesOf, manifestsOf } from './scan.js';

export interface RemovedSet {
  /** Manifests of DELETED entries written by this commit. */
  readonly manifests: readonly PendingManifest[];
  /** Parent manifests carried into the new snapshot unchanged (none for a full overwrite). */
  readonly kept: readonly ManifestFile[];
  readonly files: readonly DataFile[];
}

/**
 * A full overwrite removes every live file of the parent. The plan is made once: the commit
 * loop refuses to retry an overwrite whose parent moved, so it stays valid across attempts.
 */
export async function planOverwrite(
  context: ManifestWriteContext,
  parent: Snapshot | undefined,
  previous: RemovedSet | undefined,
  attempt: number,
): Promise<RemovedSet> {
  if (previous !== undefined && attempt > 0) return previous;
  if (parent === undefined) return { manifests: [], kept: [], files: [] };
  const groups = new Map<string, { content: ManifestContent; specId: number; entries: ManifestEntry[] }>();
  for (const manifest of await manifestsOf(context.io, parent)) {
    const key = `${manifest.content}/${manifest.partitionSpecId}`;
    const group = groups.get(key) ?? { content: manifest.content, specId: manifest.partitionSpecId, entries: [] };
    group.entries.push(...(await liveEntriesOf(context.io, manifest)));
    groups.set(key, group);
  }
  const manifests: PendingManifest[] = [];
  const files: DataFile[] = [];
  let index = 1;
  for (const group of groups.values()) {
    if (group.entries.length === 0) continue;
    const pending = await writeDeletedManifest(context, group.entries, group.content, group.specId, index);
    index += 1;
    manifests.push(pending);
    files.push(...group.entries.map((entry) => entry.dataFile));
  }
  return { manifests, kept: [], files };
}

export function summaryFor(
  mode: 'append' | 'overwrite' | 'row-delta' | 'replace',
  added: readonly DataFile[],
  removed: RemovedSet | undefined,
  parent: Snapshot | undefined,
  extra: Readonly<Record<string, string>> | undefined,
): SnapshotSummary {
  const removedFiles = removed?.files ?? [];
  const changed = added.length + removedFiles.length > 0;
  return buildSummary({
    operation: mode === 'row-delta' ? rowDeltaOperation(added, removedFiles) : mode,
    added: countsOf(added),
    removed: countsOf(removedFiles),
    ...(parent === undefined ? {} : { previous: parent.summary }),
    ...(changed ? { changedPartitionCount: countPartitions([...added, ...removedFiles]) } : {}),
    extra: { ...extra },
  });
}

/** As Java's row delta: only data added → append; no data added → delete; otherwise overwrite. */
function rowDeltaOperation(added: readonly DataFile[], removed: readonly DataFile[]): SnapshotOperation {
  const addsData = added.some((file) => file.content === DataFileContent.Data);
  const addsDeletes = added.some((file) => file.content !== DataFileContent.Data);
  if (addsData && !addsDeletes && removed.length === 0) return 'append';
  return addsData ? 'overwrite' : 'delete';
}

function countsOf(files: readonly DataFile[]): SummaryCounts {
  const data = files.filter((file) => file.content === DataFileContent.Data);
  const positionDeletes = files.filter((file) => file.content === DataFileContent.PositionDeletes);
  const deletionVectors = positionDeletes.filter(isDeletionVector);
  const equalityDeletes = files.filter((file) => file.content === DataFileContent.EqualityDeletes);
  const sum = (list: readonly DataFile[], pick: (file: DataFile) => bigint): bigint =>
    list.reduce((total, file) => total + pick(file), 0n);
  return {
    dataFiles: BigInt(data.length),
    deleteFiles: BigInt(positionDeletes.length + equalityDeletes.length),
    positionDeleteFiles: BigInt(positionDeletes.length - deletionVectors.length),
    equalityDeleteFiles: BigInt(equalityDeletes.length),
    deletionVectors: BigInt(deletionVectors.length),
    records: sum(data, (file) => file.recordCount),
    // Several vectors share one Puffin file: each counts its own blob, as Java does.
    filesSize: sum(files, (file) => (isDeletionVector(file) ? (file.contentSizeInBytes ?? 0n) : file.fileSizeInBytes)),
    positionDeletes: sum(positionDeletes, (file) => file.recordCount),
    equalityDeletes: sum(equalityDeletes, (file) => file.recordCount),
  };
}

function countPartitions(files: readonly DataFile[]): number {
  const keys = new Set(files.map((file) => `${file.specId}:${[...file.partition.entries()].map(([id, v]) => `${id}=${String(v)}`).join(',')}`));
  return keys.size;
}
