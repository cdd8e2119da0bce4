/**
 * Declared column types: apache-arrow DataTypes, written in a spec or builder by name
 * (`long`, `timestamp`, `decimal(10, 2)`, …) or given as Arrow types directly.
 */
import {
  Binary,
  Bool,
  DataType,
  DateDay,
  Decimal,
  Float32,
  Float64,
  Int32,
  Int64,
  TimeMicrosecond,
  TimestampMicrosecond,
  Utf8,
} from 'apache-arrow/type';

export interface DeclaredColumn {
  readonly name: string;
  readonly type: DataType;
  readonly nullable: boolean;
}

/** Columns in declaration order; absent on a dataset means "inferred when run". */
export type DeclaredSchema = readonly DeclaredColumn[];

const SIMPLE_TYPES: Readonly<Record<string, () => DataType>> = {
  boolean: () => new Bool(),
  bool: () => new Bool(),
  int: () => new Int32(),
  integer: () => new Int32(),
  long: () => new Int64(),
  bigint: () => new Int64(),
  float: () => new Float32(),
  double: () => new Float64(),
  string: () => new Utf8(),
  varchar: () => new Utf8(),
  binary: () => new Binary(),
  blob: () => new Binary(),
  date: () => new DateDay(),
  time: () => new TimeMicrosecond(),
  timestamp: () => new TimestampMicrosecond(),
  timestamptz: () => new TimestampMicrosecond('UTC'),
};

const DECIMAL = /^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;
const NOT_NULL = /\s+not\s+null$/;

export const TYPE_NAMES_HINT = `${Object.keys(SIMPLE_TYPES).join(', ')}, decimal(P, S); add "not null" for a required column`;

/** `long`, `decimal(10,2) not null` → column type and nullability; undefined when unknown. */
export function parseColumnType(text: string): { readonly type: DataType; readonly nullable: boolean } | undefined {
  const lowered = text.trim().toLowerCase();
  const nullable = !NOT_NULL.test(lowered);
  const name = lowered.replace(NOT_NULL, '').trim();
  const simple = SIMPLE_TYPES[name];
  if (simple !== undefined) return { type: simple(), nullable };
  const decimal = DECIMAL.exec(name);
  if (decimal === null) return undefined;
  const precision = Number(decimal[1]);
  const scale = Number(decimal[2]);
  if (precision < 1 || precision > 38 || scale > precision) return undefined;
  return { type: new Decimal(scale, precision, 128), nullable };
}

export const isTemporal = (type: DataType): boolean => DataType.isTimestamp(type) || DataType.isDate(type);

/** Types whose values have a total order, as a CDC sequence column needs. */
export const isOrderable = (type: DataType): boolean =>
  DataType.isInt(type) ||
  DataType.isFloat(type) ||
  DataType.isDecimal(type) ||
  DataType.isTimestamp(type) ||
  DataType.isDate(type) ||
  DataType.isTime(type) ||
  DataType.isUtf8(type);

export function findColumn(schema: DeclaredSchema, name: string): DeclaredColumn | undefined {
  const folded = name.toLowerCase();
  return schema.find((column) => column.name.toLowerCase() === folded);
}
