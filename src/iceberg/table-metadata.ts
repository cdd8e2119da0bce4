/**
 * Table metadata (spec §1) as a domain object. Wire JSON (kebab-case, BigInt-safe) is parsed
 * into this shape by metadata-json.ts and written back from it. int64 values are bigint.
 */
import type { Schema } from './types.js';

export type FormatVersion = 1 | 2 | 3;

export interface PartitionField {
  readonly sourceId: number;
  readonly fieldId: number;
  readonly name: string;
  /** Transform string as in the spec: identity, bucket[N], truncate[W], year, month, day, hour, void. */
  readonly transform: string;
}

export interface PartitionSpec {
  readonly specId: number;
  readonly fields: readonly PartitionField[];
}

export interface SortField {
  readonly transform: string;
  readonly sourceId: number;
  readonly direction: 'asc' | 'desc';
  readonly nullOrder: 'nulls-first' | 'nulls-last';
}

export interface SortOrder {
  readonly orderId: number;
  readonly fields: readonly SortField[];
}

export type SnapshotSummary = Readonly<Record<string, string>> & { readonly operation: SnapshotOperation };
export type SnapshotOperation = 'append' | 'replace' | 'overwrite' | 'delete';

export interface Snapshot {
  readonly snapshotId: bigint;
  readonly parentSnapshotId?: bigint;
  readonly sequenceNumber: bigint;
  readonly timestampMs: bigint;
  readonly manifestList: string;
  readonly summary: SnapshotSummary;
  readonly schemaId?: number;
  readonly firstRowId?: bigint;
  readonly addedRows?: bigint;
  /** v3: id of the encryption key (in `encryptionKeys`) that protects the manifest list. */
  readonly keyId?: string;
  /**
   * v1 legacy only: manifest paths listed inline instead of a manifest list. `manifestList` is
   * then the empty string.
   */
  readonly manifests?: readonly string[];
}

export interface SnapshotRef {
  readonly snapshotId: bigint;
  readonly type: 'branch' | 'tag';
  readonly minSnapshotsToKeep?: number;
  readonly maxSnapshotAgeMs?: bigint;
  readonly maxRefAgeMs?: bigint;
}

export interface SnapshotLogEntry {
  readonly timestampMs: bigint;
  readonly snapshotId: bigint;
}

export interface MetadataLogEntry {
  readonly timestampMs: bigint;
  readonly metadataFile: string;
}

export interface TableMetadata {
  readonly formatVersion: FormatVersion;
  readonly tableUuid: string;
  readonly location: string;
  readonly lastSequenceNumber: bigint;
  readonly lastUpdatedMs: bigint;
  readonly lastColumnId: number;
  readonly schemas: readonly Schema[];
  readonly currentSchemaId: number;
  readonly partitionSpecs: readonly PartitionSpec[];
  readonly defaultSpecId: number;
  readonly lastPartitionId: number;
  readonly properties: Readonly<Record<string, string>>;
  /** undefined when the table has no current snapshot (wire: -1 or null). */
  readonly currentSnapshotId?: bigint;
  readonly snapshots: readonly Snapshot[];
  readonly snapshotLog: readonly SnapshotLogEntry[];
  readonly metadataLog: readonly MetadataLogEntry[];
  readonly sortOrders: readonly SortOrder[];
  readonly defaultSortOrderId: number;
  readonly refs: ReadonlyMap<string, SnapshotRef>;
  /** Kept verbatim so a rewrite never loses what another engine wrote. */
  readonly statistics: readonly unknown[];
  readonly partitionStatistics: readonly unknown[];
  /** v3 only. */
  readonly nextRowId?: bigint;
  /** v3 `encryption-keys`, kept verbatim (wire objects) so a rewrite never drops them. */
  readonly encryptionKeys?: readonly unknown[];
}

export const MAIN_BRANCH = 'main';
