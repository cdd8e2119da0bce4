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
}
