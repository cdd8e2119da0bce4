/**
 * Table metadata JSON (spec §1) ⇄ the TableMetadata domain object. Reads v1, v2 and v3 (v1 in
 * all its historical shapes: single `schema` / `partition-spec`, missing sequence numbers);
 * writes the v2/v3 form only, keys in spec order.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { z } from 'zod';
import { IcebergFormatError } from '../errors.js';
import { parseJson, stringifyJson } from './json.js';
import {
  tableMetadataV1Wire,
  tableMetadataV2Wire,
  tableMetadataV3Wire,
  type PartitionFieldWire,
  type PartitionSpecWire,
  type SnapshotWire,
  type SortOrderWire,
  type SortFieldWire,
  type TableMetadataWire,
} from './metadata-wire.js';
import type {
  PartitionField,
  PartitionSpec,
  Snapshot,
  SnapshotRef,
  SnapshotSummary,
  SortOrder,
  TableMetadata,
} from './table-metadata.js';
import { MAIN_BRANCH } from './table-metadata.js';
import { parseSchema, schemaToJson } from './type-json.js';
import type { Schema } from './types.js';

export const MAX_FORMAT_VERSION = 3;
const UNPARTITIONED_LAST_PARTITION_ID = 999;

/** Bytes of a metadata file → JSON text; gzip (`*.gz.metadata.json`) is detected by its magic. */
export function decodeMetadataBytes(bytes: Uint8Array, source: string): string {
  let raw = bytes;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      raw = gunzipSync(bytes);
    } catch (cause) {
      throw new IcebergFormatError(`Cannot gunzip metadata file ${source}`, { cause, context: { source } });
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch (cause) {
    throw new IcebergFormatError(`Metadata file ${source} is not valid UTF-8`, { cause, context: { source } });
  }
}

export function readTableMetadata(bytes: Uint8Array, source: string): TableMetadata {
  return parseTableMetadata(decodeMetadataBytes(bytes, source), source);
}

export function parseTableMetadata(text: string, source: string): TableMetadata {
  const json = parseJson(text, source);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid(source, '$', 'table metadata must be a JSON object');
  }
  const version = (json as Record<string, unknown>)['format-version'];
  if (typeof version === 'number' && Number.isInteger(version) && version > MAX_FORMAT_VERSION) {
    throw new IcebergFormatError(
      `Unsupported format-version ${version} in ${source}: this reader supports versions 1 to ${MAX_FORMAT_VERSION}`,
      { context: { source, field: 'format-version' } },
    );
  }
  const wireSchema =
    version === 1 ? tableMetadataV1Wire : version === 2 ? tableMetadataV2Wire : version === 3 ? tableMetadataV3Wire : undefined;
  if (wireSchema === undefined) {
    throw invalid(source, 'format-version', `expected 1, 2 or 3, found ${version === undefined ? 'nothing' : stringifyJson(version)}`);
  }
  const result = wireSchema.safeParse(json);
  if (!result.success) throw fromZod(source, result.error);
  return toDomain(result.data, source);
}

