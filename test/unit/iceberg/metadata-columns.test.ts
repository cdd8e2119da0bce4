/**
 * Spark's Iceberg runtime refuses to scan a table with a top-level column named like a metadata
 * column (_partition, _file, …), so thund never creates one: not when it creates a table, and not
 * when it evolves one. A table that already has such a column (written elsewhere) can still evolve.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { newTableMetadata } from '../../../src/iceberg/metadata-builder.js';
import { schemaUpdate } from '../../../src/iceberg/schema-update.js';
import { primitive, type NestedField } from '../../../src/iceberg/types.js';

const field = (id: number, name: string): NestedField => ({ id, name, required: false, type: primitive('long') });
const create = (fields: NestedField[]) => newTableMetadata({ location: 'file:///w/lake/t', schema: { schemaId: 0, identifierFieldIds: [], fields } });

describe('metadata column names', () => {
  it('refuses to create a table with a column named _partition, naming the column', () => {
    expect(() => create([field(1, 'id'), field(2, '_partition')])).toThrow(InvalidInputError);
    expect(() => create([field(1, 'id'), field(2, '_partition')])).toThrow(/"_partition" is reserved for Iceberg metadata columns/);
    expect(() => create([field(1, '_FILE'), field(2, '_pos')])).toThrow(/"_FILE", "_pos" are reserved/);
  });

  it('creates a table whose columns only resemble them (_kafka_partition, partition)', () => {
    expect(create([field(1, '_kafka_partition'), field(2, 'partition')]).schemas[0]?.fields.map((f) => f.name)).toEqual(['_kafka_partition', 'partition']);
  });

  it('refuses a schema change that adds one, and allows one the table already has', () => {
    const plain = create([field(1, 'id')]);
    expect(() => schemaUpdate(plain, [field(1, 'id'), field(2, '_spec_id')])).toThrow(/"_spec_id" is reserved/);
    const foreign = { ...plain, schemas: [{ schemaId: 0, identifierFieldIds: [], fields: [field(1, 'id'), field(2, '_partition')] }], lastColumnId: 2 };
    expect(schemaUpdate(foreign, [field(1, 'id'), field(2, '_partition'), field(3, 'extra')]).schema.fields.map((f) => f.name)).toEqual(['id', '_partition', 'extra']);
  });
});
