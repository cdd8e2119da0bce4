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
}
