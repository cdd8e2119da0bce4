/**
 * Builds table metadata: a new table (newTableMetadata), and the next metadata after a commit
 * (applyUpdates replays TableUpdates on a base with Java-like validation). Failures that a
 * refresh and rebuild can fix (a stale sequence number or row id) are CommitConflictError;
 * requests that can never apply are IcebergFormatError. Both name the failing update.
 */
import { checkNoMetadataColumnNames } from './metadata-columns.js';
import { randomUUID } from 'node:crypto';
import { CommitConflictError, IcebergFormatError } from '../errors.js';
import { findField, formatVersionProblems, highestFieldId } from './schema.js';
import { currentSchema, defaultSortOrder, defaultSpec } from './snapshot-ancestry.js';
import type {
  FormatVersion,
  MetadataLogEntry,
  PartitionSpec,
  Snapshot,
  SnapshotLogEntry,
  SnapshotRef,
  SortOrder,
  TableMetadata,
} from './table-metadata.js';
import { MAIN_BRANCH } from './table-metadata.js';
import type { Schema } from './types.js';
import type { TableUpdate } from './updates.js';

export const SUPPORTED_FORMAT_VERSION = 3;
export const DEFAULT_FORMAT_VERSION = 2;
export const UNPARTITIONED_LAST_PARTITION_ID = 999;
const LAST_ADDED = -1;
const METADATA_PREVIOUS_VERSIONS_MAX = 'write.metadata.previous-versions-max';
const DEFAULT_PREVIOUS_VERSIONS_MAX = 100;

/** Keys Java derives or interprets and never stores as table properties (ICEBERG.md §1.1). */
export const RESERVED_PROPERTIES: ReadonlySet<string> = new Set([
  'format-version',
  'uuid',
  'snapshot-count',
  'current-snapshot-id',
  'current-snapshot-summary',
  'current-snapshot-timestamp-ms',
  'current-schema',
  'default-partition-spec',
  'default-sort-order',
]);

export interface NewTableArgs {
  readonly location: string;
  readonly schema: Schema;
  readonly partitionSpec?: PartitionSpec;
  readonly sortOrder?: SortOrder;
  readonly properties?: Readonly<Record<string, string>>;
  /** Default 2 (Java's); v1 is allowed for compatibility tests. */
  readonly formatVersion?: FormatVersion;
  readonly tableUuid?: string;
  readonly nowMs?: bigint;
}

export function newTableMetadata(args: NewTableArgs): TableMetadata {
  const properties = { ...(args.properties ?? {}) };
  const formatVersion = args.formatVersion ?? formatVersionProperty(properties['format-version']) ?? DEFAULT_FORMAT_VERSION;
  for (const key of RESERVED_PROPERTIES) delete properties[key];
  const schema: Schema = { ...args.schema, schemaId: 0 };
  checkNoMetadataColumnNames(`New table at ${stripTrailingSlash(args.location)}`, schema.fields);
  const spec: PartitionSpec = { specId: 0, fields: args.partitionSpec?.fields ?? [] };
  const sortFields = args.sortOrder?.fields ?? [];
  const sortOrder: SortOrder = { orderId: sortFields.length === 0 ? 0 : 1, fields: sortFields };
  checkSourceIds(schema, spec, sortOrder, (detail) => new IcebergFormatError(`Cannot create table: ${detail}`));
  checkFormatVersion(schema, formatVersion, [], (detail) => new IcebergFormatError(`Cannot create table: ${detail}`));
  return {
    formatVersion,
    tableUuid: (args.tableUuid ?? randomUUID()).toLowerCase(),
    location: stripTrailingSlash(args.location),
    lastSequenceNumber: 0n,
    lastUpdatedMs: args.nowMs ?? BigInt(Date.now()),
    lastColumnId: highestFieldId(schema),
    schemas: [schema],
    currentSchemaId: 0,
    partitionSpecs: [spec],
    defaultSpecId: 0,
    lastPartitionId: lastPartitionIdOf(spec, UNPARTITIONED_LAST_PARTITION_ID),
    properties,
    snapshots: [],
    snapshotLog: [],
    metadataLog: [],
    sortOrders: [sortOrder],
    defaultSortOrderId: sortOrder.orderId,
    refs: new Map(),
    statistics: [],
    partitionStatistics: [],
    ...(formatVersion >= 3 ? { nextRowId: 0n } : {}),
  };
}

