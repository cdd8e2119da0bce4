/**
 * Lookups over table metadata: snapshots by id and their ancestry (parent chain), schemas,
 * partition specs and sort orders by id.
 */
import { IcebergFormatError } from '../errors.js';
import type { PartitionSpec, Snapshot, SortOrder, TableMetadata } from './table-metadata.js';
import { MAIN_BRANCH } from './table-metadata.js';
import type { Schema } from './types.js';

export function snapshotById(metadata: TableMetadata, snapshotId: bigint): Snapshot | undefined {
  return metadata.snapshots.find((s) => s.snapshotId === snapshotId);
}

export function currentSnapshot(metadata: TableMetadata): Snapshot | undefined {
  return metadata.currentSnapshotId === undefined ? undefined : snapshotById(metadata, metadata.currentSnapshotId);
}

/** Head snapshot of a branch or tag; undefined when the ref does not exist. */
export function snapshotForRef(metadata: TableMetadata, ref: string = MAIN_BRANCH): Snapshot | undefined {
  const id = metadata.refs.get(ref)?.snapshotId;
  return id === undefined ? undefined : snapshotById(metadata, id);
}

/**
 * The snapshot itself, then its parent, grandparent…, newest first. Stops where a parent is no
 * longer in the metadata (expired), or at once when `snapshotId` itself is unknown.
 */
export function* ancestorsOf(metadata: TableMetadata, snapshotId: bigint | undefined): Generator<Snapshot> {
  const byId = new Map(metadata.snapshots.map((s) => [s.snapshotId, s]));
  const seen = new Set<bigint>();
  let id = snapshotId;
  while (id !== undefined && !seen.has(id)) {
    const snapshot = byId.get(id);
    if (snapshot === undefined) return;
    seen.add(id);
    yield snapshot;
    id = snapshot.parentSnapshotId;
  }
}

export function schemaById(metadata: TableMetadata, schemaId: number): Schema | undefined {
  return metadata.schemas.find((s) => s.schemaId === schemaId);
}

export function currentSchema(metadata: TableMetadata): Schema {
  return required(schemaById(metadata, metadata.currentSchemaId), 'current-schema-id', metadata.currentSchemaId);
}

export function specById(metadata: TableMetadata, specId: number): PartitionSpec | undefined {
  return metadata.partitionSpecs.find((s) => s.specId === specId);
}

export function defaultSpec(metadata: TableMetadata): PartitionSpec {
  return required(specById(metadata, metadata.defaultSpecId), 'default-spec-id', metadata.defaultSpecId);
}

export function sortOrderById(metadata: TableMetadata, orderId: number): SortOrder | undefined {
  return metadata.sortOrders.find((o) => o.orderId === orderId);
}

export function defaultSortOrder(metadata: TableMetadata): SortOrder {
  return required(sortOrderById(metadata, metadata.defaultSortOrderId), 'default-sort-order-id', metadata.defaultSortOrderId);
}

function required<T>(value: T | undefined, field: string, id: number): T {
  if (value === undefined) {
    throw new IcebergFormatError(`Table metadata ${field} ${id} does not exist`, { context: { field, id } });
  }
  return value;
}
