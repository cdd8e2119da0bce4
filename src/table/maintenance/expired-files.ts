/**
 * The files only expired snapshots reached: what they reach (every entry of their manifests)
 * minus what any snapshot still in the table reaches (live entries, as a reader sees them). A
 * Puffin file goes only when no retained entry points into it. Statistics files of expired
 * snapshots and the checkpoint folders only their summaries point to go too.
 */
import type { FileIO } from '../../iceberg/file-io.js';
import type { Snapshot, TableMetadata } from '../../iceberg/table-metadata.js';
import { checkpointFolderOf } from '../checkpoint-layout.js';
import { folderKey } from './location-key.js';
import { ManifestCache, statisticsFiles, without, type FileSet } from './reachable-files.js';
import { CHECKPOINT_KEY_PREFIX } from './snapshot-retention.js';

export interface ExpiredFiles {
  readonly contentFiles: FileSet;
  readonly manifests: FileSet;
  readonly manifestLists: FileSet;
  readonly statisticsFiles: FileSet;
  /** Folders (`thund-checkpoints/<flow>/<id>`) only expired snapshots point to. */
  readonly checkpointFolders: FileSet;
}

/**
 * `expired` are snapshots of `before` that `after` (the table as the expiry left it, or would
 * leave it) no longer holds.
 */
export async function planExpiredFiles(io: FileIO, before: TableMetadata, after: { readonly metadata: TableMetadata; readonly snapshots: readonly Snapshot[] }, expired: readonly Snapshot[]): Promise<ExpiredFiles> {
  const cache = new ManifestCache(io);
  const kept = await cache.reachableFrom(after.snapshots, { strict: true, liveOnly: true });
  const gone = await cache.reachableFrom(expired, { strict: false, liveOnly: false });
  const expiredIds = new Set(expired.map((snapshot) => snapshot.snapshotId));
  const statsOf = (metadata: TableMetadata, pick: (id: bigint | undefined) => boolean): FileSet =>
    statisticsFiles([...metadata.statistics, ...metadata.partitionStatistics].filter((entry) => pick(statisticsSnapshotId(entry))));
  return {
    contentFiles: without(gone.contentFiles, kept.contentFiles),
    manifests: without(gone.manifests, kept.manifests),
    manifestLists: without(gone.manifestLists, kept.manifestLists),
    statisticsFiles: without(
      statsOf(before, (id) => id !== undefined && expiredIds.has(id)),
      statsOf(after.metadata, () => true),
    ),
    checkpointFolders: without(checkpointFolders(expired), checkpointFolders(after.snapshots)),
  };
}

export function countOf(files: ExpiredFiles): number {
  return files.contentFiles.size + files.manifests.size + files.manifestLists.size + files.statisticsFiles.size + files.checkpointFolders.size;
}

/** The checkpoint folders the snapshots' summaries point into (a whole checkpoint's folder holds the changes built on it), by folderKey. */
export function checkpointFolders(snapshots: readonly Snapshot[]): FileSet {
  const found: FileSet = new Map();
  for (const snapshot of snapshots) {
    for (const [key, value] of Object.entries(snapshot.summary)) {
      if (!key.startsWith(CHECKPOINT_KEY_PREFIX) || value === '') continue;
      const folder = checkpointFolderOf(value);
      found.set(folderKey(folder), folder);
    }
  }
  return found;
}

/** The files under a checkpoint folder: listed when the FileIO can, else its checkpoint.json alone. */
export async function filesOfFolder(io: FileIO, folder: string): Promise<string[]> {
  const prefix = folder.endsWith('/') ? folder : `${folder}/`;
  if (io.list === undefined) return [`${prefix}checkpoint.json`];
  const files: string[] = [];
  for await (const file of io.list(prefix)) files.push(file.location);
  return files;
}

function statisticsSnapshotId(entry: unknown): bigint | undefined {
  const id = (entry as { 'snapshot-id'?: unknown } | null)?.['snapshot-id'];
  return typeof id === 'bigint' || typeof id === 'number' ? BigInt(id) : undefined;
}
