import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../src/iceberg/json.js';
import { applyUpdates, newTableMetadata, tableMetadataFromUpdates, updatesForCreate } from '../../../src/iceberg/metadata-builder.js';
import { parseTableMetadata } from '../../../src/iceberg/metadata-json.js';
import type { TableRequirement } from '../../../src/iceberg/requirements.js';
import type { Snapshot } from '../../../src/iceberg/table-metadata.js';
import { decimal, primitive, type Schema } from '../../../src/iceberg/types.js';
import {
  commitRequestFromJson,
  commitRequestToJson,
  requirementFromWire,
  requirementToWire,
  updateFromWire,
  updateToWire,
} from '../../../src/iceberg/update-json.js';
import type { TableUpdate } from '../../../src/iceberg/updates.js';
import { rejection } from './rejection.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const RUST_TM = join(FIXTURES, 'iceberg-rust/crates/iceberg/testdata/table_metadata');

const INT64_MAX = 9223372036854775807n;
const NOW = 1_700_000_000_000n;

const schema: Schema = {
  schemaId: 3,
  identifierFieldIds: [1],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'ts', required: false, type: primitive('timestamptz'), doc: 'event time' },
    { id: 3, name: 'price', required: false, type: decimal(9, 2) },
    {
      id: 4,
      name: 'attrs',
      required: false,
      type: { kind: 'map', keyId: 5, key: primitive('string'), valueId: 6, valueRequired: false, value: primitive('string') },
    },
  ],
};

const snapshot: Snapshot = {
  snapshotId: INT64_MAX,
  parentSnapshotId: 3051729675574597004n,
  sequenceNumber: 7n,
  timestampMs: NOW,
  manifestList: 's3://b/wh/db/t/metadata/snap-1.avro',
  summary: { operation: 'append', 'added-data-files': '1', 'total-records': '10' },
  schemaId: 3,
  firstRowId: 100n,
  addedRows: 10n,
};

