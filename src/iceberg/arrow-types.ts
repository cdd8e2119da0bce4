/**
 * apache-arrow DataTypes ⇄ Iceberg types. Arrow → Iceberg widens where Iceberg has no exact
 * type (Int8/16 → int, Uint32 → long, Float16 → float, seconds/millis → micros); the reverse
 * gives the canonical Arrow type for each Iceberg type.
 */
// Arrow's type classes from their own modules: the package root would load all of Arrow (IPC, builders, vectors).
import { Field, Schema as ArrowSchema } from 'apache-arrow/schema';
import { TimeUnit, Type } from 'apache-arrow/enum';
import {
  Binary,
  Bool,
  DataType,
  DateDay,
  Decimal,
  FixedSizeBinary,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  Map_,
  Struct,
  TimeMicrosecond,
  TimestampMicrosecond,
  TimestampNanosecond,
  Utf8,
} from 'apache-arrow/type';
import { IcebergFormatError, InvalidInputError } from '../errors.js';
import type { UnassignedField, UnassignedType } from './schema.js';
import type { IcebergType } from './types.js';

function reject(column: string, type: DataType, why: string): never {
  throw new InvalidInputError(`column "${column}" has Arrow type ${String(type)}, which Iceberg cannot store: ${why}`, {
    context: { column, arrowType: String(type) },
  });
}

function fieldsOf(children: readonly Field[], column: string): UnassignedField[] {
  return children.map((c) => ({
    name: c.name,
    required: !c.nullable,
    type: arrowTypeToIceberg(c.type, column === '' ? c.name : `${column}.${c.name}`),
  }));
}

/** Map an Arrow DataType to an Iceberg type; errors name the column. */
export function arrowTypeToIceberg(type: DataType, column: string): UnassignedType {
  if (DataType.isBool(type)) return { kind: 'boolean' };
  if (DataType.isInt(type)) {
    const { bitWidth, isSigned } = type;
    if (isSigned) return bitWidth <= 32 ? { kind: 'int' } : { kind: 'long' };
    if (bitWidth <= 16) return { kind: 'int' };
    if (bitWidth === 32) return { kind: 'long' };
    return reject(column, type, 'unsigned 64-bit values do not fit Iceberg long');
  }
  if (DataType.isFloat(type)) return type.precision === 2 ? { kind: 'double' } : { kind: 'float' };
  if (DataType.isDecimal(type)) {
    if (type.precision < 1 || type.precision > 38) return reject(column, type, 'decimal precision must be 1..38');
    return { kind: 'decimal', precision: type.precision, scale: type.scale };
  }
  if (DataType.isDate(type)) return { kind: 'date' };
  if (DataType.isTime(type)) return { kind: 'time' };
  if (DataType.isTimestamp(type)) {
    const zoned = type.timezone !== null && type.timezone !== undefined && type.timezone !== '';
    if (type.unit === TimeUnit.NANOSECOND) return { kind: zoned ? 'timestamptz_ns' : 'timestamp_ns' };
    return { kind: zoned ? 'timestamptz' : 'timestamp' };
  }
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type) || type.typeId === Type.Utf8View) return { kind: 'string' };
  if (DataType.isBinary(type) || DataType.isLargeBinary(type) || type.typeId === Type.BinaryView) {
    return { kind: 'binary' };
  }
  // Arrow has no uuid type outside extensions: FixedSizeBinary(16) stays fixed[16].
  if (DataType.isFixedSizeBinary(type)) return { kind: 'fixed', length: type.byteWidth };
  if (DataType.isStruct(type)) return { kind: 'struct', fields: fieldsOf(type.children, column) };
  if (DataType.isList(type) || type.typeId === Type.LargeList || DataType.isFixedSizeList(type)) {
    const child = (type as List).children[0] as Field;
    return {
      kind: 'list',
      elementRequired: !child.nullable,
      element: arrowTypeToIceberg(child.type, `${column}.element`),
    };
  }
  if (DataType.isMap(type)) {
    const entries = type.children[0]?.type as Struct | undefined;
    const [key, value] = entries?.children ?? [];
    if (key === undefined || value === undefined) return reject(column, type, 'map without key/value children');
    return {
      kind: 'map',
      key: arrowTypeToIceberg(key.type, `${column}.key`),
      valueRequired: !value.nullable,
      value: arrowTypeToIceberg(value.type, `${column}.value`),
    };
  }
  if (DataType.isDictionary(type)) return arrowTypeToIceberg(type.dictionary, column);
  return reject(column, type, 'no matching Iceberg type');
}

/** An Arrow schema → Iceberg fields without ids (feed them to assignFreshIds). */
export function arrowSchemaToFields(schema: ArrowSchema): UnassignedField[] {
  return fieldsOf(schema.fields, '');
}

/** The canonical Arrow type for an Iceberg type (uuid → FixedSizeBinary(16)). */
export function icebergToArrowType(t: IcebergType | UnassignedType): DataType {
  switch (t.kind) {
    case 'boolean':
      return new Bool();
    case 'int':
      return new Int32();
    case 'long':
      return new Int64();
    case 'float':
      return new Float32();
    case 'double':
      return new Float64();
    case 'decimal':
      return new Decimal(t.scale, t.precision, 128);
    case 'date':
      return new DateDay();
    case 'time':
      return new TimeMicrosecond();
    case 'timestamp':
      return new TimestampMicrosecond();
    case 'timestamptz':
      return new TimestampMicrosecond('UTC');
    case 'timestamp_ns':
      return new TimestampNanosecond();
    case 'timestamptz_ns':
      return new TimestampNanosecond('UTC');
    case 'string':
      return new Utf8();
    case 'uuid':
      return new FixedSizeBinary(16);
    case 'fixed':
      return new FixedSizeBinary(t.length);
    case 'binary':
      return new Binary();
    case 'struct':
      return new Struct(t.fields.map((f) => new Field(f.name, icebergToArrowType(f.type), !f.required)));
    case 'list':
      return new List(new Field('element', icebergToArrowType(t.element), !t.elementRequired));
    case 'map':
    {
      const entryFields: Field[] = [
        new Field('key', icebergToArrowType(t.key), false),
        new Field('value', icebergToArrowType(t.value), !t.valueRequired),
      ];
      return new Map_(new Field('entries', new Struct<{ key: DataType; value: DataType }>(entryFields), false));
    }
    case 'unknown':
    case 'variant':
    case 'geometry':
    case 'geography':
      throw new IcebergFormatError(`Iceberg type ${t.kind} has no Arrow type in Thund`, { context: { type: t.kind } });
  }
}
