/**
 * Which column of an existing Parquet file holds each table field: by field id when the file has
 * field ids, else by name through the table's name mapping (lists' and maps' inner fields by
 * position). A required table field the file lacks, or a column whose Parquet type cannot be read
 * as the field's type, refuses the file with its name and the column.
 */
import { InvalidInputError } from '../errors.js';
import { mappedByName, type MappedField, type NameMapping } from '../iceberg/name-mapping.js';
import type { ParquetFooter, ParquetSchemaNode } from '../iceberg/parquet-footer.js';
import { parquetReadsAs } from '../iceberg/parquet-values.js';
import { typeText } from '../iceberg/schema.js';
import type { IcebergType, NestedField, Schema } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';

export interface FileColumns {
  /** Field id → the file's leaf column holding it (primitive fields only). */
  readonly leaves: ReadonlyMap<number, ParquetSchemaNode>;
  /** Whether the columns were matched by field id (else by name). */
  readonly byFieldId: boolean;
}

function hasFieldIds(nodes: readonly ParquetSchemaNode[]): boolean {
  return nodes.some((node) => node.fieldId !== undefined || hasFieldIds(node.children));
}

function describe(node: ParquetSchemaNode): string {
  if (node.physicalType === undefined) return node.logical === undefined ? 'group' : `group (${node.logical.kind})`;
  const logical = node.logical === undefined ? '' : ` (${node.logical.kind}${'unit' in node.logical ? ` ${node.logical.unit}` : ''})`;
  return `${node.physicalType}${node.typeLength === undefined ? '' : `(${node.typeLength})`}${logical}`;
}

export function matchFileColumns(file: string, footer: ParquetFooter, schema: Schema, mapping: NameMapping): FileColumns {
  const byFieldId = hasFieldIds(footer.columns);
  const leaves = new Map<number, ParquetSchemaNode>();
  const refuse = (column: string, why: string): InvalidInputError =>
    new InvalidInputError(`Cannot add ${file}: column ${column} ${why}`, { context: { file, column } });

  const matchType = (type: IcebergType, node: ParquetSchemaNode, id: number, mapped: readonly MappedField[], path: string): void => {
    const mismatch = () => refuse(path, `is ${describe(node)} in the file, which cannot be read as ${typeText(type)}`);
    if (isPrimitive(type)) {
      if (!parquetReadsAs(node, type)) throw mismatch();
      leaves.set(id, node);
      return;
    }
    if (node.physicalType !== undefined) throw mismatch();
    if (type.kind === 'struct') {
      if (node.logical?.kind === 'list' || node.logical?.kind === 'map') throw mismatch();
      matchFields(type.fields, node.children, mapped, path);
      return;
    }
    // LIST: group → repeated group → element; MAP: group → repeated key_value → key, value.
    const repeated = node.children.length === 1 ? node.children[0]! : undefined;
    if (repeated === undefined || repeated.repetition !== 'repeated') throw mismatch();
    if (type.kind === 'list') {
      if (node.logical?.kind !== 'list') throw mismatch();
      const element = repeated.children.length === 1 ? repeated.children[0]! : repeated;
      matchType(type.element, element, type.elementId, mappedByName(mapped, 'element')?.fields ?? [], `${path}.element`);
      return;
    }
    if (node.logical?.kind !== 'map' || repeated.children.length !== 2) throw mismatch();
    matchType(type.key, repeated.children[0]!, type.keyId, mappedByName(mapped, 'key')?.fields ?? [], `${path}.key`);
    matchType(type.value, repeated.children[1]!, type.valueId, mappedByName(mapped, 'value')?.fields ?? [], `${path}.value`);
  };

  const matchFields = (fields: readonly NestedField[], nodes: readonly ParquetSchemaNode[], mapped: readonly MappedField[], parent: string): void => {
    for (const field of fields) {
      const path = parent === '' ? field.name : `${parent}.${field.name}`;
      const node = byFieldId ? nodes.find((n) => n.fieldId === field.id) : nodes.find((n) => mappedByName(mapped, n.name)?.fieldId === field.id);
      if (node === undefined) {
        if (field.required) throw refuse(path, 'is required by the table but missing from the file');
        continue;
      }
      const inner = byFieldId ? [] : (mapped.find((m) => m.fieldId === field.id)?.fields ?? []);
      matchType(field.type, node, field.id, inner, path);
    }
  };

  matchFields(schema.fields, footer.columns, mapping, '');
  return { leaves, byFieldId };
}
