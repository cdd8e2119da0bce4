import { describe, expect, it } from 'vitest';
import { SchemaMismatchError } from '../../../src/errors.js';
import { evolveSchema, matchByName, type SchemaEvolution } from '../../../src/iceberg/schema-evolution.js';
import { assignFreshIds, highestFieldId, type UnassignedField, type UnassignedType } from '../../../src/iceberg/schema.js';
import { decimal, primitive, type NestedField } from '../../../src/iceberg/types.js';

const opt = (name: string, type: UnassignedType): UnassignedField => ({ name, required: false, type });
const req = (name: string, type: UnassignedType): UnassignedField => ({ name, required: true, type });
const struct = (...fields: UnassignedField[]): UnassignedType => ({ kind: 'struct', fields });
const list = (element: UnassignedType): UnassignedType => ({ kind: 'list', elementRequired: false, element });
const map = (key: UnassignedType, value: UnassignedType): UnassignedType => ({ kind: 'map', key, valueRequired: false, value });

/** A table built from unassigned fields with Java's fresh ids (1..n). */
function table(...fields: UnassignedField[]): { fields: NestedField[]; lastColumnId: number } {
  return assignFreshIds(fields);
}

function evolve(base: { fields: readonly NestedField[]; lastColumnId: number }, ...incoming: UnassignedField[]): SchemaEvolution {
  return evolveSchema({ table: 'lake.t', fields: base.fields, lastColumnId: base.lastColumnId, incoming });
}

function mismatch(run: () => unknown): SchemaMismatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaMismatchError);
    return error as SchemaMismatchError;
  }
  throw new Error('expected a SchemaMismatchError');
}

describe('evolveSchema: no change', () => {
  it('keeps the fields as they are when the output matches, and feeds each column by name', () => {
    const base = table(opt('id', primitive('long')), opt('name', primitive('string')));
    const result = evolve(base, opt('name', primitive('string')), opt('id', primitive('long')));
    expect(result.changes).toEqual([]);
    expect(result.fields).toEqual(base.fields);
    expect(result.lastColumnId).toBe(2);
    expect(result.columns.map((c) => [c.field.id, c.sourceName])).toEqual([
      [1, 'id'],
      [2, 'name'],
    ]);
  });

  it('accepts narrower output types without widening the table (int into long, float into double, smaller decimal)', () => {
    const base = table(opt('a', primitive('long')), opt('b', primitive('double')), opt('c', decimal(12, 2)));
    const result = evolve(base, opt('a', primitive('int')), opt('b', primitive('float')), opt('c', decimal(9, 2)));
    expect(result.changes).toEqual([]);
    expect(result.fields.map((f) => f.type)).toEqual([primitive('long'), primitive('double'), decimal(12, 2)]);
  });

  it('matches a column case-insensitively when only one name fits, keeping the table name', () => {
    const base = table(opt('Amount', primitive('int')));
    const result = evolve(base, opt('amount', primitive('int')));
    expect(result.fields.map((f) => f.name)).toEqual(['Amount']);
    expect(result.columns[0]!.sourceName).toBe('amount');
  });
});

