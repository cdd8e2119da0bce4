/**
 * Whether a data file may hold rows matching a RowFilter, from its partition tuple and its
 * column metrics. Only a certain "no" prunes: missing metrics, a column the file predates, a
 * transform that does not preserve order, or any doubt keeps the file.
 */
import { compareValues, decodeSingleValue } from '../iceberg/bounds.js';
import type { DataFile } from '../iceberg/data-file.js';
import { bindPartitionField, type BoundPartitionField } from '../iceberg/partition-fields.js';
import { specById } from '../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../iceberg/table-metadata.js';
import type { PrimitiveType, Schema } from '../iceberg/types.js';
import type { CompareOp, RowFilter } from './row-filter.js';

type Term = Extract<RowFilter, { fieldId: number }>;

const ORDER_PRESERVING: ReadonlySet<string> = new Set(['identity', 'truncate', 'year', 'month', 'day', 'hour']);

export class FilePruner {
  private readonly bound = new Map<number, BoundPartitionField[]>();

  constructor(
    private readonly metadata: TableMetadata,
    private readonly schema: Schema,
  ) {}

  mayMatch(filter: RowFilter, file: DataFile): boolean {
    switch (filter.kind) {
      case 'unknown':
        return true;
      case 'and':
        return filter.children.every((child) => this.mayMatch(child, file));
      case 'or':
        return filter.children.some((child) => this.mayMatch(child, file));
      default:
        return guard(() => metricsMayMatch(filter, file)) && this.partitionMayMatch(filter, file);
    }
  }

  private partitionMayMatch(term: Term, file: DataFile): boolean {
    for (const field of this.fieldsOf(file.specId)) {
      if (field.field.sourceId !== term.fieldId || field.transform.kind === 'void') continue;
      if (!file.partition.has(field.field.fieldId)) continue;
      const value = file.partition.get(field.field.fieldId) ?? null;
      if (!guard(() => partitionValueMayMatch(term, field, value))) return false;
    }
    return true;
  }

  private fieldsOf(specId: number): BoundPartitionField[] {
    let fields = this.bound.get(specId);
    if (fields === undefined) {
      const spec = specById(this.metadata, specId);
      fields = [];
      for (const field of spec?.fields ?? []) {
        // A field whose source column was dropped cannot be reasoned about: it prunes nothing.
        try {
          fields.push(bindPartitionField(field, this.schema));
        } catch {
          continue;
        }
      }
      this.bound.set(specId, fields);
    }
    return fields;
  }
}

/** Any error while reasoning (an odd bound, a value a transform rejects) means "may match". */
function guard(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return true;
  }
}

function metricsMayMatch(term: Term, file: DataFile): boolean {
  const values = file.valueCounts?.get(term.fieldId);
  const nulls = file.nullValueCounts?.get(term.fieldId);
  const allNull = values !== undefined && nulls !== undefined && values === nulls;
  if (term.kind === 'is-null') return nulls === undefined || nulls > 0n;
  if (allNull) return false;
  if (term.kind === 'not-null') return true;
  const lowerBytes = file.lowerBounds?.get(term.fieldId);
  const upperBytes = file.upperBounds?.get(term.fieldId);
  const lower = lowerBytes === undefined ? undefined : decodeSingleValue(term.type, lowerBytes);
  const upper = upperBytes === undefined ? undefined : decodeSingleValue(term.type, upperBytes);
  const within = (op: CompareOp, value: unknown): boolean => rangeMayHold(term.type, op, value, lower, upper);
  if (term.kind === 'in') return term.values.some((value) => within('=', value));
  return within(term.op, term.value);
}

/** Whether some x with lower <= x <= upper (either side unknown) satisfies `x op value`. */
function rangeMayHold(type: PrimitiveType, op: CompareOp, value: unknown, lower: unknown, upper: unknown): boolean {
  const belowUpper = upper === undefined ? 1 : compareValues(type, value, upper);
  const aboveLower = lower === undefined ? -1 : compareValues(type, value, lower);
  switch (op) {
    case '=':
      return !(belowUpper > 0 || aboveLower < 0);
    case '<':
      return lower === undefined || aboveLower > 0;
    case '<=':
      return lower === undefined || aboveLower >= 0;
    case '>':
      return upper === undefined || belowUpper < 0;
    case '>=':
      return upper === undefined || belowUpper <= 0;
  }
}

function partitionValueMayMatch(term: Term, field: BoundPartitionField, partitionValue: unknown): boolean {
  // Every transform maps null to null and only null to null.
  if (term.kind === 'is-null') return partitionValue === null;
  if (partitionValue === null) return false;
  if (term.kind === 'not-null') return true;
  const equalsTransformed = (value: unknown): boolean => compareValues(field.resultType, field.apply(value), partitionValue) === 0;
  if (term.kind === 'in') return term.values.some(equalsTransformed);
  if (term.op === '=') return equalsTransformed(term.value);
  if (!ORDER_PRESERVING.has(field.transform.kind)) return true;
  const order = compareValues(field.resultType, partitionValue, field.apply(term.value));
  return term.op === '<' || term.op === '<=' ? order <= 0 : order >= 0;
}
