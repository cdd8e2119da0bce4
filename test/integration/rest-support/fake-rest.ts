/**
 * Building blocks for fake REST catalog answers in tests: a config body, a valid table metadata
 * object (made by our own builder and serialiser, so the client's parser accepts it) and a
 * LoadTableResult around it.
 */
import { newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import { serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { primitive } from '../../../src/iceberg/types.js';

export function configBody(options: { endpoints?: readonly string[]; idempotencyKeyLifetime?: string } = {}): Record<string, unknown> {
  return {
    defaults: {},
    overrides: {},
    ...(options.endpoints === undefined ? {} : { endpoints: options.endpoints }),
    ...(options.idempotencyKeyLifetime === undefined ? {} : { 'idempotency-key-lifetime': options.idempotencyKeyLifetime }),
  };
}

export function tableMetadataObject(location: string): Record<string, unknown> {
  const metadata = newTableMetadata({
    location,
    schema: { schemaId: 0, identifierFieldIds: [], fields: [{ id: 1, name: 'id', required: false, type: primitive('long') }] },
  });
  return JSON.parse(serializeTableMetadata(metadata)) as Record<string, unknown>;
}

export function loadTableBody(
  location: string,
  extra: { config?: Record<string, string>; storageCredentials?: { prefix: string; config: Record<string, string> }[] } = {},
): Record<string, unknown> {
  return {
    'metadata-location': `${location}/metadata/00000-x.metadata.json`,
    metadata: tableMetadataObject(location),
    ...(extra.config === undefined ? {} : { config: extra.config }),
    ...(extra.storageCredentials === undefined ? {} : { 'storage-credentials': extra.storageCredentials }),
  };
}
