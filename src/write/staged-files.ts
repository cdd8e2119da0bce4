/**
 * DuckDB writes data files into a private staging folder; they are moved (local tables) or
 * uploaded (object stores) into the data folder only once the whole COPY succeeded. A failure
 * while placing them removes the ones already placed, so a failed write leaves nothing behind.
 */
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileIO } from '../iceberg/file-io.js';
import { isAbandoned, ownedName, ownerOf } from './owned-folders.js';

export interface StagedFile {
  readonly stagedPath: string;
  /** Where it goes below the data folder: `name.parquet` or `a=1/b=2/name.parquet`. */
  readonly relativePath: string;
}

export function stagedFileLocation(dataLocation: string, relativePath: string): string {
  return `${dataLocation.replace(/\/+$/, '')}/${relativePath}`;
}

/**
 * Runs `body` with a fresh staging folder, inside the local data folder when the FileIO has one
 * (placing is then a rename on the same file system), else in the OS temp folder; the folder is
 * removed afterwards, whatever happened.
 */
export async function withStagingFolder<T>(
  io: FileIO,
  dataLocation: string,
  writeId: string,
  body: (folder: string) => Promise<T>,
): Promise<T> {
  const folder = await newStagingFolderPath(io, dataLocation, writeId);
  try {
    await mkdir(folder, { recursive: true });
    return await body(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const STAGING_PREFIX = '.thund-staging-';

/** Folders already cleared of crashed runs' staging folders by this process. */
const swept = new Set<string>();

/**
 * Where a write stages its files (`.thund-staging-<pid>-<host>-<writeId>`, not created yet). The
 * first time a process stages in a folder, it removes the staging folders crashed runs left
 * there (owned-folders.ts says which); a live run's folder stays.
 */
export async function newStagingFolderPath(io: FileIO, dataLocation: string, writeId: string): Promise<string> {
  const parent = io.localPathFor?.(dataLocation) ?? tmpdir();
  if (!swept.has(parent)) {
    swept.add(parent);
    await removeAbandonedStagingFolders(parent);
  }
  return join(parent, `${STAGING_PREFIX}${ownedName(writeId)}`);
}

/** Best effort: a folder that cannot be read or removed is left for a later run. */
async function removeAbandonedStagingFolders(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => []);
  for (const name of names.filter((entry) => entry.startsWith(STAGING_PREFIX))) {
    const folder = join(parent, name);
    const abandoned = await isAbandoned(folder, ownerOf(name.slice(STAGING_PREFIX.length))).catch(() => false);
    if (abandoned) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Places every staged file at `<dataLocation>/<relativePath>`; all or none stay. */
export async function placeStagedFiles(io: FileIO, dataLocation: string, staged: readonly StagedFile[]): Promise<void> {
  const localDataDir = io.localPathFor?.(dataLocation);
  const placed: string[] = [];
  try {
    for (const file of staged) {
      const location = stagedFileLocation(dataLocation, file.relativePath);
      if (localDataDir !== undefined) {
        const target = join(localDataDir, file.relativePath);
        await mkdir(dirname(target), { recursive: true });
        await rename(file.stagedPath, target);
      } else {
        await upload(io, location, file.stagedPath);
      }
      placed.push(location);
    }
  } catch (error) {
    // The files already placed belong to no snapshot yet: nothing can reference them.
    await Promise.all(placed.map((location) => io.delete(location).catch(() => undefined)));
    throw error;
  }
}

/** Streams the staged file where the FileIO can, so memory use does not grow with the file size. */
async function upload(io: FileIO, location: string, stagedPath: string): Promise<void> {
  if (io.writeNewFromFile !== undefined) await io.writeNewFromFile(location, stagedPath);
  else await io.writeNew(location, await readFile(stagedPath));
}