function toDomain(w: TableMetadataWire, source: string): TableMetadata {
  const { schemas, currentSchemaId } = readSchemas(w, source);
  const currentSchema = schemas.find((s) => s.schemaId === currentSchemaId);
  if (currentSchema === undefined) {
    throw invalid(source, 'current-schema-id', `schema ${currentSchemaId} not found among schemas [${schemas.map((s) => s.schemaId).join(', ')}]`);
  }
  const { partitionSpecs, defaultSpecId } = readSpecs(w, source);
  const lastPartitionId =
    w['last-partition-id'] ??
    Math.max(UNPARTITIONED_LAST_PARTITION_ID, ...partitionSpecs.flatMap((s) => s.fields.map((f) => f.fieldId)));

  const sortOrders: SortOrder[] = (w['sort-orders'] ?? []).map((o, i) => readSortOrder(o, source, `sort-orders[${i}]`));
  const defaultSortOrderId = w['default-sort-order-id'] ?? 0;
  // Order 0 is "unsorted" by definition; old v1 files omit the list entirely.
  if (defaultSortOrderId === 0 && !sortOrders.some((o) => o.orderId === 0)) sortOrders.unshift({ orderId: 0, fields: [] });
  if (!sortOrders.some((o) => o.orderId === defaultSortOrderId)) {
    throw invalid(source, 'default-sort-order-id', `sort order ${defaultSortOrderId} not found among sort-orders`);
  }

  const snapshots = (w.snapshots ?? []).map((s, i) => readSnapshot(s, source, `snapshots[${i}]`));
  const snapshotIds = new Set(snapshots.map((s) => s.snapshotId));
  const wireCurrent = w['current-snapshot-id'];
  const currentSnapshotId = wireCurrent === null || wireCurrent === undefined || wireCurrent === -1n ? undefined : wireCurrent;
  if (currentSnapshotId !== undefined && !snapshotIds.has(currentSnapshotId)) {
    throw invalid(source, 'current-snapshot-id', `snapshot ${currentSnapshotId} not found among snapshots`);
  }

  const refs = new Map<string, SnapshotRef>();
  for (const [name, r] of Object.entries(w.refs ?? {})) {
    if (!snapshotIds.has(r['snapshot-id'])) {
      throw invalid(source, `refs.${name}.snapshot-id`, `snapshot ${r['snapshot-id']} not found among snapshots`);
    }
    refs.set(name, {
      snapshotId: r['snapshot-id'],
      type: r.type,
      ...optional('minSnapshotsToKeep', r['min-snapshots-to-keep']),
      ...optional('maxSnapshotAgeMs', r['max-snapshot-age-ms']),
      ...optional('maxRefAgeMs', r['max-ref-age-ms']),
    });
  }
  const main = refs.get(MAIN_BRANCH);
  if (main === undefined && currentSnapshotId !== undefined) {
    // Spec: without refs, `main` is the current snapshot.
    refs.set(MAIN_BRANCH, { snapshotId: currentSnapshotId, type: 'branch' });
  } else if (main !== undefined && main.snapshotId !== currentSnapshotId) {
    throw invalid(source, 'refs.main', `main points at snapshot ${main.snapshotId} but current-snapshot-id is ${currentSnapshotId ?? 'unset'}`);
  }

  const encryptionKeys = 'encryption-keys' in w ? w['encryption-keys'] : undefined;
  return {
    formatVersion: w['format-version'],
    // Very old v1 files have no uuid; Java assigns one on the next write, and so do we on read.
    tableUuid: (w['table-uuid'] ?? randomUUID()).toLowerCase(),
    location: w.location,
    lastSequenceNumber: w['last-sequence-number'] ?? 0n,
    lastUpdatedMs: w['last-updated-ms'],
    lastColumnId: w['last-column-id'],
    schemas,
    currentSchemaId,
    partitionSpecs,
    defaultSpecId,
    lastPartitionId,
    properties: { ...(w.properties ?? {}) },
    ...optional('currentSnapshotId', currentSnapshotId),
    snapshots,
    snapshotLog: (w['snapshot-log'] ?? []).map((e) => ({ timestampMs: e['timestamp-ms'], snapshotId: e['snapshot-id'] })),
    metadataLog: (w['metadata-log'] ?? []).map((e) => ({ timestampMs: e['timestamp-ms'], metadataFile: e['metadata-file'] })),
    sortOrders,
    defaultSortOrderId,
    refs,
    statistics: w.statistics ?? [],
    partitionStatistics: w['partition-statistics'] ?? [],
    ...optional('nextRowId', w['format-version'] === 3 ? (w['next-row-id'] ?? deriveNextRowId(snapshots)) : undefined),
    ...(encryptionKeys !== undefined && encryptionKeys !== null && encryptionKeys.length > 0 ? { encryptionKeys } : {}),
  };
}

function deriveNextRowId(snapshots: readonly Snapshot[]): bigint {
  let next = 0n;
  for (const s of snapshots) {
    if (s.firstRowId !== undefined) {
      const end = s.firstRowId + (s.addedRows ?? 0n);
      if (end > next) next = end;
    }
  }
  return next;
}