describe('evolveSchema: new columns', () => {
  it('appends a new top-level column as optional with id last-column-id + 1, even when the output says required', () => {
    const base = table(opt('id', primitive('long')));
    const result = evolve({ ...base, lastColumnId: 7 }, opt('id', primitive('long')), req('note', primitive('string')));
    expect(result.fields[1]).toEqual({ id: 8, name: 'note', required: false, type: primitive('string') });
    expect(result.lastColumnId).toBe(8);
    expect(result.changes).toEqual([{ kind: 'add-column', path: ['note'], fieldId: 8, type: primitive('string') }]);
    expect(result.columns[1]).toEqual({ field: result.fields[1], sourceName: 'note' });
  });

  it('numbers a new struct column before its children, and several new columns in output order', () => {
    const base = table(opt('id', primitive('long')));
    const result = evolve(
      base,
      opt('s', struct(opt('x', primitive('int')), opt('y', list(primitive('string'))))),
      opt('id', primitive('long')),
      opt('m', map(primitive('string'), primitive('double'))),
    );
    const ids = (f: NestedField | undefined): unknown => f;
    expect(result.fields.map((f) => f.name)).toEqual(['id', 's', 'm']);
    expect(ids(result.fields[1])).toEqual({
      id: 2,
      name: 's',
      required: false,
      type: { kind: 'struct', fields: [
        { id: 3, name: 'x', required: false, type: primitive('int') },
        { id: 4, name: 'y', required: false, type: { kind: 'list', elementId: 5, elementRequired: false, element: primitive('string') } },
      ] },
    });
    expect(ids(result.fields[2])).toEqual({
      id: 6,
      name: 'm',
      required: false,
      type: { kind: 'map', keyId: 7, key: primitive('string'), valueId: 8, valueRequired: false, value: primitive('double') },
    });
    expect(result.lastColumnId).toBe(8);
    expect(highestFieldId({ fields: result.fields })).toBe(8);
  });

  it('adds a field inside an existing struct at its end, with a fresh id', () => {
    const base = table(opt('id', primitive('long')), opt('info', struct(opt('a', primitive('int')))));
    expect(base.lastColumnId).toBe(3);
    const result = evolve(base, opt('id', primitive('long')), opt('info', struct(opt('b', primitive('string')), opt('a', primitive('int')))));
    const info = result.fields[1]!.type;
    expect(info).toEqual({ kind: 'struct', fields: [
      { id: 3, name: 'a', required: false, type: primitive('int') },
      { id: 4, name: 'b', required: false, type: primitive('string') },
    ] });
    expect(result.changes).toEqual([{ kind: 'add-column', path: ['info', 'b'], fieldId: 4, type: primitive('string') }]);
  });

  it('adds fields inside structs under lists and map values', () => {
    const base = table(
      opt('li', list(struct(opt('a', primitive('int'))))),
      opt('mp', map(primitive('string'), struct(opt('v', primitive('int'))))),
    );
    const result = evolve(
      base,
      opt('li', list(struct(opt('a', primitive('int')), opt('b', primitive('date'))))),
      opt('mp', map(primitive('string'), struct(opt('v', primitive('int')), opt('w', primitive('boolean'))))),
    );
    expect(result.changes.map((c) => [c.kind, c.path.join('.'), c.fieldId])).toEqual([
      ['add-column', 'li.element.b', base.lastColumnId + 1],
      ['add-column', 'mp.value.w', base.lastColumnId + 2],
    ]);
  });

  it('refuses to add a field to a struct that is a map key', () => {
    const base = table(opt('mp', map(struct(opt('k', primitive('int'))), primitive('string'))));
    const error = mismatch(() => evolve(base, opt('mp', map(struct(opt('k', primitive('int')), opt('k2', primitive('int'))), primitive('string')))));
    expect(error.context).toMatchObject({ table: 'lake.t', column: 'mp.key.k2', fromType: 'absent', toType: 'int' });
  });
});

describe('evolveSchema: type widening', () => {
  it('widens int→long, float→double and decimal(P,S)→decimal(P\',S), keeping field ids', () => {
    const base = table(opt('a', primitive('int')), opt('b', primitive('float')), opt('c', decimal(9, 2)));
    const result = evolve(base, opt('a', primitive('long')), opt('b', primitive('double')), opt('c', decimal(18, 2)));
    expect(result.fields.map((f) => [f.id, f.type])).toEqual([
      [1, primitive('long')],
      [2, primitive('double')],
      [3, decimal(18, 2)],
    ]);
    expect(result.changes).toEqual([
      { kind: 'widen-type', path: ['a'], fieldId: 1, from: primitive('int'), to: primitive('long') },
      { kind: 'widen-type', path: ['b'], fieldId: 2, from: primitive('float'), to: primitive('double') },
      { kind: 'widen-type', path: ['c'], fieldId: 3, from: decimal(9, 2), to: decimal(18, 2) },
    ]);
    expect(result.lastColumnId).toBe(base.lastColumnId);
  });

  it('widens nested fields, list elements and map values', () => {
    const base = table(opt('s', struct(opt('x', primitive('int')))), opt('li', list(primitive('float'))), opt('mp', map(primitive('string'), primitive('int'))));
    const result = evolve(base, opt('s', struct(opt('x', primitive('long')))), opt('li', list(primitive('double'))), opt('mp', map(primitive('string'), primitive('long'))));
    expect(result.changes.map((c) => [c.path.join('.'), c.fieldId, c.kind])).toEqual([
      ['s.x', 4, 'widen-type'],
      ['li.element', 5, 'widen-type'],
      ['mp.value', 7, 'widen-type'],
    ]);
  });

  it('refuses to widen a map key', () => {
    const base = table(opt('mp', map(primitive('int'), primitive('string'))));
    const error = mismatch(() => evolve(base, opt('mp', map(primitive('long'), primitive('string')))));
    expect(error.context).toMatchObject({ column: 'mp.key', fromType: 'int', toType: 'long' });
  });
});

