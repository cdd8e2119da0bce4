/**
 * Where the catalogs that write their own metadata (SQL, Glue) put things and how they name
 * them: metadata files (Java's BaseMetastoreTableOperations naming), dot-joined namespaces
 * (JdbcUtil), GLOB escaping.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { InvalidInputError } from '../src/errors.js';
import { serializeTableMetadata } from '../src/iceberg/metadata-json.js';
import type { TableMetadata } from '../src/iceberg/table-metadata.js';

const WRITE_METADATA_PATH = 'write.metadata.path';
const METADATA_COMPRESSION = 'write.metadata.compression-codec';

/** Java's `%05d-<uuid>.metadata.json` beside `write.metadata.path` or `<location>/metadata`. */
export function newMetadataFileLocation(metadata: TableMetadata, version: number): string {
  const dir = metadata.properties[WRITE_METADATA_PATH];
  const base = dir !== undefined && dir !== '' ? stripTrailingSlash(dir) : `${metadata.location}/metadata`;
  const gzip = metadata.properties[METADATA_COMPRESSION]?.toLowerCase() === 'gzip';
  return `${base}/${String(version).padStart(5, '0')}-${randomUUID()}${gzip ? '.gz' : ''}.metadata.json`;
}

export function encodeMetadata(metadata: TableMetadata): Uint8Array {
  const bytes = new TextEncoder().encode(serializeTableMetadata(metadata));
  return metadata.properties[METADATA_COMPRESSION]?.toLowerCase() === 'gzip' ? gzipSync(bytes) : bytes;
}

/** The number before the first '-' of the file name; -1 when there is none (as Java parses it). */
export function parseMetadataVersion(location: string): number {
  const name = location.slice(location.lastIndexOf('/') + 1);
  const dash = name.indexOf('-');
  if (dash <= 0) return -1;
  const digits = name.slice(0, dash);
  return /^\d+$/.test(digits) ? Number.parseInt(digits, 10) : -1;
}

/** Levels are stored dot-joined (JdbcUtil.namespaceToString), so a level may not contain '.'. */
export function namespaceToString(namespace: readonly string[]): string {
  if (namespace.length === 0) {
    throw new InvalidInputError('A namespace needs at least one level', { context: { namespace: '' } });
  }
  for (const level of namespace) {
    if (level === '' || level.includes('.')) {
      throw new InvalidInputError(`Invalid namespace level "${level}": levels are non-empty and contain no '.'`, {
        context: { namespace: namespace.join('.') },
      });
    }
  }
  return namespace.join('.');
}

/** Makes `text` match itself literally inside a GLOB pattern. */
export function escapeGlob(text: string): string {
  return text.replace(/[[*?]/g, (c) => `[${c}]`);
}

export function normalizeWarehouse(warehouse: string): string {
  const uri = warehouse.startsWith('/') ? `file://${warehouse}` : warehouse;
  return stripTrailingSlash(uri);
}

export function stripTrailingSlash(location: string): string {
  return location.replace(/\/+$/, '');
}

