import { describe, expect, it } from 'vitest';
import { CommitConflictError, IcebergFormatError } from '../../../src/errors.js';
import { applyUpdates, newTableMetadata, tableMetadataFromUpdates, updatesForCreate } from '../../../src/iceberg/metadata-builder.js';
import { parseTableMetadata, serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { ancestorsOf, currentSchema, currentSnapshot, defaultSpec, snapshotById } from '../../../src/iceberg/snapshot-ancestry.js';
import type { Snapshot, TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import type { TableUpdate } from '../../../src/iceberg/updates.js';

const schema: Schema = {
  schemaId: 7,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'ts', required: false, type: primitive('timestamptz') },
    { id: 3, name: 'tags', required: false, type: { kind: 'list', elementId: 4, elementRequired: false, element: primitive('string') } },
  ],
};

const NOW = 1_700_000_000_000n;

function table(formatVersion: 2 | 3 = 2): TableMetadata {
  return newTableMetadata({
    location: 's3://bucket/wh/db/t/',
    schema,
    partitionSpec: { specId: 5, fields: [{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' }] },
    sortOrder: { orderId: 9, fields: [{ transform: 'identity', sourceId: 1, direction: 'asc', nullOrder: 'nulls-first' }] },
    properties: { 'format-version': String(formatVersion), owner: 'me', 'current-snapshot-id': '5' },
    tableUuid: 'A5E6E5C6-1F4B-4C3C-9E8A-2D7A6B3C4D5E',
    nowMs: NOW,
  });
}

function snap(id: bigint, parent: bigint | undefined, seq: bigint, extra: Partial<Snapshot> = {}): Snapshot {
  return {
    snapshotId: id,
    ...(parent === undefined ? {} : { parentSnapshotId: parent }),
    sequenceNumber: seq,
    timestampMs: NOW + seq,
    manifestList: `s3://bucket/wh/db/t/metadata/snap-${id}.avro`,
    summary: { operation: 'append' },
    ...extra,
  };
}

const commit = (s: Snapshot, ref = 'main'): TableUpdate[] => [
  { action: 'add-snapshot', snapshot: s },
  { action: 'set-snapshot-ref', refName: ref, type: 'branch', snapshotId: s.snapshotId },
];

function fails(fn: () => unknown, type: typeof IcebergFormatError | typeof CommitConflictError, fragment: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    expect((e as Error).message).toContain(fragment);
    return;
  }
  throw new Error(`expected ${type.name}`);
}

describe('newTableMetadata', () => {
  it('builds a v2 table with ids, defaults and reserved properties handled', () => {
    const m = table();
    expect(m.formatVersion).toBe(2);
    expect(m.tableUuid).toBe('a5e6e5c6-1f4b-4c3c-9e8a-2d7a6b3c4d5e');
    expect(m.location).toBe('s3://bucket/wh/db/t');
    expect(m.lastColumnId).toBe(4);
    expect(m.currentSchemaId).toBe(0);
    expect(m.schemas[0]?.schemaId).toBe(0);
    expect(m.partitionSpecs).toEqual([{ specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' }] }]);
    expect(m.lastPartitionId).toBe(1000);
    expect(m.sortOrders[0]?.orderId).toBe(1);
    expect(m.defaultSortOrderId).toBe(1);
    expect(m.properties).toEqual({ owner: 'me' });
    expect(m.lastUpdatedMs).toBe(NOW);
    expect(m.nextRowId).toBeUndefined();
    expect(m.currentSnapshotId).toBeUndefined();
  });

  it('unpartitioned and unsorted by default; v3 starts row lineage at 0', () => {
    const m = newTableMetadata({ location: 'file:///t', schema, formatVersion: 3 });
    expect(m.partitionSpecs).toEqual([{ specId: 0, fields: [] }]);
    expect(m.lastPartitionId).toBe(999);
    expect(m.sortOrders).toEqual([{ orderId: 0, fields: [] }]);
    expect(m.nextRowId).toBe(0n);
    const text = serializeTableMetadata(m);
    expect(parseTableMetadata(text, 'new')).toEqual(m);
  });

  it('rejects a partition source column that is not in the schema and a bad format-version', () => {
    fails(
      () => newTableMetadata({ location: 'file:///t', schema, partitionSpec: { specId: 0, fields: [{ sourceId: 42, fieldId: 1000, name: 'x', transform: 'identity' }] } }),
      IcebergFormatError,
      'source id 42',
    );
    fails(() => newTableMetadata({ location: 'file:///t', schema, properties: { 'format-version': '4' } }), IcebergFormatError, 'format-version');
  });
});

describe('updatesForCreate', () => {
  it('follows the Java create sequence and rebuilds the same table from nothing', () => {
    const m = table(3);
    const updates = updatesForCreate(m);
    expect(updates.map((u) => u.action)).toEqual([
      'assign-uuid',
      'upgrade-format-version',
      'add-schema',
      'set-current-schema',
      'add-spec',
      'set-default-spec',
      'add-sort-order',
      'set-default-sort-order',
      'set-location',
      'set-properties',
    ]);
    expect(tableMetadataFromUpdates(updates, { nowMs: NOW })).toEqual(m);
    const unsorted = newTableMetadata({ location: 'file:///t', schema, nowMs: NOW });
    expect(tableMetadataFromUpdates(updatesForCreate(unsorted), { nowMs: NOW })).toEqual(unsorted);
  });

  it('refuses create updates that leave the table without a schema', () => {
    expect(() => tableMetadataFromUpdates([{ action: 'set-location', location: 'file:///t' }])).toThrow(/no current schema/);
  });
});

describe('applyUpdates', () => {
  it('add-snapshot + main ref: current snapshot, sequence number, snapshot-log, metadata-log, last-updated-ms', () => {
    const base = table();
    const s1 = snap(3051729675574597004n, undefined, 1n);
    const m1 = applyUpdates(base, commit(s1), { previousMetadataLocation: 's3://m/00000.metadata.json', nowMs: NOW + 100n });
    expect(m1.currentSnapshotId).toBe(s1.snapshotId);
    expect(m1.lastSequenceNumber).toBe(1n);
    expect(m1.refs.get('main')).toEqual({ snapshotId: s1.snapshotId, type: 'branch' });
    expect(m1.snapshotLog).toEqual([{ timestampMs: s1.timestampMs, snapshotId: s1.snapshotId }]);
    expect(m1.metadataLog).toEqual([{ timestampMs: base.lastUpdatedMs, metadataFile: 's3://m/00000.metadata.json' }]);
    expect(m1.lastUpdatedMs).toBe(s1.timestampMs);
    expect(base.snapshots).toEqual([]); // base untouched

    const s2 = snap(9223372036854775807n, s1.snapshotId, 2n);
    const m2 = applyUpdates(m1, commit(s2), { previousMetadataLocation: 's3://m/00001.metadata.json' });
    expect([...ancestorsOf(m2, m2.currentSnapshotId)].map((s) => s.snapshotId)).toEqual([s2.snapshotId, s1.snapshotId]);
    expect(m2.metadataLog.map((e) => e.metadataFile)).toEqual(['s3://m/00000.metadata.json', 's3://m/00001.metadata.json']);
    expect(parseTableMetadata(serializeTableMetadata(m2), 'm2')).toEqual(m2);
  });

  it('rejects a stale sequence number as a conflict and a duplicate snapshot as invalid', () => {
    const base = table();
    const s1 = snap(11n, undefined, 1n);
    const m1 = applyUpdates(base, commit(s1));
    fails(() => applyUpdates(m1, commit(snap(12n, 11n, 1n))), CommitConflictError, 'update 0 (add-snapshot)');
    fails(() => applyUpdates(m1, commit(snap(11n, 11n, 2n))), IcebergFormatError, 'snapshot 11 already exists');
    // a snapshot without parent may reuse an old sequence number (Java allows it)
    expect(applyUpdates(m1, [{ action: 'add-snapshot', snapshot: snap(13n, undefined, 1n) }]).snapshots).toHaveLength(2);
  });

  it('v3: assigns row ids, requires first-row-id >= next-row-id', () => {
    const base = table(3);
    const s1 = snap(21n, undefined, 1n, { firstRowId: 0n, addedRows: 10n });
    const m1 = applyUpdates(base, commit(s1));
    expect(m1.nextRowId).toBe(10n);
    fails(() => applyUpdates(m1, commit(snap(22n, 21n, 2n, { firstRowId: 5n, addedRows: 1n }))), CommitConflictError, 'first-row-id 5');
    fails(() => applyUpdates(m1, commit(snap(22n, 21n, 2n))), IcebergFormatError, 'first-row-id');
    const m2 = applyUpdates(m1, commit(snap(22n, 21n, 2n, { firstRowId: 10n, addedRows: 7n })));
    expect(m2.nextRowId).toBe(17n);
  });

  it('set-snapshot-ref: branches and tags, rollback logs at now, unknown snapshot rejected', () => {
    const base = table();
    const s1 = snap(1n, undefined, 1n);
    const s2 = snap(2n, 1n, 2n);
    const m2 = applyUpdates(applyUpdates(base, commit(s1)), commit(s2));
    const tagged = applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 'v1', type: 'tag', snapshotId: 1n, maxRefAgeMs: 1000n }]);
    expect(tagged.refs.get('v1')).toEqual({ snapshotId: 1n, type: 'tag', maxRefAgeMs: 1000n });
    expect(tagged.currentSnapshotId).toBe(2n);
    const rolledBack = applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: 1n }], { nowMs: NOW + 999n });
    expect(rolledBack.currentSnapshotId).toBe(1n);
    expect(rolledBack.snapshotLog.at(-1)).toEqual({ timestampMs: NOW + 999n, snapshotId: 1n });
    expect(rolledBack.lastUpdatedMs).toBe(NOW + 999n);
    fails(() => applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 'b', type: 'branch', snapshotId: 77n }]), IcebergFormatError, 'unknown snapshot 77');
    fails(() => applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 'main', type: 'tag', snapshotId: 1n }]), IcebergFormatError, 'main must be a branch');
    fails(
      () => applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 't', type: 'tag', snapshotId: 1n, minSnapshotsToKeep: 2 }]),
      IcebergFormatError,
      'min-snapshots-to-keep',
    );
    // a branch other than main does not move the current snapshot
    const branched = applyUpdates(m2, commit(snap(3n, 2n, 3n), 'audit'));
    expect(branched.currentSnapshotId).toBe(2n);
    expect(branched.refs.get('audit')?.snapshotId).toBe(3n);
  });

  it('remove-snapshot-ref and remove-snapshots drop refs, current snapshot, stale history and statistics', () => {
    const base = table();
    const s1 = snap(1n, undefined, 1n);
    const s2 = snap(2n, 1n, 2n);
    const m2 = { ...applyUpdates(applyUpdates(base, commit(s1)), commit(s2)), statistics: [{ 'snapshot-id': 1n, 'statistics-path': 'x' }] };
    const withTag = applyUpdates(m2, [{ action: 'set-snapshot-ref', refName: 'old', type: 'tag', snapshotId: 1n }]);
    const removed = applyUpdates(withTag, [{ action: 'remove-snapshots', snapshotIds: [1n] }]);
    expect(removed.snapshots.map((s) => s.snapshotId)).toEqual([2n]);
    expect(removed.refs.has('old')).toBe(false);
    expect(removed.snapshotLog.map((e) => e.snapshotId)).toEqual([2n]);
    expect(removed.statistics).toEqual([]);
    expect(currentSnapshot(removed)?.snapshotId).toBe(2n);
    const noMain = applyUpdates(removed, [{ action: 'remove-snapshot-ref', refName: 'main' }]);
    expect(noMain.currentSnapshotId).toBeUndefined();
    expect(noMain.refs.size).toBe(0);
  });

  it('add-schema raises last-column-id, reuses an equal schema, set-current-schema -1 picks it', () => {
    const base = table();
    const wider: Schema = { ...schema, fields: [...schema.fields, { id: 10, name: 'extra', required: false, type: primitive('string') }] };
    const m = applyUpdates(base, [
      { action: 'add-schema', schema: wider },
      { action: 'set-current-schema', schemaId: -1 },
    ]);
    expect(m.lastColumnId).toBe(10);
    expect(m.currentSchemaId).toBe(1);
    expect(currentSchema(m).fields.map((f) => f.name)).toEqual(['id', 'ts', 'tags', 'extra']);
    const again = applyUpdates(m, [{ action: 'add-schema', schema: { ...schema, schemaId: 99 } }, { action: 'set-current-schema', schemaId: -1 }]);
    expect(again.schemas).toHaveLength(2);
    expect(again.currentSchemaId).toBe(0);
    fails(() => applyUpdates(base, [{ action: 'set-current-schema', schemaId: -1 }]), IcebergFormatError, 'none was added');
    fails(() => applyUpdates(base, [{ action: 'set-current-schema', schemaId: 4 }]), IcebergFormatError, 'schema 4 does not exist');
  });

  it('add-spec / set-default-spec and add-sort-order / set-default-sort-order', () => {
    const base = table();
    const m = applyUpdates(base, [
      { action: 'add-spec', spec: { specId: 0, fields: [{ sourceId: 1, fieldId: 1001, name: 'id_bucket', transform: 'bucket[16]' }] } },
      { action: 'set-default-spec', specId: -1 },
      { action: 'add-sort-order', sortOrder: { orderId: 0, fields: [{ transform: 'identity', sourceId: 2, direction: 'desc', nullOrder: 'nulls-last' }] } },
      { action: 'set-default-sort-order', sortOrderId: -1 },
    ]);
    expect(defaultSpec(m).specId).toBe(1);
    expect(m.lastPartitionId).toBe(1001);
    expect(m.defaultSortOrderId).toBe(2);
    const unsorted = applyUpdates(m, [{ action: 'add-sort-order', sortOrder: { orderId: 5, fields: [] } }, { action: 'set-default-sort-order', sortOrderId: -1 }]);
    expect(unsorted.defaultSortOrderId).toBe(0);
    expect(unsorted.sortOrders.filter((o) => o.orderId === 0)).toEqual([{ orderId: 0, fields: [] }]);
    fails(
      () => applyUpdates(base, [{ action: 'add-spec', spec: { specId: 0, fields: [{ sourceId: 50, fieldId: 1001, name: 'b', transform: 'identity' }] } }]),
      IcebergFormatError,
      'update 0 (add-spec)',
    );
    fails(() => applyUpdates(base, [{ action: 'set-default-spec', specId: 3 }]), IcebergFormatError, 'partition spec 3 does not exist');
  });

  it('properties, location, uuid and format version', () => {
    const base = table();
    const m = applyUpdates(base, [
      { action: 'set-properties', updates: { a: '1', b: '2' } },
      { action: 'remove-properties', removals: ['a', 'missing'] },
      { action: 'set-location', location: 's3://other/loc/' },
      { action: 'assign-uuid', uuid: base.tableUuid },
      { action: 'upgrade-format-version', formatVersion: 3 },
    ]);
    expect(m.properties).toEqual({ owner: 'me', b: '2' });
    expect(m.location).toBe('s3://other/loc');
    expect(m.formatVersion).toBe(3);
    expect(m.nextRowId).toBe(0n);
    fails(() => applyUpdates(m, [{ action: 'upgrade-format-version', formatVersion: 2 }]), IcebergFormatError, 'downgrade');
    fails(() => applyUpdates(base, [{ action: 'assign-uuid', uuid: '00000000-0000-4000-8000-000000000000' }]), IcebergFormatError, 'reassign');
    fails(() => applyUpdates(base, [{ action: 'set-properties', updates: { 'format-version': '3' } }]), IcebergFormatError, 'upgrade-format-version');
  });

  it('keeps only write.metadata.previous-versions-max metadata-log entries', () => {
    let m = applyUpdates(table(), [{ action: 'set-properties', updates: { 'write.metadata.previous-versions-max': '2' } }]);
    for (let i = 0; i < 4; i++) m = applyUpdates(m, [], { previousMetadataLocation: `s3://m/${i}.json` });
    expect(m.metadataLog.map((e) => e.metadataFile)).toEqual(['s3://m/2.json', 's3://m/3.json']);
  });
});

describe('snapshot-ancestry', () => {
  it('walks parents until an expired one and tolerates unknown ids', () => {
    const base = table();
    let m = base;
    for (const [id, parent, seq] of [[1n, undefined, 1n], [2n, 1n, 2n], [3n, 2n, 3n]] as const) m = applyUpdates(m, commit(snap(id, parent, seq)));
    expect([...ancestorsOf(m, 3n)].map((s) => s.snapshotId)).toEqual([3n, 2n, 1n]);
    const expired = applyUpdates(m, [{ action: 'remove-snapshots', snapshotIds: [2n] }]);
    expect([...ancestorsOf(expired, 3n)].map((s) => s.snapshotId)).toEqual([3n]);
    expect([...ancestorsOf(m, 99n)]).toEqual([]);
    expect(snapshotById(m, 2n)?.parentSnapshotId).toBe(1n);
  });
});
