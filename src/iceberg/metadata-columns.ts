/**
 * Names Iceberg gives its metadata columns (_file, _pos, _partition, …). Spark's Iceberg runtime
 * refuses to scan a table with a top-level column of one of these names, so thund never creates
 * one: a table must be read by Spark, Trino and pyiceberg alike.
 */
import { InvalidInputError } from '../errors.js';
import type { NestedField } from './types.js';

export const METADATA_COLUMN_NAMES: ReadonlySet<string> = new Set([
  '_file',
  '_pos',
  '_deleted',
  '_spec_id',
  '_partition',
  '_row_id',
  '_last_updated_sequence_number',
  '_change_type',
  '_change_ordinal',
  '_commit_snapshot_id',
]);

/** Refuses top-level columns named like a metadata column, except those in `existing` (already in the table); `table` names it for the message. */
export function checkNoMetadataColumnNames(table: string, fields: readonly NestedField[], existing: ReadonlySet<string> = new Set()): void {
  const clashing = fields.map((f) => f.name).filter((name) => METADATA_COLUMN_NAMES.has(name.toLowerCase()) && !existing.has(name));
  if (clashing.length === 0) return;
  throw new InvalidInputError(
    `${table}: column name${clashing.length > 1 ? 's' : ''} ${clashing.map((n) => `"${n}"`).join(', ')} ${clashing.length > 1 ? 'are' : 'is'} reserved for Iceberg metadata columns (Spark refuses to read such a table); rename ${clashing.length > 1 ? 'them' : 'it'}, e.g. in the flow's SELECT`,
    { context: { table, columns: clashing.join(', ') } },
  );
}
