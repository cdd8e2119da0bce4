/**
 * zod schemas of the table metadata wire format (spec §1), one per format version. int64 fields
 * accept number or bigint (see json.ts) and come out as bigint. Schemas stay `unknown` here:
 * type-json.ts parses them.
 */
import { z } from 'zod';

const INT64_MIN = -(2n ** 63n);
// Some hand-made files (duckdb-iceberg fixtures) carry unsigned 64-bit snapshot ids; read them.
const UINT64_MAX = 2n ** 64n - 1n;

export const long = z
  .custom<number | bigint>(
    (v) => (typeof v === 'bigint' && v >= INT64_MIN && v <= UINT64_MAX) || (typeof v === 'number' && Number.isSafeInteger(v)),
    { message: 'expected a 64-bit integer' },
  )
  .transform((v) => BigInt(v));

export const int = z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1);

const stringMap = z.record(z.string(), z.string());

/** v3 multi-argument transforms carry `source-ids` instead of `source-id`. */
const sourceIds = {
  'source-id': int.optional(),
  'source-ids': z.array(int).optional(),
};

export const partitionFieldWire = z.object({
  ...sourceIds,
  'field-id': int.optional(), // optional only in old v1 files
  name: z.string(),
  transform: z.string(),
});

export const partitionSpecWire = z.object({
  'spec-id': int,
  fields: z.array(partitionFieldWire),
});

export const sortFieldWire = z.object({
  ...sourceIds,
  transform: z.string(),
  direction: z.enum(['asc', 'desc']),
  'null-order': z.enum(['nulls-first', 'nulls-last']),
});

export const sortOrderWire = z.object({
  'order-id': int,
  fields: z.array(sortFieldWire),
});

const summaryWire = z.looseObject({
  operation: z.enum(['append', 'replace', 'overwrite', 'delete']),
});

const snapshotShape = {
  'snapshot-id': long,
  'parent-snapshot-id': long.nullish(),
  'sequence-number': long.optional(),
  'timestamp-ms': long,
  'manifest-list': z.string().optional(),
  manifests: z.array(z.string()).optional(),
  summary: summaryWire,
  'schema-id': int.nullish(),
  'first-row-id': long.nullish(),
  'added-rows': long.nullish(),
  'key-id': z.string().nullish(),
};

/** Lenient snapshot form (v1: sequence-number and manifest-list optional); readSnapshot checks the rest. */
export const snapshotV1Wire = z.object(snapshotShape);
const snapshotV2Wire = z.object({ ...snapshotShape, 'sequence-number': long, 'manifest-list': z.string() });

export const snapshotRefWire = z.object({
  'snapshot-id': long,
  type: z.enum(['branch', 'tag']),
  'min-snapshots-to-keep': int.nullish(),
  'max-snapshot-age-ms': long.nullish(),
  'max-ref-age-ms': long.nullish(),
});

const snapshotLogWire = z.object({ 'timestamp-ms': long, 'snapshot-id': long });
const metadataLogWire = z.object({ 'timestamp-ms': long, 'metadata-file': z.string() });

/** Kept verbatim, but the fields the spec requires must be there. */
const encryptionKeyWire = z.looseObject({ 'key-id': z.string(), 'encrypted-key-metadata': z.string() });

const v1Shape = {
  'format-version': z.literal(1),
  'table-uuid': z.string().optional(),
  location: z.string(),
  'last-sequence-number': long.optional(),
  'last-updated-ms': long,
  'last-column-id': int,
  schema: z.unknown().optional(),
  schemas: z.array(z.unknown()).optional(),
  'current-schema-id': int.optional(),
  'partition-spec': z.array(partitionFieldWire).optional(),
  'partition-specs': z.array(partitionSpecWire).optional(),
  'default-spec-id': int.optional(),
  'last-partition-id': int.optional(),
  properties: stringMap.nullish(),
  'current-snapshot-id': long.nullish(),
  snapshots: z.array(snapshotV1Wire).nullish(),
  'snapshot-log': z.array(snapshotLogWire).nullish(),
  'metadata-log': z.array(metadataLogWire).nullish(),
  'sort-orders': z.array(sortOrderWire).optional(),
  'default-sort-order-id': int.optional(),
  refs: z.record(z.string(), snapshotRefWire).nullish(),
  statistics: z.array(z.unknown()).nullish(),
  'partition-statistics': z.array(z.unknown()).nullish(),
};

const v2Shape = {
  ...v1Shape,
  'format-version': z.literal(2),
  'table-uuid': z.string(),
  'last-sequence-number': long,
  schemas: z.array(z.unknown()),
  'current-schema-id': int,
  'partition-specs': z.array(partitionSpecWire),
  'default-spec-id': int,
  'last-partition-id': int,
  'sort-orders': z.array(sortOrderWire),
  'default-sort-order-id': int,
  snapshots: z.array(snapshotV2Wire).nullish(),
};

export const tableMetadataV1Wire = z.object(v1Shape);
export const tableMetadataV2Wire = z.object(v2Shape);
export const tableMetadataV3Wire = z.object({
  ...v2Shape,
  'format-version': z.literal(3),
  // Required by the spec, but absent from some hand-made v3 files: derived from snapshots then.
  'next-row-id': long.optional(),
  'encryption-keys': z.array(encryptionKeyWire).nullish(),
});

export type TableMetadataWire =
  | z.output<typeof tableMetadataV1Wire>
  | z.output<typeof tableMetadataV2Wire>
  | z.output<typeof tableMetadataV3Wire>;
export type SnapshotWire = z.output<typeof snapshotV1Wire>;
export type PartitionFieldWire = z.output<typeof partitionFieldWire>;
export type SortFieldWire = z.output<typeof sortFieldWire>;
export type PartitionSpecWire = z.output<typeof partitionSpecWire>;
export type SortOrderWire = z.output<typeof sortOrderWire>;
