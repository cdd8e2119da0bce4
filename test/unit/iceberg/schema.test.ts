import { describe, expect, it } from 'vitest';
import { SchemaMismatchError } from '../../../src/errors.js';
import {
  assignFreshIds,
  checkWriteCompatible,
  findField,
  highestFieldId,
  type UnassignedField,
} from '../../../src/iceberg/schema.js';
import { columnPathIndex } from '../../../src/iceberg/duckdb-types.js';
import type { Schema } from '../../../src/iceberg/types.js';

const nested: UnassignedField[] = [
  { name: 'id', required: true, type: { kind: 'long' } },
  { name: 'st', required: false, type: { kind: 'struct', fields: [
    { name: 'x', required: false, type: { kind: 'int' } },
    { name: 'y "q"', required: false, type: { kind: 'string' } },
  ] } },
  { name: 'li', required: false, type: { kind: 'list', elementRequired: false, element: { kind: 'double' } } },
  { name: 'mp', required: false, type: { kind: 'map', key: { kind: 'string' }, valueRequired: false, value: {
    kind: 'struct', fields: [{ name: 'z', required: false, type: { kind: 'date' } }] } } },
];

function schemaOf(fields: UnassignedField[]): Schema {
  return { schemaId: 0, identifierFieldIds: [], fields: assignFreshIds(fields).fields };
}

describe('assignFreshIds', () => {
  it('numbers top-level fields first, then each nested type in turn (Java AssignFreshIds order)', () => {
    const { fields, lastColumnId } = assignFreshIds(nested);
    expect(fields.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    const st = fields[1]!.type;
    expect(st.kind === 'struct' && st.fields.map((f) => f.id)).toEqual([5, 6]);
    const li = fields[2]!.type;
    expect(li.kind === 'list' && li.elementId).toBe(7);
    const mp = fields[3]!.type;
    expect(mp.kind === 'map' && [mp.keyId, mp.valueId]).toEqual([8, 9]);
    expect(mp.kind === 'map' && mp.value.kind === 'struct' && mp.value.fields[0]!.id).toBe(10);
    expect(lastColumnId).toBe(10);
  });

  it('matches the ids DESIGN.md checked with DuckDB (st 13, li 14, mp 15, then 16..20)', () => {
    const pre: UnassignedField[] = Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, required: false, type: { kind: 'int' } }));
    const { fields } = assignFreshIds([
      ...pre,
      { name: 'st', required: false, type: { kind: 'struct', fields: [
        { name: 'x', required: false, type: { kind: 'int' } }, { name: 'y', required: false, type: { kind: 'int' } }] } },
      { name: 'li', required: false, type: { kind: 'list', elementRequired: false, element: { kind: 'int' } } },
      { name: 'mp', required: false, type: { kind: 'map', key: { kind: 'string' }, valueRequired: false, value: { kind: 'int' } } },
    ]);
    const index = columnPathIndex({ fields });
    expect(index.get('"st"."x"')).toBe(16);
    expect(index.get('"st"."y"')).toBe(17);
    expect(index.get('"li"."element"')).toBe(18);
    expect(index.get('"mp"."key"')).toBe(19);
    expect(index.get('"mp"."value"')).toBe(20);
  });

  it('continues after an existing last column id', () => {
    expect(assignFreshIds(nested.slice(0, 1), 41).fields[0]!.id).toBe(42);
  });
});

describe('schema lookups', () => {
  const schema = schemaOf(nested);
  it('columnPathIndex quotes names as DuckDB prints them and lists only leaves', () => {
    expect([...columnPathIndex(schema).entries()]).toEqual([
      ['"id"', 1],
      ['"st"."x"', 5],
      ['"st"."y ""q"""', 6],
      ['"li"."element"', 7],
      ['"mp"."key"', 8],
      ['"mp"."value"."z"', 10],
    ]);
  });
  it('findField finds nested fields, list elements and map values', () => {
    expect(findField(schema, 6)).toMatchObject({ field: { name: 'y "q"' }, path: ['st', 'y "q"'], inRepeated: false });
    expect(findField(schema, 7)).toMatchObject({ field: { name: 'element', type: { kind: 'double' } }, inRepeated: true });
    expect(findField(schema, 10)).toMatchObject({ path: ['mp', 'value', 'z'], inRepeated: true });
    expect(findField(schema, 99)).toBeUndefined();
    expect(highestFieldId(schema)).toBe(10);
  });
});

