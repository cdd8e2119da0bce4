/**
 * The columns a flow produces, as Iceberg fields, and the SELECT that casts them onto the
 * target table's schema. The flow query is described, not run, so rows stream straight into
 * the Parquet writer.
 */
import { FlowError, InvalidInputError, ThundError } from '../errors.js';
import { fieldDefaultText } from '../iceberg/default-values.js';
import { castToColumnSql, duckDbTypeToIceberg, icebergToDuckDbType } from '../iceberg/duckdb-types.js';
import type { ColumnProjection, UnassignedField, UnassignedType } from '../iceberg/schema.js';
import type { EvolvedColumn } from '../iceberg/schema-evolution.js';
import type { IcebergType, NestedField } from '../iceberg/types.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../duckdb/session.js';
import { queryBody } from '../pipeline/query-body.js';

export interface FlowOutput {
  readonly flowName: string;
  readonly sql: string;
  readonly fields: readonly UnassignedField[];
}

export async function describeFlow(session: DuckDbSession, flowName: string, flowSql: string): Promise<FlowOutput> {
  // The flow's query is embedded as a subquery, where a trailing semicolon or comment would be a syntax error.
  const sql = queryBody(flowSql);
  let columns: { column_name: string; column_type: string }[];
  try {
    columns = (await session.queryJson(`DESCRIBE SELECT * FROM (${sql})`)) as typeof columns;
  } catch (error) {
    throw new FlowError(`Flow "${flowName}": SQL error: ${duckDbMessage(error)}`, { cause: error, context: { flow: flowName } });
  }
  const seen = new Set<string>();
  const fields = columns.map(({ column_name: name, column_type: type }): UnassignedField => {
    if (seen.has(name.toLowerCase())) {
      throw new InvalidInputError(`Flow "${flowName}": column "${name}" appears twice in the output; give each column its own name`, {
        context: { flow: flowName, column: name },
      });
    }
    seen.add(name.toLowerCase());
    try {
      return { name, required: false, type: duckDbTypeToIceberg(type, name) };
    } catch (error) {
      if (error instanceof ThundError) {
        throw new InvalidInputError(`Flow "${flowName}": ${error.message}`, { cause: error, context: { flow: flowName, column: name } });
      }
      throw error;
    }
  });
  return { flowName, sql, fields };
}

/** SELECT over the flow that yields exactly the table's columns, in order, with the table's types. */
export function projectOntoTable(output: FlowOutput, projection: readonly ColumnProjection[]): string {
  const columns = projection.map(({ tableField, sourceName }) => castColumn(quoteIdentifier(sourceName), tableField, sourceType(output, sourceName)));
  return `SELECT ${columns.join(', ')} FROM (${output.sql})`;
}

/**
 * SELECT over the flow yielding exactly the evolved table's columns: each fed column cast to its
 * table type (DuckDB casts structs by name, so nested fields the output lacks become nulls and
 * reordered ones land in place), each absent column its write-default (v3) or a typed NULL.
 */
export function projectEvolved(output: FlowOutput, columns: readonly EvolvedColumn[]): string {
  const select = columns.map(({ field, sourceName }) =>
    sourceName === undefined ? absentColumn(field) : castColumn(quoteIdentifier(sourceName), field, sourceType(output, sourceName)),
  );
  return `SELECT ${select.join(', ')} FROM (${output.sql})`;
}

/** A table column the output does not feed: its v3 write-default, else NULL. */
function absentColumn(field: NestedField): string {
  const text = fieldDefaultText(field, 'write');
  if (text === undefined) return castColumn('NULL', field);
  return castColumn(`CAST(${quoteLiteral(text)} AS ${icebergToDuckDbType(field.type, field.name)})`, field, field.type);
}

/** SELECT for a table created from this flow: every column cast to its Iceberg-mapped type. */
export function projectNewTable(output: FlowOutput, fields: readonly NestedField[]): string {
  const columns = fields.map((field) => castColumn(quoteIdentifier(field.name), field));
  return `SELECT ${columns.join(', ')} FROM (${output.sql})`;
}

function castColumn(source: string, field: NestedField, from?: UnassignedType | IcebergType): string {
  return `${castToColumnSql(source, field.type, field.name, from)} AS ${quoteIdentifier(field.name)}`;
}

/** The Iceberg type of the output column named `name` (exactly as the projection matched it). */
function sourceType(output: FlowOutput, name: string): UnassignedType | undefined {
  return output.fields.find((f) => f.name === name)?.type;
}
