/**
 * Target-table partitioning written as Iceberg transform terms: `ts`, `identity(ts)`, `day(ts)`,
 * `bucket(16, id)`, `truncate(4, name)`, `void(x)`. Parsed here (src/pipeline imports no other
 * room), checked against declared column types by validate().
 */
import { DataType } from 'apache-arrow/type';

export type PartitionTransformName = 'identity' | 'year' | 'month' | 'day' | 'hour' | 'bucket' | 'truncate' | 'void';

export interface PartitionField {
  readonly transform: PartitionTransformName;
  readonly column: string;
  /** Bucket count or truncate width. */
  readonly parameter?: number;
  /** The term as written (normalised spacing), e.g. `bucket(16, id)`. */
  readonly term: string;
}

const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UNARY = /^(identity|years?|months?|days?|hours?|void)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/i;
const WITH_PARAMETER = /^(bucket|truncate)\s*\(\s*(\d+)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/i;

export const PARTITION_HINT = 'a column, or identity(col), year(col), month(col), day(col), hour(col), bucket(N, col), truncate(W, col), void(col)';

/** undefined when the term is not a transform this version knows. */
export function parsePartitionField(text: string): PartitionField | undefined {
  const term = text.trim();
  if (COLUMN.test(term)) return { transform: 'identity', column: term, term };
  const unary = UNARY.exec(term);
  if (unary !== null) {
    const transform = (unary[1] ?? '').toLowerCase().replace(/s$/, '') as PartitionTransformName;
    const column = unary[2] ?? '';
    return { transform, column, term: `${transform}(${column})` };
  }
  const withParameter = WITH_PARAMETER.exec(term);
  if (withParameter === null) return undefined;
  const transform = (withParameter[1] ?? '').toLowerCase() as 'bucket' | 'truncate';
  const parameter = Number(withParameter[2]);
  if (!Number.isSafeInteger(parameter) || parameter < 1) return undefined;
  const column = withParameter[3] ?? '';
  return { transform, column, parameter, term: `${transform}(${parameter}, ${column})` };
}

/** Whether Iceberg defines the transform for a column of this type (the spec's transform table). */
export function transformAccepts(transform: PartitionTransformName, type: DataType): boolean {
  switch (transform) {
    case 'identity':
    case 'void':
      return true;
    case 'year':
    case 'month':
    case 'day':
      return DataType.isDate(type) || DataType.isTimestamp(type);
    case 'hour':
      return DataType.isTimestamp(type);
    case 'bucket':
      return (
        DataType.isInt(type) ||
        DataType.isDecimal(type) ||
        DataType.isDate(type) ||
        DataType.isTime(type) ||
        DataType.isTimestamp(type) ||
        DataType.isUtf8(type) ||
        DataType.isBinary(type) ||
        DataType.isFixedSizeBinary(type)
      );
    case 'truncate':
      return DataType.isInt(type) || DataType.isDecimal(type) || DataType.isUtf8(type) || DataType.isBinary(type);
  }
}
