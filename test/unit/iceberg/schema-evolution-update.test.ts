import { describe, expect, it } from 'vitest';
import { CommitConflictError, InvalidInputError } from '../../../src/errors.js';
import { applyUpdates, newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import { parseTableMetadata, serializeTableMetadata } from '../../../src/iceberg/metadata-json.js';
import { validateRequirements } from '../../../src/iceberg/requirements.js';
import { evolveSchema } from '../../../src/iceberg/schema-evolution.js';
import { lastColumnIdAfter, renameColumn, renameColumnUpdate, schemaUpdate } from '../../../src/iceberg/schema-update.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [1],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'qty', required: false, type: primitive('int') },
    { id: 3, name: 'info', required: false, type: { kind: 'struct', fields: [{ id: 5, name: 'a', required: false, type: primitive('int') }] } },
    { id: 4, name: 'tags', required: false, type: { kind: 'list', elementId: 6, elementRequired: false, element: { kind: 'struct', fields: [
      { id: 7, name: 'k', required: false, type: primitive('string') },
    ] } } },
  ],
};

function table(): TableMetadata {
  return newTableMetadata({
    location: 'file:///wh/lake/t',
    schema,
    partitionSpec: { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'qty_bucket_4', transform: 'bucket[4]' }] },
    tableUuid: '9a3f1c0e-2b4d-4e6f-8a1b-3c5d7e9f0a2b',
    nowMs: 1_700_000_000_000n,
  });
}

/** Applies the update as a catalog would: requirements against the base, then the updates, then JSON out and back. */
function commit(base: TableMetadata, update: ReturnType<typeof schemaUpdate>): TableMetadata {
  validateRequirements(update.requirements, base);
  const next = applyUpdates(base, update.updates, { nowMs: 1_700_000_000_001n });
  return parseTableMetadata(serializeTableMetadata(next), 'test');
}

describe('schemaUpdate', () => {
  it('adds the evolved schema as the next id, makes it current, and asserts schema id and last column id', () => {
    const base = table();
    const evolution = evolveSchema({
      table: 'lake.t',
      fields: schema.fields,
      lastColumnId: base.lastColumnId,
      incoming: [
        { name: 'id', required: true, type: primitive('long') },
        { name: 'qty', required: false, type: primitive('long') },
        { name: 'note', required: false, type: primitive('string') },
      ],
    });
    const update = schemaUpdate(base, evolution.fields);
    expect(update.schema.schemaId).toBe(1);
    expect(update.updates.map((u) => u.action)).toEqual(['add-schema', 'set-current-schema']);
    expect(update.requirements).toEqual([
      { type: 'assert-current-schema-id', currentSchemaId: 0 },
      { type: 'assert-last-assigned-field-id', lastAssignedFieldId: 7 },
    ]);
    const next = commit(base, update);
    expect(next.currentSchemaId).toBe(1);
    expect(next.lastColumnId).toBe(8);
    expect(lastColumnIdAfter(base, update)).toBe(8);
    expect(currentSchema(next)).toEqual(update.schema);
    expect(currentSchema(next).identifierFieldIds).toEqual([1]);
    expect(next.schemas.map((s) => s.schemaId)).toEqual([0, 1]);
    expect(next.schemas[0]).toEqual(schema);
    // the partition spec still binds: its source (qty, id 2) was widened, not replaced
    expect(next.partitionSpecs[0]!.fields[0]!.sourceId).toBe(2);
    expect(currentSchema(next).fields.find((f) => f.id === 2)!.type).toEqual(primitive('long'));
  });

  it('is empty when nothing changes', () => {
    const update = schemaUpdate(table(), schema.fields);
    expect(update.updates).toEqual([]);
    expect(update.requirements).toEqual([]);
    expect(update.schema).toEqual(schema);
  });

  it('conflicts when another writer evolved the schema first (requirements fail against the new base)', () => {
    const base = table();
    const ours = schemaUpdate(base, [...schema.fields, { id: 8, name: 'ours', required: false, type: primitive('string') }]);
    const theirs = schemaUpdate(base, [...schema.fields, { id: 8, name: 'theirs', required: false, type: primitive('int') }]);
    const after = commit(base, theirs);
    expect(() => validateRequirements(ours.requirements, after)).toThrow(CommitConflictError);
    expect(() => validateRequirements(ours.requirements, after)).toThrow(/current schema id/);
  });

  it('asserts the last assigned field id even when the schema id is unchanged', () => {
    const base = table();
    const ours = schemaUpdate(base, [...schema.fields, { id: 8, name: 'x', required: false, type: primitive('string') }]);
    const moved = { ...base, lastColumnId: 9 };
    expect(() => validateRequirements(ours.requirements, moved)).toThrow(/last assigned field id/);
  });

  it('reuses an equal schema already in the table (e.g. a rename undone)', () => {
    const base = table();
    const renamed = commit(base, renameColumnUpdate(base, 'qty', 'quantity'));
    const back = renameColumnUpdate(renamed, 'quantity', 'qty');
    expect(back.schema.schemaId).toBe(0);
    const next = commit(renamed, back);
    expect(next.currentSchemaId).toBe(0);
    expect(next.schemas.map((s) => s.schemaId)).toEqual([0, 1]);
  });
});

