/**
 * Where a table's files go (Iceberg's default location provider): data under
 * `write.data.path` or `<location>/data`, metadata under `write.metadata.path` or
 * `<location>/metadata`.
 */
import type { TableMetadata } from '../iceberg/table-metadata.js';

const trimSlash = (uri: string): string => uri.replace(/\/+$/, '');

export function dataLocation(metadata: TableMetadata): string {
  return trimSlash(metadata.properties['write.data.path'] ?? `${trimSlash(metadata.location)}/data`);
}

export function metadataDirectory(metadata: TableMetadata): string {
  return trimSlash(metadata.properties['write.metadata.path'] ?? `${trimSlash(metadata.location)}/metadata`);
}

export function manifestLocation(metadata: TableMetadata, commitId: string, index: number): string {
  return `${metadataDirectory(metadata)}/${commitId}-m${index}.avro`;
}

export function manifestListLocation(metadata: TableMetadata, snapshotId: bigint, attempt: number, commitId: string): string {
  return `${metadataDirectory(metadata)}/snap-${snapshotId}-${attempt}-${commitId}.avro`;
}