function readSchemas(w: TableMetadataWire, source: string): { schemas: Schema[]; currentSchemaId: number } {
  const list = w.schemas;
  const currentId = w['current-schema-id'];
  if (list !== undefined && currentId !== undefined) {
    return { schemas: list.map((s, i) => parseSchema(s, `${source} schemas[${i}]`)), currentSchemaId: currentId };
  }
  // v1 fallback: the single `schema` field is the current (and only) schema.
  if (w.schema !== undefined) {
    const raw = w.schema;
    const withId =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !('schema-id' in raw) ? { ...raw, 'schema-id': 0 } : raw;
    const schema = parseSchema(withId, `${source} schema`);
    return { schemas: [schema], currentSchemaId: schema.schemaId };
  }
  throw invalid(
    source,
    list === undefined ? 'schemas' : 'current-schema-id',
    'no valid schema: needs `schemas` with `current-schema-id` (or the v1 `schema` field)',
  );
}

function readSpecs(w: TableMetadataWire, source: string): { partitionSpecs: PartitionSpec[]; defaultSpecId: number } {
  let partitionSpecs: PartitionSpec[];
  if (w['partition-specs'] !== undefined) {
    partitionSpecs = w['partition-specs'].map((s, i) => readPartitionSpec(s, source, `partition-specs[${i}]`));
  } else {
    const fields = w['partition-spec'] ?? [];
    partitionSpecs = [{ specId: 0, fields: fields.map((f, j) => readPartitionField(f, j, source, `partition-spec[${j}]`)) }];
  }
  // v1 files may omit the default id; the newest spec is then the default.
  const defaultSpecId = w['default-spec-id'] ?? Math.max(0, ...partitionSpecs.map((s) => s.specId));
  if (!partitionSpecs.some((s) => s.specId === defaultSpecId)) {
    throw invalid(source, 'default-spec-id', `partition spec ${defaultSpecId} not found among partition-specs`);
  }
  return { partitionSpecs, defaultSpecId };
}

export function readPartitionSpec(s: PartitionSpecWire, source: string, path: string): PartitionSpec {
  return { specId: s['spec-id'], fields: s.fields.map((f, j) => readPartitionField(f, j, source, `${path}.fields[${j}]`)) };
}

export function readSortOrder(o: SortOrderWire, source: string, path: string): SortOrder {
  return {
    orderId: o['order-id'],
    fields: o.fields.map((f, j) => ({
      transform: f.transform,
      sourceId: singleSourceId(f, source, `${path}.fields[${j}]`),
      direction: f.direction,
      nullOrder: f['null-order'],
    })),
  };
}

function readPartitionField(f: PartitionFieldWire, index: number, source: string, path: string): PartitionField {
  return {
    sourceId: singleSourceId(f, source, path),
    // Pre-spec v1 writers did not store partition field ids; they were assigned from 1000.
    fieldId: f['field-id'] ?? 1000 + index,
    name: f.name,
    transform: f.transform,
  };
}

function singleSourceId(f: PartitionFieldWire | SortFieldWire, source: string, path: string): number {
  const ids = f['source-ids'];
  if (f['source-id'] !== undefined) return f['source-id'];
  if (ids !== undefined && ids.length === 1 && ids[0] !== undefined) return ids[0];
  if (ids !== undefined && ids.length > 1) {
    throw invalid(source, `${path}.source-ids`, 'multi-argument transforms are not supported');
  }
  throw invalid(source, `${path}.source-id`, 'required field is missing');
}

export function readSnapshot(s: SnapshotWire, source: string, path: string): Snapshot {
  const manifestList = s['manifest-list'];
  if (manifestList === undefined && s.manifests === undefined) {
    throw invalid(source, `${path}.manifest-list`, 'required field is missing');
  }
  const summary: SnapshotSummary = { ...(s.summary as Record<string, unknown>), operation: s.summary.operation } as SnapshotSummary;
  for (const [key, value] of Object.entries(summary)) {
    if (typeof value !== 'string') throw invalid(source, `${path}.summary.${key}`, 'summary values must be strings');
  }
  return {
    snapshotId: s['snapshot-id'],
    ...optional('parentSnapshotId', s['parent-snapshot-id']),
    sequenceNumber: s['sequence-number'] ?? 0n,
    timestampMs: s['timestamp-ms'],
    manifestList: manifestList ?? '',
    summary,
    ...optional('schemaId', s['schema-id']),
    ...optional('firstRowId', s['first-row-id']),
    ...optional('addedRows', s['added-rows']),
    ...optional('keyId', s['key-id']),
    ...(manifestList === undefined ? { manifests: s.manifests } : {}),
  };
}

