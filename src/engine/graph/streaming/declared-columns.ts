/**
 * A streamed source's declared `schema:` applied to a staged batch: each declared column cast to
 * its type (a column no record has is all nulls), the record coordinates kept, other fields
 * dropped. A row whose field holds a value that does not fit its column (text in a number column,
 * a missing value in a NOT NULL one) is taken out and returned with the reason, naming the field,
 * the value and the type, so the caller can send its record to the dead letters.
 */
import { quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';
import { arrowTypeToIceberg } from '../../../iceberg/arrow-types.js';
import { icebergToDuckDbType } from '../../../iceberg/duckdb-types.js';
import type { DeclaredSchema } from '../../../pipeline/ir/column-types.js';
import { HEADERS_COLUMN, RECORD_COLUMNS } from './batch-staging.js';

export interface MisfitRow {
  readonly partition: number;
  readonly offset: bigint;
  readonly reason: string;
}

/** Replaces table `relation` by its rows cast to `schema`; returns the rows that did not fit. */
export async function applyDeclaredColumns(session: DuckDbSession, relation: string, schema: DeclaredSchema): Promise<MisfitRow[]> {
  const table = quoteIdentifier(relation);
  const present = new Map((await session.queryJson(`DESCRIBE ${table}`)).map((row) => [String(row['column_name']).toLowerCase(), String(row['column_name'])]));
  const columns = schema.map((column) => {
    const type = icebergToDuckDbType(arrowTypeToIceberg(column.type, column.name));
    const raw = present.get(column.name.toLowerCase());
    const value = raw === undefined ? 'NULL' : quoteIdentifier(raw);
    const cast = `TRY_CAST(${value} AS ${type})`;
    const misfit =
      raw === undefined
        ? column.nullable
          ? 'FALSE'
          : 'TRUE'
        : `(${value} IS NOT NULL AND ${cast} IS NULL)${column.nullable ? '' : ` OR ${value} IS NULL`}`;
    const reason = `${quoteLiteral(`field ${column.name}: `)} || CASE WHEN ${value} IS NULL THEN ${quoteLiteral('missing, and the column is NOT NULL')} ELSE ${quoteLiteral('value ')} || left(CAST(${value} AS VARCHAR), 200) || ${quoteLiteral(` does not fit ${type}`)} END`;
    return { name: column.name, cast, misfit, reason };
  });
  const reasons = columns.map((c) => `CASE WHEN ${c.misfit} THEN ${c.reason} END`);
  const misfits = await session.queryJson(
    `SELECT _kafka_partition AS p, _kafka_offset::VARCHAR AS o, coalesce(${reasons.join(', ')}) AS reason FROM ${table} WHERE ${columns.map((c) => `(${c.misfit})`).join(' OR ') || 'FALSE'}`,
  );
  const fits = columns.map((c) => `NOT (${c.misfit})`).join(' AND ') || 'TRUE';
  const select = [...[...RECORD_COLUMNS, HEADERS_COLUMN].map(quoteIdentifier), ...columns.map((c) => `${c.cast} AS ${quoteIdentifier(c.name)}`)].join(', ');
  await session.run(`CREATE OR REPLACE TABLE ${table} AS SELECT ${select} FROM ${table} WHERE ${fits}`);
  return misfits.map((row) => ({ partition: Number(row['p']), offset: BigInt(String(row['o'])), reason: String(row['reason']) }));
}
