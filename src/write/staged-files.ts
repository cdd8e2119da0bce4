/**
 * DuckDB writes data files into a private staging folder; they are moved (local tables) or
 * uploaded (object stores) into the data folder only once the whole COPY succeeded. A failure
 * while placing them removes the ones already placed, so a failed write leaves nothing behind.
 */
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileIO } from '../iceberg/file-io.js';

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
  const folder = join(io.localPathFor?.(dataLocation) ?? tmpdir(), `.thund-staging-${writeId}`);
  try {
    await mkdir(folder, { recursive: true });
    return await body(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
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
