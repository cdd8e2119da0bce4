/**
 * Scan planning over our own manifests: which data files are live in a snapshot. Which delete
 * files apply to them is delete-planning.ts; the rows themselves, deletes applied, table-rows.ts.
 */
import { IcebergFormatError } from '../errors.js';
import { ManifestContent, ManifestEntryStatus, type DataFile, type ManifestEntry, type ManifestFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { readManifest } from '../iceberg/manifest.js';
import { readManifestList } from '../iceberg/manifest-list.js';
import { currentSnapshot, snapshotById } from '../iceberg/snapshot-ancestry.js';
import type { Snapshot, TableMetadata } from '../iceberg/table-metadata.js';

export interface LiveEntry {
  readonly manifest: ManifestFile;
  readonly entry: ManifestEntry;
}

/** The given snapshot (an error when unknown), or the current one (undefined for an empty table). */
export function snapshotOf(metadata: TableMetadata, snapshotId?: bigint): Snapshot | undefined {
  if (snapshotId === undefined) return currentSnapshot(metadata);
  const snapshot = snapshotById(metadata, snapshotId);
  if (snapshot === undefined) {
    throw new IcebergFormatError(`Snapshot ${snapshotId} is not in the table's metadata`, { context: { snapshotId } });
  }
  return snapshot;
}

export async function manifestsOf(io: FileIO, snapshot: Snapshot): Promise<ManifestFile[]> {
  return readManifestList(await io.read(snapshot.manifestList), snapshot.manifestList);
}

/** Entries of one manifest that are live (ADDED or EXISTING), with inherited ids applied. */
export async function liveEntriesOf(io: FileIO, manifest: ManifestFile): Promise<ManifestEntry[]> {
  const entries = readManifest(await io.read(manifest.manifestPath), manifest.manifestPath, {
    snapshotId: manifest.addedSnapshotId,
    sequenceNumber: manifest.sequenceNumber,
    // v3: data files without a first_row_id take theirs from the manifest's, so a rewritten
    // manifest writes them explicitly and the rows keep their ids.
    ...(manifest.firstRowId == null ? {} : { firstRowId: manifest.firstRowId }),
  });
  return entries.filter((entry) => entry.status !== ManifestEntryStatus.Deleted);
}

export async function liveEntries(io: FileIO, metadata: TableMetadata, snapshotId?: bigint): Promise<LiveEntry[]> {
  const snapshot = snapshotOf(metadata, snapshotId);
  if (snapshot === undefined) return [];
  const result: LiveEntry[] = [];
  for (const manifest of await manifestsOf(io, snapshot)) {
    for (const entry of await liveEntriesOf(io, manifest)) result.push({ manifest, entry });
  }
  return result;
}

export async function liveDataFiles(io: FileIO, metadata: TableMetadata, snapshotId?: bigint): Promise<DataFile[]> {
  return (await liveEntries(io, metadata, snapshotId))
    .filter(({ manifest }) => manifest.content === ManifestContent.Data)
    .map(({ entry }) => entry.dataFile);
}
