/**
 * The manifests of a row-level commit (merge-on-read deletes, whole-file removals, copy-on-write
 * rewrites, deletion vectors replacing earlier ones). Added data and delete files go into
 * manifests written once, one per content and spec, reused by every attempt (their entries
 * inherit sequence numbers). Parent manifests that hold a removed data or delete file are
 * rewritten per parent — removed entries DELETED, the others EXISTING with
 * their own sequence numbers — and a rewrite is kept for as long as the parent still holds that
 * manifest, so a retry over an append rewrites nothing again.
 */
import { CommitConflictError } from '../errors.js';
import {
  DataFileContent,
  isDeletionVector,
  ManifestContent,
  ManifestEntryStatus,
  type DataFile,
  type ManifestEntry,
  type ManifestFile,
} from '../iceberg/data-file.js';
import type { Snapshot, TableMetadata } from '../iceberg/table-metadata.js';
import { writeEntries, type ManifestWriteContext, type PendingManifest } from './pending-manifests.js';
import { liveEntriesOf, manifestsOf } from './scan.js';
import type { RemovedSet } from './snapshot-changes.js';

export interface RowDelta {
  readonly addedDataFiles: readonly DataFile[];
  /** Position delete files, each in the spec and partition of the data files it deletes from. */
  readonly addedDeleteFiles: readonly DataFile[];
  /** Live data files this commit removes whole (every live row deleted, or rewritten elsewhere). */
  readonly removedDataFiles: readonly DataFile[];
  /** Delete files this commit replaces or that deleted from a removed data file (v3 deletion vectors). */
  readonly removedDeleteFiles: readonly DataFile[];
  /**
   * The data sequence number the added data files carry instead of the commit's (Java's
   * RewriteFiles.dataSequenceNumber): a compaction gives its output the number of the snapshot
   * it read, so equality deletes committed since still apply to the rewritten rows.
   */
  readonly dataSequenceNumber?: bigint;
  /**
   * Called when the table moved between two attempts: throws a CommitConflictError when the
   * commit would no longer be right on the new base (conflict-validation.ts).
   */
  readonly validate: (base: TableMetadata, current: TableMetadata) => Promise<void>;
}

const ADDED_INDEX = 100;
const REWRITE_INDEX = 1000;

/** Manifests of the added files, one per content and spec. */
export async function writeRowDeltaManifests(context: ManifestWriteContext, delta: RowDelta): Promise<PendingManifest[]> {
  const groups = new Map<string, { content: ManifestContent; specId: number; files: DataFile[] }>();
  for (const file of [...delta.addedDataFiles, ...delta.addedDeleteFiles]) {
    const content = file.content === DataFileContent.Data ? ManifestContent.Data : ManifestContent.Deletes;
    const key = `${content}/${file.specId}`;
    const group = groups.get(key) ?? { content, specId: file.specId, files: [] };
    group.files.push(file);
    groups.set(key, group);
  }
  const pending: PendingManifest[] = [];
  let index = ADDED_INDEX;
  for (const group of groups.values()) {
    const explicit = group.content === ManifestContent.Data ? delta.dataSequenceNumber : undefined;
    const entries = group.files.map((dataFile) => ({
      status: ManifestEntryStatus.Added,
      snapshotId: context.snapshotId,
      sequenceNumber: explicit ?? null,
      fileSequenceNumber: null,
      dataFile,
    }));
    pending.push(await writeEntries(context, entries, group.content, group.specId, index++));
  }
  return pending;
}

/** Rewrites of parent manifests, by the parent manifest's path, shared across attempts. */
export class ManifestRewrites {
  private readonly byPath = new Map<string, PendingManifest>();
  private next = REWRITE_INDEX;

  /** Every manifest this commit wrote for removals, in any attempt. */
  written(): PendingManifest[] {
    return [...this.byPath.values()];
  }

  /** The parent's manifests with each removed file turned DELETED; a conflict when one is not live. */
  async plan(context: ManifestWriteContext, parent: Snapshot | undefined, removed: readonly DataFile[]): Promise<RemovedSet> {
    const wanted = new Set(removed.map(removalKey));
    const manifests: PendingManifest[] = [];
    const kept: ManifestFile[] = [];
    const found = new Set<string>();
    for (const manifest of parent === undefined ? [] : await manifestsOf(context.io, parent)) {
      if (wanted.size === 0) {
        kept.push(manifest);
        continue;
      }
      const entries = await liveEntriesOf(context.io, manifest);
      const hits = entries.filter((entry) => wanted.has(removalKey(entry.dataFile)));
      if (hits.length === 0) {
        kept.push(manifest);
        continue;
      }
      hits.forEach((entry) => found.add(removalKey(entry.dataFile)));
      let rewrite = this.byPath.get(manifest.manifestPath);
      if (rewrite === undefined) {
        const rewritten: ManifestEntry[] = entries.map((entry) =>
          wanted.has(removalKey(entry.dataFile))
            ? { ...entry, status: ManifestEntryStatus.Deleted, snapshotId: context.snapshotId }
            : { ...entry, status: ManifestEntryStatus.Existing },
        );
        rewrite = await writeEntries(context, rewritten, manifest.content, manifest.partitionSpecId, this.next++);
        this.byPath.set(manifest.manifestPath, rewrite);
      }
      manifests.push(rewrite);
    }
    const missing = removed.find((file) => !found.has(removalKey(file)));
    if (missing !== undefined) {
      const what = missing.content === DataFileContent.Data ? 'Data file' : isDeletionVector(missing) ? `The deletion vector of ${missing.referencedDataFile ?? '?'} in` : 'Delete file';
      throw new CommitConflictError(`${what} ${missing.filePath} was removed by a concurrent commit; nothing was committed, run again`, {
        retryable: false,
        context: { file: missing.filePath },
      });
    }
    return { manifests, kept, files: removed };
  }
}

/** Several deletion vectors share one Puffin file: each is its blob within the file. */
function removalKey(file: DataFile): string {
  return isDeletionVector(file) ? `${file.filePath}#${String(file.contentOffset)}` : file.filePath;
}
