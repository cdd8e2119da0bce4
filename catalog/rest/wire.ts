/**
 * zod schemas of the REST catalog responses this client reads (ICEBERG.md §7.2–7.5). Unknown
 * members are ignored (servers add fields); table metadata itself is checked by parseTableMetadata.
 */
import { z } from 'zod';

export const errorResponseWire = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number().optional(),
  }),
});

const stringMap = z.record(z.string(), z.string());
const namespaceWire = z.array(z.string());
const pageToken = z.string().nullable().optional();

export const configResponseWire = z.object({
  defaults: stringMap.nullable().optional(),
  overrides: stringMap.nullable().optional(),
  endpoints: z.array(z.string()).nullable().optional(),
  'idempotency-key-lifetime': z.string().optional(),
});

export const listNamespacesWire = z.object({
  namespaces: z.array(namespaceWire),
  'next-page-token': pageToken,
});

export const createNamespaceWire = z.object({
  namespace: namespaceWire,
  properties: stringMap.nullable().optional(),
});

export const listTablesWire = z.object({
  identifiers: z.array(z.object({ namespace: namespaceWire, name: z.string() })),
  'next-page-token': pageToken,
});

/** GET /namespaces/{ns}. */
export const loadNamespaceWire = z.object({
  namespace: namespaceWire,
  properties: stringMap.nullable().optional(),
});

/** POST /namespaces/{ns}/properties. */
export const updateNamespacePropertiesWire = z.object({
  updated: z.array(z.string()),
  removed: z.array(z.string()),
  missing: z.array(z.string()).nullable().optional(),
});

/** One vended credential: applies to locations starting with `prefix`. */
export const storageCredentialWire = z.object({
  prefix: z.string(),
  config: stringMap,
});

/** LoadTableResult; `metadata-location` is null/absent for a staged create. */
export const loadTableWire = z.object({
  'metadata-location': z.string().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()),
  config: stringMap.nullable().optional(),
  'storage-credentials': z.array(storageCredentialWire).nullable().optional(),
});

/** GET /namespaces/{ns}/tables/{t}/credentials. */
export const loadCredentialsWire = z.object({
  'storage-credentials': z.array(storageCredentialWire),
});

export const commitTableWire = z.object({
  'metadata-location': z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
