/** Declared column types (Arrow) as Spark SQL DDL types. */
import { DataType, type Decimal, type Timestamp } from 'apache-arrow/type';
import type { DeclaredColumn, DeclaredSchema } from '../pipeline/ir/column-types.js';
import { InvalidInputError } from '../errors.js';
import { quoteIdentifier } from './identifiers.js';

export function sparkType(type: DataType): string {
  if (DataType.isBool(type)) return 'BOOLEAN';
  if (DataType.isInt(type)) return type.bitWidth === 64 ? 'BIGINT' : type.bitWidth === 32 ? 'INT' : type.bitWidth === 16 ? 'SMALLINT' : 'TINYINT';
  if (DataType.isFloat(type)) return type.precision === 2 ? 'DOUBLE' : 'FLOAT';
  if (DataType.isDecimal(type)) return `DECIMAL(${(type as Decimal).precision}, ${(type as Decimal).scale})`;
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) return 'STRING';
  if (DataType.isBinary(type) || DataType.isLargeBinary(type)) return 'BINARY';
  if (DataType.isDate(type)) return 'DATE';
  // Spark's TIMESTAMP is an instant (Iceberg timestamptz); TIMESTAMP_NTZ a wall-clock time.
  if (DataType.isTimestamp(type)) return (type as Timestamp).timezone === null || (type as Timestamp).timezone === undefined ? 'TIMESTAMP_NTZ' : 'TIMESTAMP';
  if (DataType.isTime(type)) return 'TIME(6)';
  throw new InvalidInputError(`column type ${String(type)} has no Spark SQL form in this lowering`);
}

export function columnDdl(column: DeclaredColumn): string {
  return `${quoteIdentifier(column.name)} ${sparkType(column.type)}${column.nullable ? '' : ' NOT NULL'}`;
}

/** `a BIGINT, b STRING`: a table's column list or a DataFrame schema string. */
export function schemaDdl(schema: DeclaredSchema): string {
  return schema.map(columnDdl).join(', ');
}