describe('evolveSchema: unsafe changes', () => {
  const cases: [string, UnassignedType, UnassignedType][] = [
    ['long → string', primitive('long'), primitive('string')],
    ['int → string', primitive('int'), primitive('string')],
    ['double → long', primitive('double'), primitive('long')],
    ['long → double', primitive('long'), primitive('double')],
    ['decimal scale change', decimal(9, 2), decimal(12, 3)],
    ['decimal → double', decimal(9, 2), primitive('double')],
    ['date → timestamp (v3 only promotion, not done on write)', primitive('date'), primitive('timestamp')],
    ['timestamp → timestamptz', primitive('timestamp'), primitive('timestamptz')],
    ['fixed length change', { kind: 'fixed', length: 4 }, { kind: 'fixed', length: 8 }],
    ['primitive → struct', primitive('int'), struct(opt('a', primitive('int')))],
    ['struct → list', struct(opt('a', primitive('int'))), list(primitive('int'))],
    ['list → map', list(primitive('int')), map(primitive('int'), primitive('int'))],
  ];
  for (const [label, from, to] of cases) {
    it(`refuses ${label}, naming table, column, from-type and to-type`, () => {
      const base = table(opt('id', primitive('long')), opt('col', from));
      const error = mismatch(() => evolve(base, opt('id', primitive('long')), opt('col', to)));
      expect(error.code).toBe('SCHEMA_MISMATCH');
      expect(error.context).toMatchObject({ table: 'lake.t', column: 'col', problems: 1 });
      expect(error.message).toContain('lake.t');
      expect(error.message).toContain('"col"');
      expect(error.context['fromType']).not.toBe(error.context['toType']);
    });
  }

  it('spells the types in the message (decimal(12, 3), struct<…>)', () => {
    const base = table(opt('c', decimal(9, 2)));
    const error = mismatch(() => evolve(base, opt('c', decimal(12, 3))));
    expect(error.context).toMatchObject({ fromType: 'decimal(9, 2)', toType: 'decimal(12, 3)' });
  });

  it('refuses a narrowing of a nested field and names its path', () => {
    const base = table(opt('s', struct(opt('inner', struct(opt('x', primitive('string')))))));
    const error = mismatch(() => evolve(base, opt('s', struct(opt('inner', struct(opt('x', primitive('int'))))))));
    expect(error.context).toMatchObject({ column: 's.inner.x', fromType: 'string', toType: 'int' });
  });

  it('refuses a required table column missing from the output, and one fed by an optional column', () => {
    const base = table(req('id', primitive('long')), req('k', primitive('string')));
    const error = mismatch(() => evolve(base, opt('k', primitive('string'))));
    expect(error.context).toMatchObject({ column: 'id', fromType: 'long', toType: 'absent', problems: 2 });
    expect(error.message).toMatch(/"id" is required in the table but missing/);
    expect(error.message).toMatch(/"k" is required in the table but optional/);
  });

  it('lists every problem in one error', () => {
    const base = table(opt('a', primitive('int')), opt('b', primitive('string')), opt('c', primitive('date')));
    const error = mismatch(() => evolve(base, opt('a', primitive('string')), opt('b', primitive('int')), opt('c', primitive('date'))));
    expect(error.context['problems']).toBe(2);
    expect(error.message).toContain('"a"');
    expect(error.message).toContain('"b"');
  });
});

describe('evolveSchema: columns the output leaves out', () => {
  it('keeps an optional column the output lacks and feeds it nulls', () => {
    const base = table(opt('id', primitive('long')), opt('old', primitive('string')), opt('s', struct(opt('x', primitive('int')), opt('y', primitive('int')))));
    const result = evolve(base, opt('id', primitive('long')), opt('s', struct(opt('y', primitive('int')))));
    expect(result.changes).toEqual([]);
    expect(result.fields).toEqual(base.fields);
    expect(result.absentColumns).toEqual(['old', 's.x']);
    expect(result.columns.map((c) => c.sourceName)).toEqual(['id', undefined, 's']);
  });
});

describe('matchByName', () => {
  const items = [{ name: 'a' }, { name: 'B' }, { name: 'b' }, { name: 'Cc' }];
  it('prefers the exact name, then the only case-insensitive match', () => {
    expect(matchByName(items, 'b')).toBe(2);
    expect(matchByName(items, 'cc')).toBe(3);
    expect(matchByName(items, 'A')).toBe(0);
  });
  it('finds nothing when the case-insensitive match is ambiguous or taken', () => {
    expect(matchByName([{ name: 'B' }, { name: 'b' }], 'x')).toBe(-1);
    expect(matchByName([{ name: 'Ab' }, { name: 'aB' }], 'ab')).toBe(-1);
    expect(matchByName(items, 'a', new Set([0]))).toBe(-1);
  });
});
