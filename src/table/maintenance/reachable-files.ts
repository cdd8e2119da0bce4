/**
 * The files snapshots reach: their manifest lists, manifests, and the data and delete files
 * (Parquet, Puffin deletion vector files) of the manifests' entries. Each manifest list and each
 * manifest is read once per cache, however many snapshots share it. Locations are kept by their
 * locationKey, each with the spelling the metadata used (the one to delete).
 */
import { StorageError } from '../../errors.js';
import { ManifestEntryStatus, type ManifestEntry } from '../../iceberg/data-file.js';
import type { FileIO } from '../../iceberg/file-io.js';
import { readManifest, type ManifestInheritance } from '../../iceberg/manifest.js';
import { readManifestList } from '../../iceberg/manifest-list.js';
import type { Snapshot } from '../../iceberg/table-metadata.js';
import { locationKey } from './location-key.js';

/** A manifest as a snapshot lists it: where it is and what its entries inherit. */
interface ManifestRef {
  readonly path: string;
  readonly inherit: ManifestInheritance;
}

/** Locations by locationKey. */
export type FileSet = Map<string, string>;

export interface ReachableFiles {
  readonly manifestLists: FileSet;
  readonly manifests: FileSet;
  /** Data and delete files: for a deletion vector, the Puffin file it is a blob of. */
  readonly contentFiles: FileSet;
}

export class ManifestCache {
  private readonly lists = new Map<string, Promise<ManifestRef[] | undefined>>();
  private readonly manifests = new Map<string, Promise<ManifestEntry[] | undefined>>();

  constructor(private readonly io: FileIO) {}

  /**
   * The files `snapshots` reach. `strict`: a manifest list or manifest that cannot be read fails
   * (what it references is unknown, so nothing may be called unreachable); otherwise it is
   * skipped (the snapshot is going away and its files may already be gone). `liveOnly`: content
   * files of ADDED and EXISTING entries only, as a snapshot reads them; otherwise DELETED ones too.
   */
  async reachableFrom(snapshots: Iterable<Snapshot>, options: { readonly strict: boolean; readonly liveOnly: boolean }): Promise<ReachableFiles> {
    const found: ReachableFiles = { manifestLists: new Map(), manifests: new Map(), contentFiles: new Map() };
    for (const snapshot of snapshots) {
      if (snapshot.manifestList !== '') found.manifestLists.set(locationKey(snapshot.manifestList), snapshot.manifestList);
      for (const manifest of (await this.manifestsOf(snapshot, options.strict)) ?? []) {
        const key = locationKey(manifest.path);
        if (found.manifests.has(key)) continue;
        found.manifests.set(key, manifest.path);
        for (const entry of (await this.entriesOf(manifest, options.strict)) ?? []) {
          if (options.liveOnly && entry.status === ManifestEntryStatus.Deleted) continue;
          found.contentFiles.set(locationKey(entry.dataFile.filePath), entry.dataFile.filePath);
        }
      }
    }
    return found;
  }

  private manifestsOf(snapshot: Snapshot, strict: boolean): Promise<ManifestRef[] | undefined> {
    if (snapshot.manifestList === '') {
      // v1 snapshots may list their manifests inline.
      return Promise.resolve((snapshot.manifests ?? []).map((path) => ({ path, inherit: { snapshotId: snapshot.snapshotId, sequenceNumber: 0n } })));
    }
    const location = snapshot.manifestList;
    return this.cached(this.lists, location, strict, (bytes) =>
      readManifestList(bytes, location).map((m) => ({
        path: m.manifestPath,
        inherit: { snapshotId: m.addedSnapshotId, sequenceNumber: m.sequenceNumber, partitionSpecId: m.partitionSpecId },
      })),
    );
  }

  private entriesOf(manifest: ManifestRef, strict: boolean): Promise<ManifestEntry[] | undefined> {
    return this.cached(this.manifests, manifest.path, strict, (bytes) => readManifest(bytes, manifest.path, manifest.inherit));
  }

  /** A read shared by every caller; a missing file is undefined unless `strict`. */
  private async cached<T>(cache: Map<string, Promise<T | undefined>>, location: string, strict: boolean, parse: (bytes: Uint8Array) => T): Promise<T | undefined> {
    let read = cache.get(location);
    if (read === undefined) {
      read = this.io.read(location).then(parse, (error: unknown) => {
        if (error instanceof StorageError && error.context['reason'] === 'not-found') return undefined;
        throw error;
      });
      cache.set(location, read);
    }
    const value = await read;
    if (value === undefined && strict) {
      throw new StorageError(`Cannot tell which files ${location} references: it is missing`, { context: { location, reason: 'not-found' } });
    }
    return value;
  }
}

/** Entries of `from` whose keys are not in `except`. */
export function without(from: FileSet, except: FileSet): FileSet {
  return new Map([...from].filter(([key]) => !except.has(key)));
}

/** `statistics-path` of statistics / partition-statistics entries (kept as wire objects). */
export function statisticsFiles(entries: readonly unknown[]): FileSet {
  const found: FileSet = new Map();
  for (const entry of entries) {
    const path = (entry as { 'statistics-path'?: unknown } | null)?.['statistics-path'];
    if (typeof path === 'string' && path !== '') found.set(locationKey(path), path);
  }
  return found;
}
