/**
 * A table's FileIO built from the credentials its REST catalog vended. Per location it uses the
 * storage credential with the longest matching prefix, else the `s3.*` keys of the table's
 * config, else the catalog's own FileIO. Keys that expire within a minute are refreshed before
 * use (the catalog's credentials endpoint or a table reload, whichever `refresh` does). The
 * FileIOs for vended keys come from the app's FileIOFactory: this room builds no storage client.
 */
import { readFile } from 'node:fs/promises';
import { StorageError } from '../../src/errors.js';
import type { ClosableFileIO, FileIO, FileIOFactory } from '../../src/iceberg/file-io.js';
import { expiresAtMs, hasKeys, longestPrefixMatch, vendedStorageFor, type TableStorageAccess } from './vended-credentials.js';

/** Refresh keys that expire within this margin before using them. */
export const EXPIRY_MARGIN_MS = 60_000;
/** Never refresh more often than this, so a server that keeps sending short-lived keys is not hammered. */
const MIN_REFRESH_INTERVAL_MS = 5_000;
/** S3 clients kept per table; older ones (keys replaced by refreshes) are closed after a grace period. */
const MAX_CLIENTS = 8;
const RETIRE_AFTER_MS = 120_000;

/** The optional streaming members some FileIOs offer (S3FileIO does). */
interface StreamingFileIO extends FileIO {
  writeNewFromFile?(location: string, localPath: string): Promise<void>;
  readRange?(location: string, offset: number, length: number): Promise<Uint8Array>;
}

export interface VendedFileIOOptions {
  readonly access: TableStorageAccess;
  /** The catalog's own FileIO, for locations no vended key covers. */
  readonly fallback: FileIO;
  /** Fresh access for the same table, given what it has now. */
  readonly refresh: (current: TableStorageAccess) => Promise<TableStorageAccess>;
  /** Builds the FileIO for one set of vended keys. */
  readonly factory: FileIOFactory;
  /** Clock in ms since the epoch; replaceable for tests. */
  readonly now?: () => number;
}

/** Which keys serve a location, and when they stop working. */
interface Grant {
  readonly keys: Readonly<Record<string, string>>;
  readonly expiresAt: number | undefined;
}

export class VendedFileIO implements FileIO {
  private access: TableStorageAccess;
  private readonly clients = new Map<string, ClosableFileIO>();
  private readonly now: () => number;
  private refreshing: Promise<void> | undefined;
  private lastRefresh = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: VendedFileIOOptions) {
    this.access = options.access;
    this.now = options.now ?? Date.now;
  }

  /** Takes the access granted by a newer response for this table. */
  update(access: TableStorageAccess): void {
    this.access = access;
  }

  async read(location: string): Promise<Uint8Array> {
    return (await this.ioFor(location)).read(location);
  }

  async writeNew(location: string, bytes: Uint8Array): Promise<void> {
    return (await this.ioFor(location)).writeNew(location, bytes);
  }

  /** Streams a local file when the serving FileIO can, else reads it whole and calls writeNew. */
  async writeNewFromFile(location: string, localPath: string): Promise<void> {
    const io: StreamingFileIO = await this.ioFor(location);
    if (io.writeNewFromFile !== undefined) return io.writeNewFromFile(location, localPath);
    return io.writeNew(location, new Uint8Array(await readFile(localPath)));
  }

  /** A byte range when the serving FileIO can, else a slice of the whole object. */
  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    const io: StreamingFileIO = await this.ioFor(location);
    if (io.readRange !== undefined) return io.readRange(location, offset, length);
    const bytes = await io.read(location);
    if (length > 0 && offset >= bytes.byteLength) {
      throw new StorageError(`Cannot read ${location} from byte ${offset}: the object has ${bytes.byteLength} bytes`, {
        context: { location, offset, reason: 'out-of-range' },
      });
    }
    return bytes.subarray(offset, offset + length);
  }

  async exists(location: string): Promise<boolean> {
    return (await this.ioFor(location)).exists(location);
  }

  async length(location: string): Promise<bigint> {
    return (await this.ioFor(location)).length(location);
  }

  async delete(location: string): Promise<void> {
    return (await this.ioFor(location)).delete(location);
  }

  /** Object-store locations have no local path; others are the fallback's business. */
  localPathFor(location: string): string | undefined {
    if (this.options.factory.serves(location)) return undefined;
    return this.options.fallback.localPathFor?.(location);
  }

  /** Releases the S3 clients built for vended keys (not the fallback: it belongs to the catalog's caller). */
  close(): void {
    for (const client of this.clients.values()) client.close?.();
    this.clients.clear();
  }

  /** The FileIO serving `location` now, after refreshing keys that are about to expire. */
  async ioFor(location: string): Promise<FileIO> {
    if (!this.options.factory.serves(location)) return this.options.fallback;
    let grant = this.grantFor(location);
    if (grant?.expiresAt !== undefined && this.now() + EXPIRY_MARGIN_MS >= grant.expiresAt && this.mayRefresh()) {
      await this.refresh();
      grant = this.grantFor(location);
    }
    return grant === undefined ? this.options.fallback : this.clientFor(grant.keys);
  }

  private grantFor(location: string): Grant | undefined {
    const credential = longestPrefixMatch(this.access.credentials, location);
    const keys = credential?.config ?? (hasKeys(this.access.config) ? this.access.config : undefined);
    return keys === undefined ? undefined : { keys, expiresAt: expiresAtMs(keys) };
  }

  private mayRefresh(): boolean {
    return this.refreshing !== undefined || this.now() - this.lastRefresh >= MIN_REFRESH_INTERVAL_MS;
  }

  /** One refresh at a time; concurrent callers wait for the same one. */
  private refresh(): Promise<void> {
    if (this.refreshing === undefined) {
      this.lastRefresh = this.now();
      this.refreshing = this.options
        .refresh(this.access)
        .then((access) => this.update(access))
        .finally(() => {
          this.refreshing = undefined;
        });
    }
    return this.refreshing;
  }

  private clientFor(keys: Readonly<Record<string, string>>): ClosableFileIO {
    const storage = vendedStorageFor(keys, this.access.config);
    // The cache key holds secrets; it stays in this map and is never logged.
    const cacheKey = JSON.stringify(storage);
    let client = this.clients.get(cacheKey);
    if (client === undefined) {
      client = this.options.factory.withVendedStorage(storage);
      this.clients.set(cacheKey, client);
      this.retireOldest();
    }
    return client;
  }

  private retireOldest(): void {
    while (this.clients.size > MAX_CLIENTS) {
      const [oldestKey, oldest] = this.clients.entries().next().value as [string, ClosableFileIO];
      this.clients.delete(oldestKey);
      // Requests may still be running on it.
      setTimeout(() => oldest.close?.(), RETIRE_AFTER_MS).unref();
    }
  }
}