describe('renameColumn', () => {
  it('renames a top-level column and keeps its id, type and the identifier fields', () => {
    const renamed = renameColumn(schema, 'id', 'order_id');
    expect(renamed.fields[0]).toEqual({ id: 1, name: 'order_id', required: true, type: primitive('long') });
    expect(renamed.fields.slice(1)).toEqual(schema.fields.slice(1));
    expect(renamed.identifierFieldIds).toEqual([1]);
  });

  it('renames nested struct fields, also through list elements, by dotted path or by names', () => {
    const a = renameColumn(schema, 'info.a', 'alpha');
    expect(a.fields[2]!.type).toEqual({ kind: 'struct', fields: [{ id: 5, name: 'alpha', required: false, type: primitive('int') }] });
    const k = renameColumn(schema, ['tags', 'element', 'k'], 'key_name');
    const tags = k.fields[3]!.type;
    expect(tags.kind === 'list' && tags.element.kind === 'struct' && tags.element.fields[0]).toEqual({ id: 7, name: 'key_name', required: false, type: primitive('string') });
  });

  it('finds the column case-insensitively', () => {
    expect(renameColumn(schema, 'INFO.A', 'b').fields[2]!.type).toMatchObject({ fields: [{ id: 5, name: 'b' }] });
  });

  it('refuses a missing column, a taken name, an empty name, and the fixed names of list and map parts', () => {
    expect(() => renameColumn(schema, 'nope', 'x')).toThrow(InvalidInputError);
    expect(() => renameColumn(schema, 'info.nope', 'x')).toThrow(/no column "nope"/);
    expect(() => renameColumn(schema, 'qty', 'ID')).toThrow(/a column of that name exists/);
    expect(() => renameColumn(schema, 'qty', ' ')).toThrow(/empty/);
    expect(() => renameColumn(schema, 'tags.element', 'x')).toThrow(/fixed names/);
    expect(() => renameColumn(schema, 'qty.x', 'y')).toThrow(/not a field of int/);
  });

  it('produces a commit whose metadata keeps the old schema and the field ids (readers follow ids)', () => {
    const base = table();
    const update = renameColumnUpdate(base, 'qty', 'quantity');
    expect(update.updates.map((u) => u.action)).toEqual(['add-schema', 'set-current-schema']);
    const next = commit(base, update);
    expect(currentSchema(next).fields[1]).toEqual({ id: 2, name: 'quantity', required: false, type: primitive('int') });
    expect(next.lastColumnId).toBe(base.lastColumnId);
    expect(next.schemas[0]!.fields[1]!.name).toBe('qty');
  });
});
