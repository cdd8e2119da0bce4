/**
 * Iceberg's name mapping (`schema.name-mapping.default`, spec "Column Projection"): the field id
 * of each column name, for data files written without field ids. Nested fields map relative to
 * their parent; list elements and map keys/values appear as `element`, `key`, `value`.
 */
import { z } from 'zod';
import { IcebergFormatError } from '../errors.js';
import type { IcebergType, NestedField, Schema } from './types.js';

export const NAME_MAPPING_PROPERTY = 'schema.name-mapping.default';

export interface MappedField {
  readonly fieldId?: number;
  readonly names: readonly string[];
  readonly fields: readonly MappedField[];
}

export type NameMapping = readonly MappedField[];

interface MappedFieldWire {
  'field-id'?: number | undefined;
  names: string[];
  fields?: MappedFieldWire[] | undefined;
}

const mappedFieldWire: z.ZodType<MappedFieldWire> = z.lazy(() =>
  z.object({
    'field-id': z.number().int().optional(),
    names: z.array(z.string()),
    fields: z.array(mappedFieldWire).optional(),
  }),
);

function fromWire(wire: MappedFieldWire): MappedField {
  return { ...(wire['field-id'] === undefined ? {} : { fieldId: wire['field-id'] }), names: wire.names, fields: (wire.fields ?? []).map(fromWire) };
}

function toWire(field: MappedField): MappedFieldWire {
  return {
    ...(field.fieldId === undefined ? {} : { 'field-id': field.fieldId }),
    names: [...field.names],
    ...(field.fields.length === 0 ? {} : { fields: field.fields.map(toWire) }),
  };
}

export function parseNameMapping(text: string, table: string): NameMapping {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new IcebergFormatError(`Table ${table}: ${NAME_MAPPING_PROPERTY} is not JSON`, { cause: error, context: { table } });
  }
  const parsed = z.array(mappedFieldWire).safeParse(json);
  if (!parsed.success) {
    throw new IcebergFormatError(`Table ${table}: ${NAME_MAPPING_PROPERTY} is not a name mapping: ${parsed.error.message}`, { context: { table } });
  }
  return parsed.data.map(fromWire);
}

export function nameMappingJson(mapping: NameMapping): string {
  return JSON.stringify(mapping.map(toWire));
}

function mappedType(type: IcebergType): MappedField[] {
  switch (type.kind) {
    case 'struct':
      return type.fields.map(mappedField);
    case 'list':
      return [{ fieldId: type.elementId, names: ['element'], fields: mappedType(type.element) }];
    case 'map':
      return [
        { fieldId: type.keyId, names: ['key'], fields: mappedType(type.key) },
        { fieldId: type.valueId, names: ['value'], fields: mappedType(type.value) },
      ];
    default:
      return [];
  }
}

function mappedField(field: NestedField): MappedField {
  return { fieldId: field.id, names: [field.name], fields: mappedType(field.type) };
}

/** The mapping of a schema's own names, as Java's MappingUtil.create and pyiceberg write it. */
export function nameMappingOf(schema: Pick<Schema, 'fields'>): NameMapping {
  return schema.fields.map(mappedField);
}

/** The field id a name maps to among `fields` (one level), and that field's nested mapping. */
export function mappedByName(fields: readonly MappedField[], name: string): MappedField | undefined {
  return fields.find((field) => field.names.includes(name));
}
