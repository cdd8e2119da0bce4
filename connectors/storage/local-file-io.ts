/**
 * FileIO on the local file system for `file:` locations and absolute paths.
 *
 * Iceberg locations are opaque strings that engines concatenate and hand to their file systems
 * without URL-decoding (pyiceberg takes the URI path as is; Hadoop's Path quotes '%'), so a
 * space or '%' in a directory name appears verbatim in the location. toFileUri/fromFileUri
 * follow that convention instead of RFC 8089 percent-encoding: a table written under
 * "/data/my dir" is found at the same path by every engine.
 */
import { randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { InvalidInputError, StorageError } from '../../src/errors.js';
import type { FileIO, ListedFile } from '../../src/iceberg/file-io.js';

/** `/abs/path` → `file:///abs/path` (characters kept verbatim, see the module comment). */
export function toFileUri(absPath: string): string {
  if (!isAbsolute(absPath)) {
    throw new InvalidInputError(`Cannot make a file URI from relative path "${absPath}"`, {
      context: { path: absPath },
    });
  }
  return `file://${absPath}`;
}

/**
 * `file:///abs`, `file://localhost/abs`, `file:/abs` (Hadoop's form) or a bare absolute path
 * → the absolute local path.
 */
export function fromFileUri(uri: string): string {
  let path: string;
  if (uri.startsWith('file://')) {
    const rest = uri.slice('file://'.length);
    if (rest.startsWith('/')) path = rest;
    else if (rest.startsWith('localhost/')) path = rest.slice('localhost'.length);
    else {
      throw new InvalidInputError(`File URI "${uri}" names a remote host; only local files are supported`, {
        context: { location: uri },
      });
    }
  } else if (uri.startsWith('file:')) {
    path = uri.slice('file:'.length);
  } else {
    path = uri;
  }
  if (!isAbsolute(path)) {
    throw new InvalidInputError(`Location "${uri}" is neither a file: URI nor an absolute path`, {
      context: { location: uri },
    });
  }
  return path;
}

/** True for locations LocalFileIO serves. */
export function isLocalLocation(location: string): boolean {
  return location.startsWith('file:') || isAbsolute(location);
}

/** Fills a temporary file beside `location`, then links it into place unless the target exists. */
async function placeExclusively(location: string, fill: (temp: string) => Promise<void>): Promise<void> {
  const path = pathOf(location);
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await fill(temp);
    await publish(temp, path);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') {
      throw new StorageError(`Cannot write ${location}: the file already exists`, {
        cause: error,
        context: { location, reason: 'already-exists' },
      });
    }
    throw storageError('write', location, error);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

export class LocalFileIO implements FileIO {
  async read(location: string): Promise<Uint8Array> {
    const path = pathOf(location);
    try {
      const buffer = await readFile(path);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      throw storageError('read', location, error);
    }
  }

  /**
   * Writes the bytes to a temporary file beside the target, then hard-links it into place:
   * link() fails when the target exists, so a metadata file is never overwritten and never
   * visible half-written.
   */
  async writeNew(location: string, bytes: Uint8Array): Promise<void> {
    await placeExclusively(location, async (temp) => {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * Copies the file (the kernel streams it; copy-on-write where the file system can) to a
   * temporary file beside the target, then links it into place as writeNew does.
   */
  async writeNewFromFile(location: string, localPath: string): Promise<void> {
    await placeExclusively(location, (temp) => copyFile(localPath, temp, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE));
  }


  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    const path = pathOf(location);
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
      throw new StorageError(`Cannot read ${location}: invalid range offset ${offset}, length ${length}`, {
        context: { location, reason: 'invalid-range' },
      });
    }
    try {
      const handle = await open(path, 'r');
      try {
        const size = (await handle.stat()).size;
        if (length > 0 && offset >= size) {
          throw new StorageError(`Cannot read ${location}: range starts past the end of the file (offset ${offset}, size ${size})`, {
            context: { location, reason: 'out-of-range' },
          });
        }
        const bytes = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
        let filled = 0;
        while (filled < bytes.byteLength) {
          const { bytesRead } = await handle.read(bytes, filled, bytes.byteLength - filled, offset + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return bytes.subarray(0, filled);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw storageError('read', location, error);
    }
  }

  async exists(location: string): Promise<boolean> {
    const path = pathOf(location);
    try {
      await stat(path);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return false;
      throw storageError('stat', location, error);
    }
  }

  async length(location: string): Promise<bigint> {
    const path = pathOf(location);
    try {
      return (await stat(path, { bigint: true })).size;
    } catch (error) {
      throw storageError('stat', location, error);
    }
  }

  /** Deleting a file that is already gone succeeds (as Hadoop's FileIO does). */
  async delete(location: string): Promise<void> {
    const path = pathOf(location);
    try {
      await unlink(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw storageError('delete', location, error);
    }
  }

  /**
   * Every file whose path starts with the prefix's, at any depth, spelled as the prefix is
   * (`file:///…`, `file:/…` or a bare path). A missing folder lists nothing.
   */
  async *list(prefix: string): AsyncGenerator<ListedFile> {
    const prefixPath = pathOf(prefix);
    const folder = prefixPath.endsWith('/') ? prefixPath : dirname(prefixPath);
    let entries;
    try {
      entries = await readdir(folder, { recursive: true, withFileTypes: true });
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return;
      throw storageError('list', prefix, error);
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      if (!path.startsWith(prefixPath)) continue;
      let stats;
      try {
        stats = await stat(path);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') continue; // deleted while listing
        throw storageError('stat', prefix + path.slice(prefixPath.length), error);
      }
      yield { location: prefix + path.slice(prefixPath.length), size: stats.size, lastModifiedMs: stats.mtimeMs };
    }
  }

  localPathFor(location: string): string | undefined {
    if (!isLocalLocation(location)) return undefined;
    try {
      return fromFileUri(location);
    } catch {
      return undefined;
    }
  }
}

function pathOf(location: string): string {
  try {
    return fromFileUri(location);
  } catch (error) {
    throw new StorageError(`LocalFileIO cannot serve ${location}: not a local file location`, {
      cause: error,
      context: { location, reason: 'unsupported-location' },
    });
  }
}

/** link() where the file system supports hard links; an exclusive copy where it does not. */
async function publish(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
    await copyFile(temp, target, fsConstants.COPYFILE_EXCL);
  }
}

function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

function storageError(operation: string, location: string, error: unknown): StorageError {
  const code = errnoCode(error);
  const detail = code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
  return new StorageError(`Cannot ${operation} ${location}: ${detail}`, {
    cause: error,
    context: { location, operation, errno: code, reason: code === 'ENOENT' ? 'not-found' : undefined },
  });
}
