/**
 * The columns a flow produces, as Iceberg fields, and the SELECT that casts them onto the
 * target table's schema. The flow query is described, not run, so rows stream straight into
 * the Parquet writer.
 */
import { FlowError, InvalidInputError, ThundError } from '../errors.js';
import { duckDbTypeToIceberg, icebergToDuckDbType } from '../iceberg/duckdb-types.js';
import type { ColumnProjection, UnassignedField } from '../iceberg/schema.js';
import type { EvolvedColumn } from '../iceberg/schema-evolution.js';
import type { NestedField } from '../iceberg/types.js';
import { duckDbMessage, quoteIdentifier, type DuckDbSession } from '../duckdb/session.js';
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
  const columns = projection.map(({ tableField, sourceName }) => castColumn(quoteIdentifier(sourceName), tableField));
  return `SELECT ${columns.join(', ')} FROM (${output.sql})`;
}

/**
 * SELECT over the flow yielding exactly the evolved table's columns: each fed column cast to its
 * table type (DuckDB casts structs by name, so nested fields the output lacks become nulls and
 * reordered ones land in place), each absent column a typed NULL.
 */
export function projectEvolved(output: FlowOutput, columns: readonly EvolvedColumn[]): string {
  const select = columns.map(({ field, sourceName }) => castColumn(sourceName === undefined ? 'NULL' : quoteIdentifier(sourceName), field));
  return `SELECT ${select.join(', ')} FROM (${output.sql})`;
}

/** SELECT for a table created from this flow: every column cast to its Iceberg-mapped type. */
export function projectNewTable(output: FlowOutput, fields: readonly NestedField[]): string {
  const columns = fields.map((field) => castColumn(quoteIdentifier(field.name), field));
  return `SELECT ${columns.join(', ')} FROM (${output.sql})`;
}

function castColumn(source: string, field: NestedField): string {
  return `CAST(${source} AS ${icebergToDuckDbType(field.type)}) AS ${quoteIdentifier(field.name)}`;
}
