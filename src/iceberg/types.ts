/**
 * The Iceberg type model (spec §2). A closed union discriminated by `kind`; nested types carry
 * the field ids of their children. JSON (de)serialisation lives in type-json.ts.
 */
export type PrimitiveKind =
  | 'boolean'
  | 'int'
  | 'long'
  | 'float'
  | 'double'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'timestamp_ns'
  | 'timestamptz_ns'
  | 'string'
  | 'uuid'
  | 'binary'
  | 'unknown';

export interface SimplePrimitiveType {
  readonly kind: PrimitiveKind;
}

export interface DecimalType {
  readonly kind: 'decimal';
  readonly precision: number;
  readonly scale: number;
}

export interface FixedType {
  readonly kind: 'fixed';
  readonly length: number;
}

export type PrimitiveType = SimplePrimitiveType | DecimalType | FixedType;

export interface NestedField {
  readonly id: number;
  readonly name: string;
  readonly required: boolean;
  readonly type: IcebergType;
  readonly doc?: string;
  /** v3 only; JSON single-value form. */
  readonly initialDefault?: unknown;
  readonly writeDefault?: unknown;
}

export interface StructType {
  readonly kind: 'struct';
  readonly fields: readonly NestedField[];
}

export interface ListType {
  readonly kind: 'list';
  readonly elementId: number;
  readonly elementRequired: boolean;
  readonly element: IcebergType;
}

export interface MapType {
  readonly kind: 'map';
  readonly keyId: number;
  readonly key: IcebergType;
  readonly valueId: number;
  readonly valueRequired: boolean;
  readonly value: IcebergType;
}

export type NestedType = StructType | ListType | MapType;
export type IcebergType = PrimitiveType | NestedType;

export interface Schema {
  readonly schemaId: number;
  readonly identifierFieldIds: readonly number[];
  readonly fields: readonly NestedField[];
}

export const primitive = (kind: PrimitiveKind): SimplePrimitiveType => ({ kind });
export const decimal = (precision: number, scale: number): DecimalType => ({ kind: 'decimal', precision, scale });
export const fixed = (length: number): FixedType => ({ kind: 'fixed', length });

export function isPrimitive(type: IcebergType): type is PrimitiveType {
  return type.kind !== 'struct' && type.kind !== 'list' && type.kind !== 'map';
}
