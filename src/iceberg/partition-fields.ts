/**
 * A partition spec bound to a table schema: for each partition field its transform, source
 * column (with its DuckDB column path), result type and value function, checked once. The
 * partitioned writer computes keys with `partitionSql` inside DuckDB; manifests take the
 * result types (`partitionType` in manifest.ts).
 */
import { IcebergFormatError } from '../errors.js';
import { quoteIdentifier } from './duckdb-types.js';
import { findField } from './schema.js';
import type { PartitionField, PartitionSpec } from './table-metadata.js';
import { bindTransform } from './transforms/apply.js';
import type { BoundTransform } from './transforms/apply.js';
import { transformSql } from './transforms/duckdb-sql.js';
import { parseTransform } from './transforms/transform.js';
import type { NestedField, PrimitiveType, Schema } from './types.js';

export interface BoundPartitionField extends BoundTransform {
  readonly field: PartitionField;
  readonly source: NestedField;
  /** Names from the top-level column down to the source field. */
  readonly sourcePath: readonly string[];
}

export function bindPartitionField(field: PartitionField, schema: Schema): BoundPartitionField {
  const found = findField(schema, field.sourceId);
  const fail = (why: string): IcebergFormatError =>
    new IcebergFormatError(`Partition field ${field.name}: ${why}`, {
      context: { partitionField: field.name, sourceId: field.sourceId, transform: field.transform },
    });
  if (found === undefined) throw fail(`source column ${field.sourceId} is not in the schema`);
  if (found.inRepeated) throw fail(`source column ${found.path.join('.')} is inside a list or map`);
  const bound = bindTransform(parseTransform(field.transform), found.field.type, {
    partitionField: field.name,
    sourceColumn: found.path.join('.'),
  });
  return { ...bound, field, source: found.field, sourcePath: found.path };
}

/** Every field of the spec bound to the schema (typed errors name the failing field). */
export function bindPartitionSpec(spec: PartitionSpec, schema: Schema): BoundPartitionField[] {
  return spec.fields.map((field) => bindPartitionField(field, schema));
}

/** The partition tuple of one row, given its source values by field id (JS single-value forms). */
export function partitionTuple(fields: readonly BoundPartitionField[], sourceValue: (sourceId: number) => unknown): Map<number, unknown> {
  return new Map(fields.map((f) => [f.field.fieldId, f.apply(sourceValue(f.field.sourceId))]));
}

export interface PartitionSqlColumn {
  readonly fieldId: number;
  readonly name: string;
  readonly resultType: PrimitiveType;
  /** A DuckDB expression giving the value form of the partition value (transforms/duckdb-sql.ts). */
  readonly sql: string;
}

/**
 * One DuckDB expression per partition field, over the source columns as `"col"` or
 * `"struct"."field"` paths unless `sourceExpression` says otherwise.
 */
export function partitionSql(
  fields: readonly BoundPartitionField[],
  sourceExpression: (field: BoundPartitionField) => string = (f) => f.sourcePath.map(quoteIdentifier).join('.'),
): PartitionSqlColumn[] {
  return fields.map((f) => ({
    fieldId: f.field.fieldId,
    name: f.field.name,
    resultType: f.resultType,
    sql: transformSql(f.transform, sourceExpression(f), f.sourceType, { partitionField: f.field.name, sourceColumn: f.sourcePath.join('.') }),
  }));
}