/** One value of every update action (§7.5), with the int64 fields above 2^53. */
const everyUpdate: TableUpdate[] = [
  { action: 'assign-uuid', uuid: '9c12d441-03fe-4693-9a96-a0705ddf69c1' },
  { action: 'upgrade-format-version', formatVersion: 3 },
  { action: 'add-schema', schema, lastColumnId: 6 },
  { action: 'set-current-schema', schemaId: -1 },
  { action: 'add-spec', spec: { specId: 1, fields: [{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' }, { sourceId: 1, fieldId: 1001, name: 'id_bucket', transform: 'bucket[16]' }] } },
  { action: 'set-default-spec', specId: -1 },
  { action: 'add-sort-order', sortOrder: { orderId: 1, fields: [{ transform: 'identity', sourceId: 1, direction: 'desc', nullOrder: 'nulls-last' }] } },
  { action: 'set-default-sort-order', sortOrderId: 1 },
  { action: 'add-snapshot', snapshot },
  { action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: INT64_MAX },
  { action: 'set-snapshot-ref', refName: 'v1', type: 'tag', snapshotId: 5n, minSnapshotsToKeep: 2, maxSnapshotAgeMs: 86_400_000n, maxRefAgeMs: INT64_MAX },
  { action: 'remove-snapshots', snapshotIds: [1n, INT64_MAX] },
  { action: 'remove-snapshot-ref', refName: 'v1' },
  { action: 'set-location', location: 's3://b/wh/db/t2' },
  { action: 'set-properties', updates: { owner: 'me', 'write.format.default': 'parquet' } },
  { action: 'remove-properties', removals: ['owner'] },
];

const everyRequirement: TableRequirement[] = [
  { type: 'assert-create' },
  { type: 'assert-table-uuid', uuid: '9c12d441-03fe-4693-9a96-a0705ddf69c1' },
  { type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: INT64_MAX },
  { type: 'assert-ref-snapshot-id', ref: 'branch-x', snapshotId: null },
  { type: 'assert-last-assigned-field-id', lastAssignedFieldId: 6 },
  { type: 'assert-current-schema-id', currentSchemaId: 3 },
  { type: 'assert-last-assigned-partition-id', lastAssignedPartitionId: 1001 },
  { type: 'assert-default-spec-id', defaultSpecId: 1 },
  { type: 'assert-default-sort-order-id', defaultSortOrderId: 0 },
];

/** Through the real JSON text, as a REST body would travel. */
const overTheWire = (wire: Record<string, unknown>): unknown => parseJson(stringifyJson(wire), 'test');


describe('round trip domain → wire JSON text → domain', () => {
  it('covers every update action of §7.5 that Thund models', () => {
    expect(new Set(everyUpdate.map((u) => u.action))).toEqual(
      new Set([
        'assign-uuid', 'upgrade-format-version', 'add-schema', 'set-current-schema', 'add-spec', 'set-default-spec',
        'add-sort-order', 'set-default-sort-order', 'add-snapshot', 'set-snapshot-ref', 'remove-snapshots',
        'remove-snapshot-ref', 'set-location', 'set-properties', 'remove-properties',
      ]),
    );
    expect(new Set(everyRequirement.map((r) => r.type)).size).toBe(8);
  });

  it.each(everyUpdate.map((u, i) => [`${u.action} #${i}`, u] as const))('update %s', (_, u) => {
    expect(updateFromWire(overTheWire(updateToWire(u)), 'updates[0]')).toEqual(u);
  });

  it.each(everyRequirement.map((r, i) => [`${r.type} #${i}`, r] as const))('requirement %s', (_, r) => {
    expect(requirementFromWire(overTheWire(requirementToWire(r)), 'requirements[0]')).toEqual(r);
  });

  it('commit request text → commit request', () => {
    const request = { identifier: { namespace: ['db', 'sub'], name: 't' }, requirements: everyRequirement, updates: everyUpdate };
    expect(commitRequestFromJson(commitRequestToJson(request), 'test')).toEqual(request);
    const noIdentifier = { requirements: [], updates: [everyUpdate[0]!] };
    const text = commitRequestToJson(noIdentifier);
    expect(text).not.toContain('identifier');
    expect(commitRequestFromJson(text, 'test')).toEqual(noIdentifier);
  });
});

describe('exact wire field names (ICEBERG.md §7.5, written out)', () => {
  /** [wire text as the spec digest spells it, the domain value it means] */
  const updateExamples: [string, TableUpdate][] = [
    ['{"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"}', { action: 'assign-uuid', uuid: '9c12d441-03fe-4693-9a96-a0705ddf69c1' }],
    ['{"action":"upgrade-format-version","format-version":2}', { action: 'upgrade-format-version', formatVersion: 2 }],
    [
      '{"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]},"last-column-id":1}',
      {
        action: 'add-schema',
        schema: { schemaId: 1, identifierFieldIds: [], fields: [{ id: 1, name: 'id', required: true, type: primitive('long') }] },
        lastColumnId: 1,
      },
    ],
    ['{"action":"set-current-schema","schema-id":-1}', { action: 'set-current-schema', schemaId: -1 }],
    [
      '{"action":"add-spec","spec":{"spec-id":0,"fields":[{"source-id":2,"field-id":1000,"name":"ts_day","transform":"day"}]}}',
      { action: 'add-spec', spec: { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' }] } },
    ],
    ['{"action":"set-default-spec","spec-id":-1}', { action: 'set-default-spec', specId: -1 }],
    [
      '{"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}}',
      { action: 'add-sort-order', sortOrder: { orderId: 1, fields: [{ transform: 'identity', sourceId: 1, direction: 'asc', nullOrder: 'nulls-first' }] } },
    ],
    ['{"action":"set-default-sort-order","sort-order-id":-1}', { action: 'set-default-sort-order', sortOrderId: -1 }],
    [
      '{"action":"add-snapshot","snapshot":{"snapshot-id":9223372036854775807,"parent-snapshot-id":3051729675574597004,"sequence-number":2,' +
        '"timestamp-ms":1700000000000,"manifest-list":"s3://b/wh/db/t/metadata/snap-9.avro","summary":{"operation":"overwrite","added-records":"3"},"schema-id":0}}',
      {
        action: 'add-snapshot',
        snapshot: {
          snapshotId: INT64_MAX,
          parentSnapshotId: 3051729675574597004n,
          sequenceNumber: 2n,
          timestampMs: NOW,
          manifestList: 's3://b/wh/db/t/metadata/snap-9.avro',
          summary: { operation: 'overwrite', 'added-records': '3' },
          schemaId: 0,
        },
      },
    ],
    [
      '{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":9223372036854775807}',
      { action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: INT64_MAX },
    ],
    [
      '{"action":"set-snapshot-ref","ref-name":"audit","type":"tag","snapshot-id":456,"min-snapshots-to-keep":3,"max-snapshot-age-ms":600000,"max-ref-age-ms":9223372036854775806}',
      { action: 'set-snapshot-ref', refName: 'audit', type: 'tag', snapshotId: 456n, minSnapshotsToKeep: 3, maxSnapshotAgeMs: 600000n, maxRefAgeMs: INT64_MAX - 1n },
    ],
    ['{"action":"remove-snapshots","snapshot-ids":[1,9223372036854775807]}', { action: 'remove-snapshots', snapshotIds: [1n, INT64_MAX] }],
    ['{"action":"remove-snapshot-ref","ref-name":"audit"}', { action: 'remove-snapshot-ref', refName: 'audit' }],
    ['{"action":"set-location","location":"s3://b/wh/db/t"}', { action: 'set-location', location: 's3://b/wh/db/t' }],
    ['{"action":"set-properties","updates":{"owner":"me"}}', { action: 'set-properties', updates: { owner: 'me' } }],
    ['{"action":"remove-properties","removals":["owner","gc.enabled"]}', { action: 'remove-properties', removals: ['owner', 'gc.enabled'] }],
  ];

  const requirementExamples: [string, TableRequirement][] = [
    ['{"type":"assert-create"}', { type: 'assert-create' }],
    ['{"type":"assert-table-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"}', { type: 'assert-table-uuid', uuid: '9c12d441-03fe-4693-9a96-a0705ddf69c1' }],
    ['{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":123}', { type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: 123n }],
    ['{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}', { type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: null }],
    ['{"type":"assert-last-assigned-field-id","last-assigned-field-id":4}', { type: 'assert-last-assigned-field-id', lastAssignedFieldId: 4 }],
    ['{"type":"assert-current-schema-id","current-schema-id":0}', { type: 'assert-current-schema-id', currentSchemaId: 0 }],
    ['{"type":"assert-last-assigned-partition-id","last-assigned-partition-id":999}', { type: 'assert-last-assigned-partition-id', lastAssignedPartitionId: 999 }],
    ['{"type":"assert-default-spec-id","default-spec-id":0}', { type: 'assert-default-spec-id', defaultSpecId: 0 }],
    ['{"type":"assert-default-sort-order-id","default-sort-order-id":0}', { type: 'assert-default-sort-order-id', defaultSortOrderId: 0 }],
  ];

  it.each(updateExamples)('%s', (text, domain) => {
    expect(updateFromWire(parseJson(text, 'example'), 'updates[0]')).toEqual(domain);
    // Same members and values (member order is free in JSON), int64 digits intact.
    expect(parseJson(stringifyJson(updateToWire(domain)), 'ours')).toEqual(parseJson(text, 'example'));
  });

  it.each(requirementExamples)('%s', (text, domain) => {
    expect(requirementFromWire(parseJson(text, 'example'), 'requirements[0]')).toEqual(domain);
    expect(stringifyJson(requirementToWire(domain))).toBe(text);
  });

  it('keeps an int64 above 2^53 exact in the JSON text', () => {
    const text = stringifyJson(updateToWire({ action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: INT64_MAX }));
    expect(text).toBe('{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":9223372036854775807}');
  });

  it('sends last-column-id with add-schema (deprecated, but Nessie and older servers require it)', () => {
    expect(updateToWire({ action: 'add-schema', schema })).toMatchObject({ 'last-column-id': 6 });
    // A table whose highest column was dropped keeps its last column id above the schema's.
    expect(updateToWire({ action: 'add-schema', schema, lastColumnId: 9 })).toMatchObject({ 'last-column-id': 9 });
    const withLegacy = { ...(overTheWire(updateToWire({ action: 'add-schema', schema })) as Record<string, unknown>), 'last-column-id': 8 };
    expect(updateFromWire(withLegacy, 'updates[0]')).toEqual({ action: 'add-schema', schema, lastColumnId: 8 });
  });

  it('always sends snapshot-id for assert-ref-snapshot-id, even null', () => {
    expect(stringifyJson(requirementToWire({ type: 'assert-ref-snapshot-id', ref: 'b', snapshotId: null }))).toContain('"snapshot-id":null');
  });

  it('writes the commit body of §7.5', () => {
    const text = commitRequestToJson({
      identifier: { namespace: ['db'], name: 't' },
      requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: 123n }],
      updates: [{ action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: 456n }],
    });
    expect(text).toBe(
      '{"identifier":{"namespace":["db"],"name":"t"},' +
        '"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":123}],' +
        '"updates":[{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":456}]}',
    );
  });
});

describe('rejects bad wire JSON with the path and the culprit named', () => {
  it('unknown action', () => {
    const e = rejection(() => updateFromWire({ action: 'set-statistics', 'snapshot-id': 1 }, 'updates[2]'));
    expect(e.message).toContain('updates[2].action');
    expect(e.message).toContain('"set-statistics"');
  });

  it('unknown requirement type', () => {
    const e = rejection(() => requirementFromWire({ type: 'assert-view-uuid', uuid: 'x' }, 'requirements[1]'));
    expect(e.message).toContain('requirements[1].type');
    expect(e.message).toContain('"assert-view-uuid"');
  });

  it('missing or mistyped fields', () => {
    expect(rejection(() => updateFromWire({ action: 'set-location' }, 'updates[0]')).message).toContain('updates[0].location');
    expect(rejection(() => updateFromWire({ action: 'remove-snapshots', 'snapshot-ids': [1, 'x'] }, 'updates[4]')).message).toContain(
      'updates[4].snapshot-ids[1]',
    );
    expect(rejection(() => updateFromWire({ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'leaf', 'snapshot-id': 1 }, 'u')).message).toContain(
      'u.type',
    );
    expect(rejection(() => updateFromWire({ action: 'add-schema', schema: { type: 'list' } }, 'updates[1]')).message).toContain('updates[1].schema');
    expect(rejection(() => updateFromWire({ snapshot: {} }, 'updates[0]')).message).toContain('updates[0].action');
    expect(rejection(() => updateFromWire([], 'updates[0]')).message).toContain('updates[0]');
    expect(rejection(() => requirementFromWire({ type: 'assert-ref-snapshot-id', ref: 'main' }, 'requirements[0]')).message).toContain(
      'requirements[0].snapshot-id',
    );
  });

  it('bad commit bodies', () => {
    expect(rejection(() => commitRequestFromJson('{"requirements":[],"updates":[{"action":"nope"}]}', 'body')).message).toContain(
      'updates[0].action',
    );
    expect(rejection(() => commitRequestFromJson('{"updates":[]}', 'body')).message).toContain('requirements');
  });
});

describe('cross-checks with the metadata builder and a foreign table', () => {
  const created = newTableMetadata({
    location: 's3://b/wh/db/t',
    schema,
    partitionSpec: { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'ts_hour', transform: 'hour' }] },
    sortOrder: { orderId: 1, fields: [{ transform: 'identity', sourceId: 1, direction: 'asc', nullOrder: 'nulls-first' }] },
    properties: { 'format-version': '3', owner: 'me' },
    nowMs: NOW,
  });

  it('updatesForCreate → commit JSON → back → tableMetadataFromUpdates gives the same table', () => {
    const text = commitRequestToJson({
      identifier: { namespace: ['db'], name: 't' },
      requirements: [{ type: 'assert-create' }],
      updates: updatesForCreate(created),
    });
    const request = commitRequestFromJson(text, 'create body');
    expect(request.requirements).toEqual([{ type: 'assert-create' }]);
    expect(tableMetadataFromUpdates(request.updates, { nowMs: NOW })).toEqual(created);
  });

  it('a snapshot commit applied from the wire gives the same table as applied directly', () => {
    const s: Snapshot = {
      snapshotId: INT64_MAX - 12n,
      sequenceNumber: 1n,
      timestampMs: NOW + 5n,
      manifestList: 's3://b/wh/db/t/metadata/snap-x.avro',
      summary: { operation: 'append', 'added-records': '4' },
      schemaId: 0,
      firstRowId: 0n,
      addedRows: 4n,
    };
    const updates: TableUpdate[] = [
      { action: 'add-snapshot', snapshot: s },
      { action: 'set-snapshot-ref', refName: 'main', type: 'branch', snapshotId: s.snapshotId },
    ];
    const back = commitRequestFromJson(commitRequestToJson({ requirements: [], updates }), 'body').updates;
    const options = { nowMs: NOW + 10n, previousMetadataLocation: 's3://b/wh/db/t/metadata/00000.metadata.json' };
    const direct = applyUpdates(created, updates, options);
    expect(applyUpdates(created, back, options)).toEqual(direct);
    expect(direct.currentSnapshotId).toBe(s.snapshotId);
  });

  it('snapshot, spec and sort order objects match an iceberg-rust table metadata file member for member', () => {
    const path = join(RUST_TM, 'TableMetadataV2Valid.json');
    expect(existsSync(path), `${path} missing: set THUND_FIXTURES`).toBe(true);
    const text = readFileSync(path, 'utf8');
    const raw = parseJson(text, path) as Record<string, unknown[]>;
    const m = parseTableMetadata(text, path);
    expect(m.snapshots.length).toBeGreaterThan(0);
    const wireOf = (u: TableUpdate, key: string): unknown => (overTheWire(updateToWire(u)) as Record<string, unknown>)[key];
    m.snapshots.forEach((snap, i) => {
      expect(wireOf({ action: 'add-snapshot', snapshot: snap }, 'snapshot')).toEqual(raw['snapshots']![i]);
      expect(updateFromWire({ action: 'add-snapshot', snapshot: raw['snapshots']![i] }, 'u')).toEqual({
        action: 'add-snapshot',
        snapshot: snap,
      });
    });
    m.partitionSpecs.forEach((spec, i) => expect(wireOf({ action: 'add-spec', spec }, 'spec')).toEqual(raw['partition-specs']![i]));
    m.sortOrders.forEach((sortOrder, i) =>
      expect(wireOf({ action: 'add-sort-order', sortOrder }, 'sort-order')).toEqual(raw['sort-orders']![i]),
    );
  });
});
