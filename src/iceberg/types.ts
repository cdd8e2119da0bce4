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
  | 'unknown'
  | 'variant';

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

/** v3 `geometry(C)`; `crs` absent means the default, OGC:CRS84. */
export interface GeometryType {
  readonly kind: 'geometry';
  readonly crs?: string;
}

/** v3 `geography(C, A)`; absent `crs` means OGC:CRS84, absent `algorithm` spherical. */
export interface GeographyType {
  readonly kind: 'geography';
  readonly crs?: string;
  readonly algorithm?: string;
}

/**
 * The leaf types. `variant`, `geometry` and `geography` are leaves here too (Java models variant
 * apart); Thund parses and keeps them but refuses to read or write their columns.
 */
export type PrimitiveType = SimplePrimitiveType | DecimalType | FixedType | GeometryType | GeographyType;

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

/** Types a table may hold only from format version 3 on (Java's Schema.MIN_FORMAT_VERSIONS). */
export const V3_TYPE_KINDS: ReadonlySet<IcebergType['kind']> = new Set<IcebergType['kind']>([
  'timestamp_ns',
  'timestamptz_ns',
  'unknown',
  'variant',
  'geometry',
  'geography',
]);

/** Types whose values Thund can neither read nor write (it keeps them in metadata only). */
export const UNSUPPORTED_VALUE_KINDS: ReadonlySet<IcebergType['kind']> = new Set<IcebergType['kind']>(['variant', 'geometry', 'geography']);

/** Whether a type is, or holds anywhere inside it, a primitive of `kind`. */
export function holdsKind(type: IcebergType, kind: PrimitiveKind): boolean {
  switch (type.kind) {
    case 'struct':
      return type.fields.some((field) => holdsKind(field.type, kind));
    case 'list':
      return holdsKind(type.element, kind);
    case 'map':
      return holdsKind(type.key, kind) || holdsKind(type.value, kind);
    default:
      return type.kind === kind;
  }
}
