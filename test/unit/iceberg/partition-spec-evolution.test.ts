import { describe, expect, it } from 'vitest';
import { CommitConflictError, InvalidInputError } from '../../../src/errors.js';
import { applyUpdates, newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import { parseTableMetadata, serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { bindPartitionSpec } from '../../../src/iceberg/partition-fields.js';
import { evolvePartitionSpec, type PartitionSpecChange } from '../../../src/iceberg/partition-spec-evolution.js';
import { validateRequirements } from '../../../src/iceberg/requirements.js';
import { currentSchema, defaultSpec } from '../../../src/iceberg/snapshot-ancestry.js';
import type { FormatVersion, PartitionField, TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: false, type: primitive('long') },
    { id: 2, name: 'ts', required: false, type: primitive('timestamptz') },
    { id: 3, name: 'region', required: false, type: primitive('string') },
    { id: 4, name: 'loc', required: false, type: { kind: 'struct', fields: [{ id: 6, name: 'city', required: false, type: primitive('string') }] } },
    { id: 5, name: 'tags', required: false, type: { kind: 'list', elementId: 7, elementRequired: false, element: primitive('string') } },
  ],
};

function table(formatVersion: FormatVersion = 2, fields: PartitionField[] = [{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' }]): TableMetadata {
  return newTableMetadata({
    location: 'file:///wh/lake/t',
    schema,
    partitionSpec: { specId: 0, fields },
    formatVersion,
    tableUuid: '0b8e2f3a-5c7d-4e9f-8a1b-2c3d4e5f6a7b',
    nowMs: 1_700_000_000_000n,
  });
}

/** What a catalog does with the commit: check requirements, apply, write the JSON and read it back. */
function commit(base: TableMetadata, changes: readonly PartitionSpecChange[]): TableMetadata {
  const update = evolvePartitionSpec(base, changes);
  validateRequirements(update.requirements, base);
  const next = parseTableMetadata(serializeTableMetadata(applyUpdates(base, update.updates, { nowMs: 1_700_000_000_001n })), 'test');
  expect(defaultSpec(next)).toEqual(update.spec);
  for (const spec of next.partitionSpecs) bindPartitionSpec(spec, currentSchema(next)); // every spec still binds
  return next;
}

describe('evolvePartitionSpec: add', () => {
  it('adds a field with id last-partition-id + 1 and Java\'s default name, as a new default spec; the old spec stays', () => {
    const base = table();
    const next = commit(base, [{ action: 'add-field', source: 'id', transform: 'bucket[16]' }]);
    expect(next.defaultSpecId).toBe(1);
    expect(defaultSpec(next).fields).toEqual([
      { sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' },
      { sourceId: 1, fieldId: 1001, name: 'id_bucket_16', transform: 'bucket[16]' },
    ]);
    expect(next.lastPartitionId).toBe(1001);
    expect(next.partitionSpecs.map((s) => s.specId)).toEqual([0, 1]);
    expect(next.partitionSpecs[0]).toEqual(base.partitionSpecs[0]);
  });

  it('names fields the Java way for every transform, and takes a given name', () => {
    const base = table(2, []);
    const next = commit(base, [
      { action: 'add-field', source: 'region', transform: 'identity' },
      { action: 'add-field', source: 'region', transform: 'truncate[3]' },
      { action: 'add-field', source: 'ts', transform: 'hour' },
      { action: 'add-field', source: 'loc.city', transform: 'bucket[8]' },
      { action: 'add-field', source: 'id', transform: 'truncate[100]', name: 'id_hundreds' },
    ]);
    expect(defaultSpec(next).fields.map((f) => [f.fieldId, f.name, f.transform])).toEqual([
      [1000, 'region', 'identity'],
      [1001, 'region_trunc_3', 'truncate[3]'],
      [1002, 'ts_hour', 'hour'],
      [1003, 'loc.city_bucket_8', 'bucket[8]'],
      [1004, 'id_hundreds', 'truncate[100]'],
    ]);
  });

  it('refuses a source that does not exist, sits in a list, or does not fit the transform', () => {
    const base = table();
    const refuse = (change: PartitionSpecChange, message: RegExp): void => {
      expect(() => evolvePartitionSpec(base, [change])).toThrow(InvalidInputError);
      expect(() => evolvePartitionSpec(base, [change])).toThrow(message);
    };
    refuse({ action: 'add-field', source: 'nope', transform: 'identity' }, /no such column/);
    refuse({ action: 'add-field', source: 'tags.element', transform: 'identity' }, /not a struct/);
    refuse({ action: 'add-field', source: 'loc', transform: 'identity' }, /primitive/);
    refuse({ action: 'add-field', source: 'region', transform: 'day' }, /day/);
    refuse({ action: 'add-field', source: 'id', transform: 'banana' }, /unknown transform/);
  });

  it('refuses duplicates and redundant time fields', () => {
    const base = table();
    expect(() => evolvePartitionSpec(base, [{ action: 'add-field', source: 'ts', transform: 'day' }])).toThrow(/already has it as ts_day/);
    expect(() => evolvePartitionSpec(base, [{ action: 'add-field', source: 'ts', transform: 'hour' }])).toThrow(/two time transforms/);
    expect(() =>
      evolvePartitionSpec(base, [
        { action: 'add-field', source: 'id', transform: 'bucket[4]' },
        { action: 'add-field', source: 'id', transform: 'bucket[4]', name: 'other' },
      ]),
    ).toThrow(/twice/);
    expect(() => evolvePartitionSpec(base, [{ action: 'add-field', source: 'id', transform: 'bucket[4]', name: 'ts_day' }])).toThrow(/already has a field of that name/);
    expect(() => evolvePartitionSpec(base, [{ action: 'add-field', source: 'id', transform: 'bucket[4]', name: 'region' }])).toThrow(/is a column of the schema/);
  });

  it('replaces day by hour when the day field is removed in the same change', () => {
    const next = commit(table(), [
      { action: 'remove-field', name: 'ts_day' },
      { action: 'add-field', source: 'ts', transform: 'hour' },
    ]);
    expect(defaultSpec(next).fields).toEqual([{ sourceId: 2, fieldId: 1001, name: 'ts_hour', transform: 'hour' }]);
  });
});

describe('evolvePartitionSpec: remove', () => {
  it('v2: drops the field; the old spec and its field id stay in the metadata', () => {
    const base = table(2, [
      { sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' },
      { sourceId: 3, fieldId: 1001, name: 'region', transform: 'identity' },
    ]);
    const next = commit(base, [{ action: 'remove-field', name: 'ts_day' }]);
    expect(defaultSpec(next)).toEqual({ specId: 1, fields: [{ sourceId: 3, fieldId: 1001, name: 'region', transform: 'identity' }] });
    expect(next.lastPartitionId).toBe(1001);
    expect(next.partitionSpecs[0]!.fields).toHaveLength(2);
  });

  it('v1: replaces the field by void with the same id (field ids stay in place)', () => {
    const next = commit(table(1), [{ action: 'remove-field', name: 'ts_day' }]);
    expect(defaultSpec(next).fields).toEqual([{ sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'void' }]);
  });

  it('removing every field gives the unpartitioned spec', () => {
    const next = commit(table(), [{ action: 'remove-field', name: 'ts_day' }]);
    expect(defaultSpec(next).fields).toEqual([]);
    expect(next.defaultSpecId).toBe(1);
  });

  it('v2: re-adding a removed field later reuses its old field id', () => {
    const removed = commit(table(), [{ action: 'remove-field', name: 'ts_day' }]);
    const readded = commit(removed, [{ action: 'add-field', source: 'ts', transform: 'day' }]);
    // the same fields as spec 0: the existing spec is reused rather than a third one added
    expect(readded.defaultSpecId).toBe(0);
    expect(readded.partitionSpecs.map((s) => s.specId)).toEqual([0, 1]);
  });

  it('removing and adding the same field in one change is no change', () => {
    const base = table();
    const update = evolvePartitionSpec(base, [
      { action: 'remove-field', name: 'ts_day' },
      { action: 'add-field', source: 'ts', transform: 'day' },
    ]);
    expect(update.updates).toEqual([]);
  });

  it('refuses an unknown name, or removing a field added or renamed in the same change', () => {
    const base = table();
    expect(() => evolvePartitionSpec(base, [{ action: 'remove-field', name: 'nope' }])).toThrow(/no such field/);
    expect(() =>
      evolvePartitionSpec(base, [
        { action: 'add-field', source: 'id', transform: 'bucket[2]' },
        { action: 'remove-field', name: 'id_bucket_2' },
      ]),
    ).toThrow(/added in the same change/);
    expect(() =>
      evolvePartitionSpec(base, [
        { action: 'rename-field', name: 'ts_day', newName: 'day' },
        { action: 'remove-field', name: 'ts_day' },
      ]),
    ).toThrow(/rename and remove/);
  });
});

describe('evolvePartitionSpec: rename', () => {
  it('renames a field, keeping its id, source and transform', () => {
    const next = commit(table(), [{ action: 'rename-field', name: 'ts_day', newName: 'event_day' }]);
    expect(defaultSpec(next).fields).toEqual([{ sourceId: 2, fieldId: 1000, name: 'event_day', transform: 'day' }]);
    expect(next.lastPartitionId).toBe(1000);
  });

  it('v1: moves a void field out of the way of the new name', () => {
    const v1 = commit(table(1, [
      { sourceId: 2, fieldId: 1000, name: 'ts_day', transform: 'day' },
      { sourceId: 3, fieldId: 1001, name: 'by_region', transform: 'identity' },
    ]), [{ action: 'remove-field', name: 'by_region' }]);
    const next = commit(v1, [{ action: 'rename-field', name: 'ts_day', newName: 'by_region' }]);
    expect(defaultSpec(next).fields.map((f) => [f.fieldId, f.name, f.transform])).toEqual([
      [1000, 'by_region', 'day'],
      [1001, 'by_region_1001', 'void'],
    ]);
  });

  it('refuses an unknown field, a removed one, an empty name and a column name for a non-identity field', () => {
    const base = table();
    expect(() => evolvePartitionSpec(base, [{ action: 'rename-field', name: 'ts_day', newName: 'region' }])).toThrow(/is a column of the schema/);
    expect(() => evolvePartitionSpec(base, [{ action: 'rename-field', name: 'nope', newName: 'x' }])).toThrow(/no such field/);
    expect(() =>
      evolvePartitionSpec(base, [
        { action: 'remove-field', name: 'ts_day' },
        { action: 'rename-field', name: 'ts_day', newName: 'x' },
      ]),
    ).toThrow(/remove and rename/);
    expect(() => evolvePartitionSpec(base, [{ action: 'rename-field', name: 'ts_day', newName: '' }])).toThrow(/empty/);
  });
});

describe('evolvePartitionSpec: commit requirements', () => {
  it('asserts the default spec id and the last assigned partition id', () => {
    const base = table();
    const update = evolvePartitionSpec(base, [{ action: 'add-field', source: 'id', transform: 'bucket[16]' }]);
    expect(update.requirements).toEqual([
      { type: 'assert-default-spec-id', defaultSpecId: 0 },
      { type: 'assert-last-assigned-partition-id', lastAssignedPartitionId: 1000 },
    ]);
    const other = commit(base, [{ action: 'add-field', source: 'region', transform: 'identity' }]);
    expect(() => validateRequirements(update.requirements, other)).toThrow(CommitConflictError);
  });

  it('refuses to evolve a spec that has an unknown transform', () => {
    const base = { ...table(), partitionSpecs: [{ specId: 0, fields: [{ sourceId: 1, fieldId: 1000, name: 'x', transform: 'zorder' }] }] };
    expect(() => evolvePartitionSpec(base, [{ action: 'remove-field', name: 'x' }])).toThrow(/unknown transform/);
  });
});