/** v2/v3 form, keys in the order of the spec's table (§1.1). */
export function serializeTableMetadata(m: TableMetadata): string {
  const v3 = m.formatVersion >= 3;
  const wire: Record<string, unknown> = {
    'format-version': m.formatVersion,
    'table-uuid': m.tableUuid,
    location: m.location,
    'last-sequence-number': m.lastSequenceNumber,
    'last-updated-ms': m.lastUpdatedMs,
    'last-column-id': m.lastColumnId,
    schemas: m.schemas.map((s) => schemaToJson(s)),
    'current-schema-id': m.currentSchemaId,
    'partition-specs': m.partitionSpecs.map(partitionSpecToJson),
    'default-spec-id': m.defaultSpecId,
    'last-partition-id': m.lastPartitionId,
    properties: m.properties,
    'current-snapshot-id': m.currentSnapshotId ?? (v3 ? null : -1),
    snapshots: m.snapshots.map(snapshotToJson),
    'snapshot-log': m.snapshotLog.map((e) => ({ 'timestamp-ms': e.timestampMs, 'snapshot-id': e.snapshotId })),
    'metadata-log': m.metadataLog.map((e) => ({ 'timestamp-ms': e.timestampMs, 'metadata-file': e.metadataFile })),
    'sort-orders': m.sortOrders.map(sortOrderToJson),
    'default-sort-order-id': m.defaultSortOrderId,
    refs: Object.fromEntries([...m.refs].map(([name, r]) => [name, refToJson(r)])),
    statistics: m.statistics,
    'partition-statistics': m.partitionStatistics,
  };
  if (v3) wire['next-row-id'] = m.nextRowId ?? 0n;
  if (m.encryptionKeys !== undefined && m.encryptionKeys.length > 0) wire['encryption-keys'] = m.encryptionKeys;
  return stringifyJson(wire, 2);
}

export function partitionSpecToJson(s: PartitionSpec): Record<string, unknown> {
  return {
    'spec-id': s.specId,
    fields: s.fields.map((f) => ({ name: f.name, transform: f.transform, 'source-id': f.sourceId, 'field-id': f.fieldId })),
  };
}

export function sortOrderToJson(o: SortOrder): Record<string, unknown> {
  return {
    'order-id': o.orderId,
    fields: o.fields.map((f) => ({ transform: f.transform, 'source-id': f.sourceId, direction: f.direction, 'null-order': f.nullOrder })),
  };
}

/** Snapshot object (§1.2); absent optional fields are undefined, which stringifyJson skips. */
export function snapshotToJson(s: Snapshot): Record<string, unknown> {
  const { operation, ...rest } = s.summary;
  return {
    'snapshot-id': s.snapshotId,
    'parent-snapshot-id': s.parentSnapshotId,
    'sequence-number': s.sequenceNumber,
    'timestamp-ms': s.timestampMs,
    ...(s.manifests !== undefined && s.manifestList === '' ? { manifests: s.manifests } : { 'manifest-list': s.manifestList }),
    summary: { operation, ...rest },
    'schema-id': s.schemaId,
    'first-row-id': s.firstRowId,
    'added-rows': s.addedRows,
    'key-id': s.keyId,
  };
}

export function refToJson(r: SnapshotRef): Record<string, unknown> {
  return {
    'snapshot-id': r.snapshotId,
    type: r.type,
    'min-snapshots-to-keep': r.minSnapshotsToKeep,
    'max-snapshot-age-ms': r.maxSnapshotAgeMs,
    'max-ref-age-ms': r.maxRefAgeMs,
  };
}

/** `{key: value}` when value is set, `{}` otherwise (keeps optional domain fields truly absent). */
function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === undefined || value === null ? {} : ({ [key]: value } as { [P in K]?: V });
}

function invalid(source: string, path: string, detail: string): IcebergFormatError {
  return new IcebergFormatError(`Invalid table metadata in ${source} at ${path}: ${detail}`, { context: { source, field: path } });
}

function fromZod(source: string, error: z.ZodError): IcebergFormatError {
  const issue = error.issues[0];
  if (issue === undefined) return invalid(source, '$', 'invalid');
  const path = formatPath(issue.path);
  const detail = issue.message.endsWith('received undefined') ? 'required field is missing' : issue.message;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
  return invalid(source, path, detail + more);
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '$' : out;
}
