/**
 * Column statistics of an existing Parquet file, from its footer's row groups: per matched leaf
 * the value, null and byte counts summed over row groups and the least/greatest min/max, plus
 * each row group's own min/max (partition values are derived from those). Metrics go through
 * data-file-metrics.ts (its text form of statistics) so modes, truncation and bound rules are
 * the writer's.
 */
import { compareValues } from '../iceberg/bounds.js';
import { duckDbColumnPath } from '../iceberg/duckdb-types.js';
import type { ParquetFooter, ParquetSchemaNode } from '../iceberg/parquet-footer.js';
import { parquetStatValue } from '../iceberg/parquet-values.js';
import { allFields } from '../iceberg/schema.js';
import { civilFromDays, floorDiv } from '../iceberg/transforms/time.js';
import type { PrimitiveType, Schema } from '../iceberg/types.js';
import { isPrimitive } from '../iceberg/types.js';

/** One row group's view of a column: its min and max (undefined when unknown) and null facts. */
export interface RowGroupRange {
  readonly rows: bigint;
  readonly nullCount?: bigint;
  readonly min?: unknown;
  readonly max?: unknown;
}

export interface LeafStats {
  readonly type: PrimitiveType;
  readonly rowGroups: readonly RowGroupRange[];
}

/** Field id → its leaf's statistics, for the primitive fields matched in the file. */
export function leafStats(schema: Schema, footer: ParquetFooter, leaves: ReadonlyMap<number, ParquetSchemaNode>): Map<number, LeafStats> {
  const out = new Map<number, LeafStats>();
  for (const { field } of allFields(schema)) {
    const node = leaves.get(field.id);
    if (node === undefined || node.columnIndex === undefined || !isPrimitive(field.type)) continue;
    const type = field.type;
    const index = node.columnIndex;
    const value = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : parquetStatValue(node, type, bytes));
    out.set(field.id, {
      type,
      rowGroups: footer.rowGroups.map((group) => {
        const chunk = group.columns[index];
        const min = value(chunk?.min);
        const max = value(chunk?.max);
        return {
          rows: group.numRows,
          ...(chunk?.nullCount === undefined ? {} : { nullCount: chunk.nullCount }),
          ...(min === undefined ? {} : { min }),
          ...(max === undefined ? {} : { max }),
        };
      }),
    });
  }
  return out;
}

const pad = (n: number | bigint, width: number): string => String(n).padStart(width, '0');

/** A value as DuckDB prints statistics (what parseDuckDbStatValue reads); undefined when it has no such text here. */
function statText(type: PrimitiveType, value: unknown): string | undefined {
  const date = (days: number): string | undefined => {
    const { year, month, day } = civilFromDays(days);
    return year < 1 ? undefined : `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
  };
  const clock = (micros: bigint, digits: number): string => {
    const unit = 10n ** BigInt(digits);
    const seconds = micros / unit;
    return `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}.${pad(micros % unit, digits)}`;
  };
  const timestamp = (v: bigint, digits: number, zoned: boolean): string | undefined => {
    const perDay = 86_400n * 10n ** BigInt(digits);
    const days = floorDiv(v, perDay);
    const d = date(Number(days));
    return d === undefined ? undefined : `${d} ${clock(v - days * perDay, digits)}${zoned ? '+00' : ''}`;
  };
  switch (type.kind) {
    case 'date':
      return date(value as number);
    case 'time':
      return clock(value as bigint, 6);
    case 'timestamp':
    case 'timestamptz':
      return timestamp(value as bigint, 6, type.kind === 'timestamptz');
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return timestamp(value as bigint, 9, type.kind === 'timestamptz_ns');
    case 'decimal': {
      const unscaled = value as bigint;
      const digits = String(unscaled < 0n ? -unscaled : unscaled).padStart(type.scale + 1, '0');
      const text = type.scale === 0 ? digits : `${digits.slice(0, digits.length - type.scale)}.${digits.slice(digits.length - type.scale)}`;
      return unscaled < 0n ? `-${text}` : text;
    }
    case 'binary':
    case 'fixed':
      return Buffer.from(value as Uint8Array).toString('hex');
    default:
      return String(value);
  }
}

/** The least min and greatest max over row groups; undefined when a row group with values has none. */
function fileRange(stats: LeafStats): { min?: unknown; max?: unknown } {
  let min: unknown;
  let max: unknown;
  let minKnown = true;
  let maxKnown = true;
  for (const group of stats.rowGroups) {
    if (group.nullCount !== undefined && group.nullCount === group.rows) continue;
    if (group.min === undefined) minKnown = false;
    else if (min === undefined || compareValues(stats.type, group.min, min) < 0) min = group.min;
    if (group.max === undefined) maxKnown = false;
    else if (max === undefined || compareValues(stats.type, group.max, max) > 0) max = group.max;
  }
  return { ...(minKnown && min !== undefined ? { min } : {}), ...(maxKnown && max !== undefined ? { max } : {}) };
}

/**
 * The file's statistics as data-file-metrics.ts takes them: column path (`"st"."x"`) → stat
 * name → text. Float and double columns get no has_nan (a footer does not say), so no bounds.
 */
export function columnStatistics(schema: Schema, footer: ParquetFooter, leaves: ReadonlyMap<number, ParquetSchemaNode>, stats: ReadonlyMap<number, LeafStats>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const { field, path } of allFields(schema)) {
    const node = leaves.get(field.id);
    const leaf = stats.get(field.id);
    if (node?.columnIndex === undefined || leaf === undefined) continue;
    const chunks = footer.rowGroups.map((group) => group.columns[node.columnIndex!]);
    const text = new Map<string, string>();
    text.set('num_values', String(chunks.reduce((sum, c) => sum + (c?.numValues ?? 0n), 0n)));
    text.set('column_size_bytes', String(chunks.reduce((sum, c) => sum + (c?.compressedSize ?? 0n), 0n)));
    if (chunks.every((c) => c?.nullCount !== undefined)) text.set('null_count', String(chunks.reduce((sum, c) => sum + c!.nullCount!, 0n)));
    const { min, max } = fileRange(leaf);
    const minText = min === undefined ? undefined : statText(leaf.type, min);
    const maxText = max === undefined ? undefined : statText(leaf.type, max);
    if (minText !== undefined) text.set('min', minText);
    if (maxText !== undefined) text.set('max', maxText);
    out.set(duckDbColumnPath(path), text);
  }
  return out;
}