/** The updates Java sends to create `m` (REST stage-create, then commit with assert-create). */
export function updatesForCreate(m: TableMetadata): TableUpdate[] {
  return [
    { action: 'assign-uuid', uuid: m.tableUuid },
    { action: 'upgrade-format-version', formatVersion: m.formatVersion },
    { action: 'add-schema', schema: currentSchema(m), lastColumnId: m.lastColumnId },
    { action: 'set-current-schema', schemaId: LAST_ADDED },
    { action: 'add-spec', spec: defaultSpec(m) },
    { action: 'set-default-spec', specId: LAST_ADDED },
    { action: 'add-sort-order', sortOrder: defaultSortOrder(m) },
    { action: 'set-default-sort-order', sortOrderId: LAST_ADDED },
    { action: 'set-location', location: m.location },
    { action: 'set-properties', updates: { ...m.properties } },
  ];
}

export interface ApplyOptions {
  /** Location of the metadata file `base` was read from; appended to metadata-log. */
  readonly previousMetadataLocation?: string;
  readonly nowMs?: bigint;
}

export function applyUpdates(base: TableMetadata, updates: readonly TableUpdate[], options: ApplyOptions = {}): TableMetadata {
  const draft = new Draft(base, options.nowMs ?? BigInt(Date.now()));
  updates.forEach((update, index) => draft.apply(update, index));
  return draft.build(options.previousMetadataLocation);
}

/**
 * A table created from create updates alone (what a REST server does for `assert-create`
 * commits): starts from nothing, applies `updates`, and checks the result is a whole table.
 */