describe('checkWriteCompatible', () => {
  const table = schemaOf([
    { name: 'id', required: true, type: { kind: 'long' } },
    { name: 'amount', required: false, type: { kind: 'decimal', precision: 18, scale: 2 } },
    { name: 'ratio', required: false, type: { kind: 'double' } },
    { name: 'st', required: false, type: { kind: 'struct', fields: [
      { name: 'a', required: false, type: { kind: 'string' } },
      { name: 'b', required: false, type: { kind: 'int' } },
    ] } },
  ]);

  it('projects by name in table order and marks promotions for a cast', () => {
    const incoming: UnassignedField[] = [
      { name: 'ratio', required: false, type: { kind: 'float' } },
      { name: 'ID', required: true, type: { kind: 'int' } },
      { name: 'st', required: false, type: { kind: 'struct', fields: [
        { name: 'b', required: false, type: { kind: 'int' } },
        { name: 'a', required: false, type: { kind: 'string' } },
      ] } },
      { name: 'amount', required: false, type: { kind: 'decimal', precision: 9, scale: 2 } },
    ];
    const projection = checkWriteCompatible(table, incoming);
    expect(projection.map((p) => [p.tableField.name, p.sourceName, p.sourceIndex, p.needsCast])).toEqual([
      ['id', 'ID', 1, true],
      ['amount', 'amount', 3, true],
      ['ratio', 'ratio', 0, true],
      ['st', 'st', 2, true],
    ]);
  });

  it('needs no cast for identical columns', () => {
    const projection = checkWriteCompatible(table, table.fields);
    expect(projection.every((p) => !p.needsCast)).toBe(true);
  });

  it('names every missing, extra, narrowing and nullability problem in one error', () => {
    const incoming: UnassignedField[] = [
      { name: 'id', required: false, type: { kind: 'long' } },
      { name: 'amount', required: false, type: { kind: 'decimal', precision: 38, scale: 2 } },
      { name: 'st', required: false, type: { kind: 'struct', fields: [
        { name: 'a', required: false, type: { kind: 'long' } },
        { name: 'c', required: false, type: { kind: 'int' } },
      ] } },
      { name: 'extra', required: false, type: { kind: 'string' } },
    ];
    let error: unknown;
    try {
      checkWriteCompatible(table, incoming);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaMismatchError);
    const message = (error as Error).message;
    expect(message).toContain('column "id" is required in the table but optional in the input');
    expect(message).toContain('column "amount" is decimal(18, 2) in the table but decimal(38, 2) in the input');
    expect(message).toContain('column "ratio" is missing from the input');
    expect(message).toContain('column "st.a" is string in the table but long in the input');
    expect(message).toContain('column "st.b" is missing from the input');
    expect(message).toContain('column "st.c" in the input is not in the table');
    expect(message).toContain('column "extra" in the input is not in the table');
  });

  it('refuses decimal scale changes, long→int and struct↔primitive', () => {
    const t = schemaOf([
      { name: 'd', required: false, type: { kind: 'decimal', precision: 10, scale: 2 } },
      { name: 'i', required: false, type: { kind: 'int' } },
      { name: 's', required: false, type: { kind: 'string' } },
      { name: 'l', required: false, type: { kind: 'list', elementRequired: true, element: { kind: 'int' } } },
    ]);
    expect(() => checkWriteCompatible(t, [
      { name: 'd', required: false, type: { kind: 'decimal', precision: 9, scale: 3 } },
      { name: 'i', required: false, type: { kind: 'long' } },
      { name: 's', required: false, type: { kind: 'struct', fields: [] } },
      { name: 'l', required: false, type: { kind: 'list', elementRequired: false, element: { kind: 'int' } } },
    ])).toThrow(/"d" is decimal\(10, 2\).*"i" is int in the table but long.*"s" is string.*"l.element" is required/);
  });
});
