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

/**
 * `<commit>-m<index>.avro`; a writer that turns one index into several manifests (one per
 * partition spec) numbers the further ones `<commit>-m<index>-<part>.avro`.
 */
export function manifestLocation(metadata: TableMetadata, commitId: string, index: number, part = 0): string {
  return `${metadataDirectory(metadata)}/${commitId}-m${index}${part === 0 ? '' : `-${part}`}.avro`;
}

export function manifestListLocation(metadata: TableMetadata, snapshotId: bigint, attempt: number, commitId: string): string {
  return `${metadataDirectory(metadata)}/snap-${snapshotId}-${attempt}-${commitId}.avro`;
}
