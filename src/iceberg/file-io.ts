/**
 * Byte access to table locations. Implementations live in connectors/storage; table code sees
 * only this interface. Locations are full URIs (file:///…, s3://…).
 */
export interface FileIO {
  read(location: string): Promise<Uint8Array>;
  /** Writes a new object; fails with StorageError if it already exists (metadata is immutable). */
  writeNew(location: string, bytes: Uint8Array): Promise<void>;
  exists(location: string): Promise<boolean>;
  length(location: string): Promise<bigint>;
  delete(location: string): Promise<void>;
  /** A local path a native writer (DuckDB COPY) can write to before the bytes reach `location`. */
  localPathFor?(location: string): string | undefined;
  /**
   * writeNew for the bytes of a local file, streamed: memory use does not grow with the file's
   * size. Same rule as writeNew: fails with StorageError (reason already-exists) rather than
   * replace an object, and leaves nothing behind at `location` when it fails.
   */
  writeNewFromFile?(location: string, localPath: string): Promise<void>;
  /**
   * Up to `length` bytes starting at byte `offset` (fewer when the object ends first); a
   * StorageError (reason out-of-range) when `offset` is at or past the end and `length` > 0.
   */
  readRange?(location: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * Every file whose location starts with `prefix` (at any depth), in the prefix's scheme
   * spelling. For orphan removal; a FileIO without it cannot be listed.
   */
  list?(prefix: string): AsyncIterable<ListedFile>;
}

/** One file a listing found. */
export interface ListedFile {
  readonly location: string;
  readonly size: number;
  /** Milliseconds since the epoch. */
  readonly lastModifiedMs: number;
}

/** A FileIO whose holder releases it when done (S3FileIO closes its SDK client). */
export interface ClosableFileIO extends FileIO {
  close?(): void;
}

/**
 * Object-store access a catalog vended for a table (Iceberg's `s3.*` and `client.region`
 * properties): the keys, and where the store is when the catalog said.
 */
export interface VendedStorage {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly pathStyle?: boolean;
}

/**
 * Builds FileIOs for the credentials catalogs vend. The app hands one to a catalog, so catalog
 * code never constructs a storage client; what the catalog did not say (endpoint, region, path
 * style, retries) is the factory's own setting.
 */
export interface FileIOFactory {
  /** True for locations vended storage credentials can serve (the object store's schemes). */
  serves(location: string): boolean;
  /** A FileIO that reaches the store with these vended keys; the caller closes it. */
  withVendedStorage(storage: VendedStorage): ClosableFileIO;
}
