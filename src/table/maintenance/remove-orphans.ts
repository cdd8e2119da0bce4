/**
 * remove-orphans: deletes files under the table's location that nothing in its metadata reaches
 * (crashed runs' data and manifests, staging leftovers, superseded checkpoints, metadata files
 * past the metadata log), but only those older than a safety age: a commit in flight may still
 * be about to reference a young file. Only the table's location is listed: a `write.data.path`
 * or `write.metadata.path` elsewhere may be a folder other tables share.
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { InvalidInputError } from '../../errors.js';
import type { FileIO, ListedFile } from '../../iceberg/file-io.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { deleteFiles } from './delete-files.js';
import { requireGcEnabled } from './gc-enabled.js';
import { locationKey } from './location-key.js';
import type { MaintenanceOutcome, MaintenanceTarget } from './maintenance-action.js';
import { ManifestCache, statisticsFiles } from './reachable-files.js';
import { checkpointFolders } from './expired-files.js';

/** Iceberg's DeleteOrphanFiles default. */
export const DEFAULT_ORPHAN_AGE_MS = 3 * 24 * 60 * 60 * 1000;
/** Hadoop tables' pointer file: never in metadata, always needed. */
const VERSION_HINT = 'version-hint.text';

export interface RemoveOrphansOptions {
  /** Only files last written longer ago than this (milliseconds) are deleted. */
  readonly olderThanMs?: number;
}

export async function removeOrphans(target: MaintenanceTarget, options: RemoveOrphansOptions = {}): Promise<MaintenanceOutcome> {
  const { io } = target;
  const table = formatIdentifier(target.identifier);
  if (io.list === undefined) {
    throw new InvalidInputError(`Cannot remove orphan files of ${table}: its storage cannot be listed`, { context: { table } });
  }
  const cutoffMs = (target.now ?? Date.now)() - (options.olderThanMs ?? DEFAULT_ORPHAN_AGE_MS);
  const loaded = await target.catalog.loadTable(target.identifier);
  requireGcEnabled(loaded.metadata, target.identifier, 'remove orphan files of');
  const reachable = await reachableKeys(io, loaded.metadata, loaded.metadataLocation);
  const listed: ListedFile[] = [];
  const root = loaded.metadata.location.endsWith('/') ? loaded.metadata.location : `${loaded.metadata.location}/`;
  for await (const file of io.list(root)) listed.push(file);
  const unreached = listed.filter((file) => !reachable.files.has(locationKey(file.location)) && !isKept(file.location, reachable.folders));
  const orphans = unreached.filter((file) => file.lastModifiedMs < cutoffMs);
  const deletion = target.dryRun ? { deleted: 0, failed: [] } : await deleteFiles(io, orphans.map((file) => file.location));
  const bytes = orphans.reduce((total, file) => total + file.size, 0);
  const counts = {
    filesListed: listed.length,
    orphans: orphans.length,
    orphanBytes: bytes,
    tooYoung: unreached.length - orphans.length,
    filesDeleted: deletion.deleted,
    filesNotDeleted: deletion.failed.length,
  };
  const done = target.dryRun ? 'would be deleted' : `deleted${deletion.failed.length > 0 ? ` (${deletion.failed.length} could not be, first ${deletion.failed[0]})` : ''}`;
  return {
    action: 'remove-orphans',
    dryRun: target.dryRun,
    summary: `remove-orphans: ${orphans.length} of ${listed.length} files (${bytes} bytes) ${done}; ${counts.tooYoung} unreferenced files younger than the safety age kept`,
    counts,
  };
}

interface ReachableKeys {
  readonly files: ReadonlySet<string>;
  /** Folder keys (ending in `/`) whose every file is kept: the checkpoint folders snapshots point into. */
  readonly folders: readonly string[];
}

async function reachableKeys(io: FileIO, metadata: TableMetadata, metadataLocation: string): Promise<ReachableKeys> {
  // Every entry, DELETED ones too: anything the metadata names stays.
  const found = await new ManifestCache(io).reachableFrom(metadata.snapshots, { strict: true, liveOnly: false });
  const files = new Set([...found.manifestLists.keys(), ...found.manifests.keys(), ...found.contentFiles.keys()]);
  for (const key of statisticsFiles([...metadata.statistics, ...metadata.partitionStatistics]).keys()) files.add(key);
  for (const entry of metadata.metadataLog) files.add(locationKey(entry.metadataFile));
  files.add(locationKey(metadataLocation));
  return { files, folders: [...checkpointFolders(metadata.snapshots).keys()] };
}

function isKept(location: string, folders: readonly string[]): boolean {
  const key = locationKey(location);
  return key.endsWith(`/${VERSION_HINT}`) || folders.some((folder) => key.startsWith(folder));
}
