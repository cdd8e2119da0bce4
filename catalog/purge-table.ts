/**
 * Purge for the catalogs that own their files (SQL, Glue): what Java's CatalogUtil.dropTableData
 * deletes. The plan is read while the table still exists (so a failed read fails the drop and
 * nothing is lost); the files go only after the catalog entry is gone. Files that are already
 * missing count as deleted.
 */
import { StorageError, ThundError } from '../src/errors.js';
import type { FileIO } from '../src/iceberg/file-io.js';
import { readManifest } from '../src/iceberg/manifest.js';
import { readManifestList } from '../src/iceberg/manifest-list.js';
import { readTableMetadata } from '../src/iceberg/metadata-json.js';
import type { Snapshot, TableMetadata } from '../src/iceberg/table-metadata.js';
import { messageOf } from './catalog-errors.js';

/** Java's `gc.enabled`: false means the data files may be shared with another table and stay. */
const GC_ENABLED = 'gc.enabled';
const DELETE_CONCURRENCY = 16;

export interface PurgePlan {
  /** Data and delete files of every manifest of every snapshot (empty when gc.enabled=false). */
  readonly contentFiles: readonly string[];
  readonly manifests: readonly string[];
  readonly manifestLists: readonly string[];
  readonly statisticsFiles: readonly string[];
  /** The metadata-log files, then the current metadata file last. */
  readonly metadataFiles: readonly string[];
}

/**
 * The plan for the table whose current metadata file is `metadataLocation`; undefined when that
 * file is already gone (the entry is then dropped without a purge, as Java's catalogs do).
 */
export async function planPurgeUnlessMissing(io: FileIO, metadataLocation: string): Promise<PurgePlan | undefined> {
  const bytes = await readUnlessMissing(io, metadataLocation);
  if (bytes === undefined) return undefined;
  return planPurge(io, readTableMetadata(bytes, metadataLocation), metadataLocation);
}

/** Everything `metadata` (stored at `metadataLocation`) references. Reads only. */
export async function planPurge(io: FileIO, metadata: TableMetadata, metadataLocation: string): Promise<PurgePlan> {
  const manifestLists = new Set<string>();
  const manifests = new Map<string, { snapshotId: bigint; sequenceNumber: bigint }>();
  for (const snapshot of metadata.snapshots) {
    if (snapshot.manifestList !== '') manifestLists.add(snapshot.manifestList);
    for (const [path, inherit] of await manifestsOfSnapshot(io, snapshot)) if (!manifests.has(path)) manifests.set(path, inherit);
  }
  const contentFiles = new Set<string>();
  if (metadata.properties[GC_ENABLED]?.toLowerCase() !== 'false') {
    for (const [path, inherit] of manifests) {
      const bytes = await readUnlessMissing(io, path);
      if (bytes === undefined) continue;
      for (const entry of readManifest(bytes, path, inherit)) contentFiles.add(entry.dataFile.filePath);
    }
  }
  return {
    contentFiles: [...contentFiles],
    manifests: [...manifests.keys()],
    manifestLists: [...manifestLists],
    statisticsFiles: [...statisticsPaths(metadata.statistics), ...statisticsPaths(metadata.partitionStatistics)],
    metadataFiles: [...new Set([...metadata.metadataLog.map((entry) => entry.metadataFile), metadataLocation])],
  };
}

/**
 * Deletes the plan's files, referenced ones before those that reference them, so an interrupted
 * purge leaves metadata that still finds the rest. Tries every file; PURGE_INCOMPLETE names the
 * ones that could not be deleted.
 */
export async function executePurge(io: FileIO, plan: PurgePlan, table: string): Promise<void> {
  const failed: string[] = [];
  let firstError: unknown;
  for (const group of [plan.contentFiles, plan.manifests, plan.manifestLists, plan.statisticsFiles, plan.metadataFiles]) {
    await forEachLimited(group, DELETE_CONCURRENCY, async (location) => {
      try {
        await io.delete(location);
      } catch (error) {
        failed.push(location);
        firstError ??= error;
      }
    });
  }
  if (failed.length > 0) {
    throw new ThundError(
      'PURGE_INCOMPLETE',
      `Dropped ${table}, but ${failed.length} of its files could not be deleted (first: ${failed[0]}): ${messageOf(firstError)}`,
      { cause: firstError, context: { table, failedFiles: failed.length, firstFailedFile: failed[0] } },
    );
  }
}

async function manifestsOfSnapshot(io: FileIO, snapshot: Snapshot): Promise<[string, { snapshotId: bigint; sequenceNumber: bigint }][]> {
  if (snapshot.manifestList === '') {
    // v1 snapshots may list their manifests inline.
    return (snapshot.manifests ?? []).map((path) => [path, { snapshotId: snapshot.snapshotId, sequenceNumber: 0n }]);
  }
  const bytes = await readUnlessMissing(io, snapshot.manifestList);
  if (bytes === undefined) return [];
  return readManifestList(bytes, snapshot.manifestList).map((m) => [
    m.manifestPath,
    { snapshotId: m.addedSnapshotId, sequenceNumber: m.sequenceNumber },
  ]);
}

async function readUnlessMissing(io: FileIO, location: string): Promise<Uint8Array | undefined> {
  try {
    return await io.read(location);
  } catch (error) {
    if (error instanceof StorageError && error.context['reason'] === 'not-found') return undefined;
    throw error;
  }
}

/** `statistics-path` of each statistics / partition-statistics entry (kept as wire objects). */
function statisticsPaths(entries: readonly unknown[]): string[] {
  const paths: string[] = [];
  for (const entry of entries) {
    const path = (entry as { 'statistics-path'?: unknown } | null)?.['statistics-path'];
    if (typeof path === 'string' && path !== '') paths.push(path);
  }
  return paths;
}

async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
