/**
 * The partition tuple of an existing Parquet file, derived from its row-group statistics: every
 * partition field's transform must give one value over the whole file. A monotonic transform
 * (identity, truncate, year/month/day/hour) of each row group's min and max must agree; bucket
 * needs min == max, since values between two equal buckets may hash elsewhere. A file whose
 * values fall into several partitions, or whose statistics cannot tell, is refused by name.
 */
import { InvalidInputError } from '../errors.js';
import { compareValues } from '../iceberg/bounds.js';
import type { PartitionValues } from '../iceberg/data-file.js';
import { bindPartitionSpec } from '../iceberg/partition-fields.js';
import type { PartitionSpec } from '../iceberg/table-metadata.js';
import type { Schema } from '../iceberg/types.js';
import type { LeafStats } from './added-file-stats.js';

export function derivePartition(file: string, schema: Schema, spec: PartitionSpec, stats: ReadonlyMap<number, LeafStats>): PartitionValues {
  const tuple = new Map<number, unknown>();
  for (const field of bindPartitionSpec(spec, schema)) {
    const column = field.sourcePath.join('.');
    const refuse = (why: string): InvalidInputError =>
      new InvalidInputError(`Cannot add ${file}: ${why} (partition field ${field.field.name}, column ${column})`, {
        context: { file, column, partitionField: field.field.name },
      });
    if (field.transform.kind === 'void') {
      tuple.set(field.field.fieldId, null);
      continue;
    }
    const leaf = stats.get(field.source.id);
    let value: unknown;
    let seen = false;
    const settle = (next: unknown): void => {
      if (seen && !same(field.resultType, value, next)) throw refuse('its rows fall into more than one partition');
      value = next;
      seen = true;
    };
    for (const group of leaf?.rowGroups ?? []) {
      if (group.rows === 0n) continue;
      if (group.nullCount === undefined) throw refuse('it has no null count to derive the partition from');
      if (group.nullCount === group.rows) {
        settle(null);
        continue;
      }
      if (group.nullCount > 0n) throw refuse('its rows fall into more than one partition (nulls and values)');
      if (group.min === undefined || group.max === undefined) throw refuse('it has no min/max statistics to derive the partition from');
      if (field.transform.kind === 'bucket' && compareValues(leaf!.type, group.min, group.max) !== 0) {
        throw refuse('its rows fall into more than one partition');
      }
      const low = field.apply(group.min);
      if (!same(field.resultType, low, field.apply(group.max))) throw refuse('its rows fall into more than one partition');
      settle(low);
    }
    // A file without rows (or without the column, read as nulls) is in the null partition.
    tuple.set(field.field.fieldId, seen ? value : null);
  }
  return tuple;
}

function same(type: Parameters<typeof compareValues>[0], a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  return compareValues(type, a, b) === 0;
}
