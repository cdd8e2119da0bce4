/**
 * Table updates (REST `action`s, spec §7.5) as a discriminated union of domain values.
 * metadata-builder.ts applies them; update-json.ts maps them to and from the wire.
 */
import type { Schema } from './types.js';
import type { FormatVersion, PartitionSpec, Snapshot, SnapshotRef, SortOrder } from './table-metadata.js';

export type TableUpdate =
  | { readonly action: 'assign-uuid'; readonly uuid: string }
  | { readonly action: 'upgrade-format-version'; readonly formatVersion: FormatVersion }
  /**
   * `lastColumnId`: the table's last column id once the schema is added (the wire's deprecated
   * `last-column-id`, which servers still require); the schema's highest field id when absent.
   */
  | { readonly action: 'add-schema'; readonly schema: Schema; readonly lastColumnId?: number }
  | { readonly action: 'set-current-schema'; readonly schemaId: number }
  | { readonly action: 'add-spec'; readonly spec: PartitionSpec }
  | { readonly action: 'set-default-spec'; readonly specId: number }
  | { readonly action: 'add-sort-order'; readonly sortOrder: SortOrder }
  | { readonly action: 'set-default-sort-order'; readonly sortOrderId: number }
  | { readonly action: 'add-snapshot'; readonly snapshot: Snapshot }
  | ({ readonly action: 'set-snapshot-ref'; readonly refName: string } & SnapshotRef)
  | { readonly action: 'remove-snapshots'; readonly snapshotIds: readonly bigint[] }
  | { readonly action: 'remove-snapshot-ref'; readonly refName: string }
  | { readonly action: 'set-location'; readonly location: string }
  | { readonly action: 'set-properties'; readonly updates: Readonly<Record<string, string>> }
  | { readonly action: 'remove-properties'; readonly removals: readonly string[] };

export type TableUpdateAction = TableUpdate['action'];