export function tableMetadataFromUpdates(updates: readonly TableUpdate[], options: { nowMs?: bigint } = {}): TableMetadata {
  const blank: TableMetadata = {
    formatVersion: DEFAULT_FORMAT_VERSION,
    tableUuid: '',
    location: '',
    lastSequenceNumber: 0n,
    lastUpdatedMs: 0n,
    lastColumnId: 0,
    schemas: [],
    currentSchemaId: LAST_ADDED,
    partitionSpecs: [],
    defaultSpecId: LAST_ADDED,
    lastPartitionId: UNPARTITIONED_LAST_PARTITION_ID,
    properties: {},
    snapshots: [],
    snapshotLog: [],
    metadataLog: [],
    sortOrders: [],
    defaultSortOrderId: LAST_ADDED,
    refs: new Map(),
    statistics: [],
    partitionStatistics: [],
  };
  const m = applyUpdates(blank, updates, options);
  const missing = (what: string): IcebergFormatError => new IcebergFormatError(`Cannot create table: no ${what} was set`);
  if (!m.schemas.some((s) => s.schemaId === m.currentSchemaId)) throw missing('current schema');
  if (!m.partitionSpecs.some((s) => s.specId === m.defaultSpecId)) throw missing('default partition spec');
  if (m.location === '') throw missing('location');
  const unsorted = m.defaultSortOrderId === LAST_ADDED ? { sortOrders: [{ orderId: 0, fields: [] }], defaultSortOrderId: 0 } : {};
  return { ...m, ...unsorted, tableUuid: m.tableUuid === '' ? randomUUID() : m.tableUuid };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

class Draft {
  private readonly m: Mutable<TableMetadata>;
  private readonly schemas: Schema[];
  private readonly specs: PartitionSpec[];
  private readonly sortOrders: SortOrder[];
  private readonly snapshots: Snapshot[];
  private readonly snapshotLog: SnapshotLogEntry[];
  private readonly refs: Map<string, SnapshotRef>;
  private readonly properties: Record<string, string>;
  private readonly addedSnapshotIds = new Set<bigint>();
  private lastAddedSchemaId: number | undefined;
  private lastAddedSpecId: number | undefined;
  private lastAddedOrderId: number | undefined;
  private lastUpdatedMs: bigint | undefined;
  private removedSnapshots = false;
  private update: { readonly action: string; readonly index: number } = { action: '', index: -1 };

  constructor(
    private readonly base: TableMetadata,
    private readonly nowMs: bigint,
  ) {
    this.schemas = [...base.schemas];
    this.specs = [...base.partitionSpecs];
    this.sortOrders = [...base.sortOrders];
    this.snapshots = [...base.snapshots];
    this.snapshotLog = [...base.snapshotLog];
    this.refs = new Map(base.refs);
    this.properties = { ...base.properties };
    this.m = {
      ...base,
      schemas: this.schemas,
      partitionSpecs: this.specs,
      sortOrders: this.sortOrders,
      snapshots: this.snapshots,
      snapshotLog: this.snapshotLog,
      refs: this.refs,
      properties: this.properties,
    };
  }

  apply(u: TableUpdate, index: number): void {
    this.update = { action: u.action, index };
    switch (u.action) {
      case 'assign-uuid':
        if (this.m.tableUuid !== '' && this.m.tableUuid !== u.uuid.toLowerCase()) {
          throw this.invalid(`cannot reassign table uuid ${this.m.tableUuid} to ${u.uuid}`);
        }
        this.m.tableUuid = u.uuid.toLowerCase();
        return;
      case 'upgrade-format-version':
        return this.upgradeFormatVersion(u.formatVersion);
      case 'add-schema':
        return this.addSchema(u.schema);
      case 'set-current-schema':
        this.m.currentSchemaId = this.resolve(u.schemaId, this.lastAddedSchemaId, this.schemas.map((s) => s.schemaId), 'schema');
        return;
      case 'add-spec':
        return this.addSpec(u.spec);
      case 'set-default-spec':
        this.m.defaultSpecId = this.resolve(u.specId, this.lastAddedSpecId, this.specs.map((s) => s.specId), 'partition spec');
        return;
      case 'add-sort-order':
        return this.addSortOrder(u.sortOrder);
      case 'set-default-sort-order':
        this.m.defaultSortOrderId = this.resolve(u.sortOrderId, this.lastAddedOrderId, this.sortOrders.map((o) => o.orderId), 'sort order');
        return;
      case 'add-snapshot':
        return this.addSnapshot(u.snapshot);
      case 'set-snapshot-ref': {
        const { action: _action, refName, ...ref } = u;
        return this.setRef(refName, ref);
      }
      case 'remove-snapshots':
        return this.removeSnapshots(u.snapshotIds);
      case 'remove-snapshot-ref':
        this.refs.delete(u.refName);
        if (u.refName === MAIN_BRANCH) delete this.m.currentSnapshotId;
        return;
      case 'set-location':
        if (u.location.trim() === '') throw this.invalid('location must not be empty');
        this.m.location = stripTrailingSlash(u.location);
        return;
      case 'set-properties':
        for (const [key, value] of Object.entries(u.updates)) {
          if (RESERVED_PROPERTIES.has(key)) {
            throw this.invalid(`"${key}" is a reserved property${key === 'format-version' ? '; use upgrade-format-version' : ''}`);
          }
          this.properties[key] = value;
        }
        return;
      case 'remove-properties':
        for (const key of u.removals) delete this.properties[key];
        return;
      default: {
        const unknown: { action: string } = u;
        throw this.invalid(`unknown update action "${unknown.action}"`);
      }
    }
  }

  private upgradeFormatVersion(version: FormatVersion): void {
    if (version > SUPPORTED_FORMAT_VERSION) throw this.invalid(`format version ${version} is not supported`);
    if (version < this.m.formatVersion) throw this.invalid(`cannot downgrade format version ${this.m.formatVersion} to ${version}`);
    this.m.formatVersion = version;
    if (version >= 3 && this.m.nextRowId === undefined) this.m.nextRowId = 0n; // row lineage starts at upgrade
  }

  private addSchema(schema: Schema): void {
    const same = this.schemas.find((s) => sameSchema(s, schema));
    if (same !== undefined) {
      this.lastAddedSchemaId = same.schemaId;
      return;
    }
    checkFormatVersion(schema, this.m.formatVersion, this.schemas, (detail) => this.invalid(detail));
    const schemaId = this.schemas.length === 0 ? 0 : Math.max(...this.schemas.map((s) => s.schemaId)) + 1;
    this.schemas.push({ ...schema, schemaId });
    this.m.lastColumnId = Math.max(this.m.lastColumnId, highestFieldId(schema));
    this.lastAddedSchemaId = schemaId;
  }

  private addSpec(spec: PartitionSpec): void {
    checkSourceIds(this.currentSchema(), spec, undefined, (detail) => this.invalid(detail));
    const same = this.specs.find((s) => sameJson(s.fields, spec.fields));
    if (same !== undefined) {
      this.lastAddedSpecId = same.specId;
      return;
    }
    const specId = this.specs.length === 0 ? 0 : Math.max(...this.specs.map((s) => s.specId)) + 1;
    this.specs.push({ specId, fields: spec.fields });
    this.m.lastPartitionId = lastPartitionIdOf(spec, this.m.lastPartitionId);
    this.lastAddedSpecId = specId;
  }

  private addSortOrder(order: SortOrder): void {
    checkSourceIds(this.currentSchema(), undefined, order, (detail) => this.invalid(detail));
    const same = order.fields.length === 0 ? { orderId: 0 } : this.sortOrders.find((o) => sameJson(o.fields, order.fields));
    if (same !== undefined) {
      if (!this.sortOrders.some((o) => o.orderId === same.orderId)) this.sortOrders.push({ orderId: 0, fields: [] });
      this.lastAddedOrderId = same.orderId;
      return;
    }
    const orderId = Math.max(0, ...this.sortOrders.map((o) => o.orderId)) + 1;
    this.sortOrders.push({ orderId, fields: order.fields });
    this.lastAddedOrderId = orderId;
  }

  private addSnapshot(snapshot: Snapshot): void {
    const id = snapshot.snapshotId;
    if (this.snapshots.some((s) => s.snapshotId === id)) throw this.invalid(`snapshot ${id} already exists`);
    const last = this.m.lastSequenceNumber;
    if (this.m.formatVersion > 1 && snapshot.parentSnapshotId !== undefined && snapshot.sequenceNumber <= last) {
      throw this.conflict(`snapshot ${id} has sequence number ${snapshot.sequenceNumber}, not above last-sequence-number ${last}`);
    }
    if (this.m.formatVersion >= 3) {
      const next = this.m.nextRowId ?? 0n;
      if (snapshot.firstRowId === undefined) throw this.invalid(`v3 snapshot ${id} has no first-row-id`);
      if (snapshot.addedRows === undefined) throw this.invalid(`v3 snapshot ${id} has no added-rows`);
      if (snapshot.firstRowId < next) {
        throw this.conflict(`snapshot ${id} has first-row-id ${snapshot.firstRowId}, behind next-row-id ${next}`);
      }
      this.m.nextRowId = next + snapshot.addedRows;
    }
    this.snapshots.push(snapshot);
    this.addedSnapshotIds.add(id);
    if (snapshot.sequenceNumber > last) this.m.lastSequenceNumber = snapshot.sequenceNumber;
    this.lastUpdatedMs = snapshot.timestampMs;
  }

  private setRef(name: string, ref: SnapshotRef): void {
    const snapshot = this.snapshots.find((s) => s.snapshotId === ref.snapshotId);
    if (snapshot === undefined) throw this.invalid(`ref "${name}" points at unknown snapshot ${ref.snapshotId}`);
    if (name === MAIN_BRANCH && ref.type !== 'branch') throw this.invalid('main must be a branch');
    if (ref.type === 'tag' && (ref.minSnapshotsToKeep !== undefined || ref.maxSnapshotAgeMs !== undefined)) {
      throw this.invalid(`tag "${name}" cannot set min-snapshots-to-keep or max-snapshot-age-ms`);
    }
    const existing = this.refs.get(name);
    const next: SnapshotRef = {
      snapshotId: ref.snapshotId,
      type: ref.type,
      ...(ref.minSnapshotsToKeep === undefined ? {} : { minSnapshotsToKeep: ref.minSnapshotsToKeep }),
      ...(ref.maxSnapshotAgeMs === undefined ? {} : { maxSnapshotAgeMs: ref.maxSnapshotAgeMs }),
      ...(ref.maxRefAgeMs === undefined ? {} : { maxRefAgeMs: ref.maxRefAgeMs }),
    };
    if (existing !== undefined && sameJson(existing, next)) return;
    this.refs.set(name, next);
    if (name === MAIN_BRANCH && this.m.currentSnapshotId !== ref.snapshotId) {
      this.m.currentSnapshotId = ref.snapshotId;
      // A snapshot added in this commit is logged at its own timestamp; a rollback at "now".
      this.lastUpdatedMs = this.addedSnapshotIds.has(ref.snapshotId) ? snapshot.timestampMs : (this.lastUpdatedMs ?? this.nowMs);
      this.snapshotLog.push({ timestampMs: this.lastUpdatedMs, snapshotId: ref.snapshotId });
    }
  }

  private removeSnapshots(ids: readonly bigint[]): void {
    const remove = new Set(ids);
    const kept = this.snapshots.filter((s) => !remove.has(s.snapshotId));
    if (kept.length === this.snapshots.length) return;
    this.snapshots.splice(0, this.snapshots.length, ...kept);
    for (const [name, ref] of [...this.refs]) {
      if (remove.has(ref.snapshotId)) {
        this.refs.delete(name);
        if (name === MAIN_BRANCH) delete this.m.currentSnapshotId;
      }
    }
    const keepStats = (entries: readonly unknown[]): unknown[] => entries.filter((e) => !remove.has(statisticsSnapshotId(e) ?? -1n));
    this.m.statistics = keepStats(this.m.statistics);
    this.m.partitionStatistics = keepStats(this.m.partitionStatistics);
    this.removedSnapshots = true;
  }

  build(previousMetadataLocation: string | undefined): TableMetadata {
    if (this.removedSnapshots) {
      // Java keeps only the history after the newest entry whose snapshot is gone.
      const alive = new Set(this.snapshots.map((s) => s.snapshotId));
      let cut = 0;
      this.snapshotLog.forEach((e, i) => {
        if (!alive.has(e.snapshotId)) cut = i + 1;
      });
      this.snapshotLog.splice(0, cut);
    }
    let metadataLog: MetadataLogEntry[] = [...this.base.metadataLog];
    if (previousMetadataLocation !== undefined) {
      metadataLog.push({ timestampMs: this.base.lastUpdatedMs, metadataFile: previousMetadataLocation });
      const max = Math.max(1, Number(this.properties[METADATA_PREVIOUS_VERSIONS_MAX] ?? DEFAULT_PREVIOUS_VERSIONS_MAX) || DEFAULT_PREVIOUS_VERSIONS_MAX);
      if (metadataLog.length > max) metadataLog = metadataLog.slice(metadataLog.length - max);
    }
    return { ...this.m, metadataLog, lastUpdatedMs: this.lastUpdatedMs ?? this.nowMs };
  }

  private currentSchema(): Schema {
    const schema = this.schemas.find((s) => s.schemaId === this.m.currentSchemaId);
    if (schema === undefined) throw this.invalid(`current schema ${this.m.currentSchemaId} does not exist`);
    return schema;
  }

  private resolve(id: number, lastAdded: number | undefined, existing: readonly number[], what: string): number {
    if (id === LAST_ADDED) {
      if (lastAdded === undefined) throw this.invalid(`cannot use the last added ${what}: none was added in this commit`);
      return lastAdded;
    }
    if (!existing.includes(id)) throw this.invalid(`${what} ${id} does not exist`);
    return id;
  }

  private invalid(detail: string): IcebergFormatError {
    const { action, index } = this.update;
    return new IcebergFormatError(`Cannot apply update ${index} (${action}): ${detail}`, { context: { update: action, index } });
  }

  private conflict(detail: string): CommitConflictError {
    const { action, index } = this.update;
    return new CommitConflictError(`Cannot apply update ${index} (${action}): ${detail}`, { context: { update: action, index } });
  }
}

function formatVersionProperty(value: string | undefined): FormatVersion | undefined {
  if (value === undefined) return undefined;
  if (value === '1' || value === '2' || value === '3') return Number(value) as FormatVersion;
  throw new IcebergFormatError(`Cannot create table: property format-version must be 1, 2 or 3, got "${value}"`, {
    context: { field: 'format-version' },
  });
}

function checkFormatVersion(schema: Schema, formatVersion: number, existing: readonly Schema[], fail: (detail: string) => Error): void {
  const problems = formatVersionProblems(schema, formatVersion, existing);
  if (problems.length > 0) throw fail(problems.join('; '));
}

function checkSourceIds(
  schema: Schema,
  spec: PartitionSpec | undefined,
  order: SortOrder | undefined,
  fail: (detail: string) => Error,
): void {
  for (const f of spec?.fields ?? []) {
    if (findField(schema, f.sourceId) === undefined) {
      throw fail(`partition field "${f.name}" has source id ${f.sourceId}, which is not in schema ${schema.schemaId}`);
    }
  }
  for (const f of order?.fields ?? []) {
    if (findField(schema, f.sourceId) === undefined) {
      throw fail(`sort field ${f.transform}(${f.sourceId}) has a source id not in schema ${schema.schemaId}`);
    }
  }
}

function lastPartitionIdOf(spec: PartitionSpec, previous: number): number {
  return Math.max(previous, ...spec.fields.map((f) => f.fieldId));
}

function sameSchema(a: Schema, b: Schema): boolean {
  return sameJson(a.fields, b.fields) && sameJson(a.identifierFieldIds, b.identifierFieldIds);
}

/** Structural equality of plain domain values (bigint-aware, key-order-insensitive). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function statisticsSnapshotId(entry: unknown): bigint | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const id = (entry as Record<string, unknown>)['snapshot-id'];
  return typeof id === 'bigint' || typeof id === 'number' ? BigInt(id) : undefined;
}

function stripTrailingSlash(location: string): string {
  return location.replace(/\/+$/, '');
}
