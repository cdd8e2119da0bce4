/**
 * DuckDB logical types (as DESCRIBE prints them) ⇄ Iceberg types, DuckDB column paths of fields,
 * and the FIELD_IDS option of DuckDB's Parquet COPY that stamps Iceberg field ids on every
 * Parquet schema element.
 */
import { IcebergFormatError, InvalidInputError } from '../errors.js';
import { allFields, typeText, type UnassignedField, type UnassignedType } from './schema.js';
import { isPrimitive, UNSUPPORTED_VALUE_KINDS, type IcebergType, type NestedField, type Schema } from './types.js';

/** A parsed DuckDB type. */
export type DuckDbTypeNode =
  | { readonly t: 'named'; readonly name: string; readonly params: readonly string[] }
  | { readonly t: 'struct'; readonly name: 'STRUCT' | 'UNION'; readonly fields: readonly DuckDbFieldNode[] }
  | { readonly t: 'map'; readonly key: DuckDbTypeNode; readonly value: DuckDbTypeNode }
  | { readonly t: 'list'; readonly element: DuckDbTypeNode; readonly size?: number };

export interface DuckDbFieldNode {
  readonly name: string;
  readonly type: DuckDbTypeNode;
}

class TypeTextParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  private fail(message: string): never {
    throw new InvalidInputError(`cannot parse DuckDB type "${this.text}": ${message} at offset ${this.pos}`, {
      context: { type: this.text, offset: this.pos },
    });
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++;
  }

  private peek(): string | undefined {
    this.skipSpace();
    return this.text[this.pos];
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected "${ch}"`);
    this.pos++;
  }

  parseAll(): DuckDbTypeNode {
    const node = this.parseType();
    if (this.peek() !== undefined) this.fail('unexpected trailing text');
    return node;
  }

  /** A quoted ("…" with "" escapes) or bare identifier. */
  private parseName(): string {
    this.skipSpace();
    if (this.text[this.pos] === '"') {
      let out = '';
      this.pos++;
      for (;;) {
        const ch = this.text[this.pos];
        if (ch === undefined) this.fail('unterminated quoted name');
        if (ch === '"') {
          if (this.text[this.pos + 1] === '"') {
            out += '"';
            this.pos += 2;
            continue;
          }
          this.pos++;
          return out;
        }
        out += ch;
        this.pos++;
      }
    }
    const start = this.pos;
    while (this.pos < this.text.length && !/[\s(),[\]]/.test(this.text[this.pos] as string)) this.pos++;
    if (start === this.pos) this.fail('expected a name');
    return this.text.slice(start, this.pos);
  }

  /** Raw text of balanced parentheses (respecting '…' and "…" literals), split at top-level commas. */
  private rawParams(): string[] {
    this.expect('(');
    const params: string[] = [];
    let depth = 0;
    let current = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail('unbalanced parentheses');
      if (ch === "'" || ch === '"') {
        const end = this.literalEnd(this.pos);
        current += this.text.slice(this.pos, end);
        this.pos = end;
        continue;
      }
      this.pos++;
      if (ch === '(') depth++;
      else if (ch === ')') {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) {
        params.push(current.trim());
        current = '';
        continue;
      }
      current += ch;
    }
    params.push(current.trim());
    return params;
  }

  private literalEnd(start: number): number {
    const quote = this.text[start];
    let i = start + 1;
    for (;;) {
      if (i >= this.text.length) this.fail('unterminated literal');
      if (this.text[i] === quote) {
        if (this.text[i + 1] === quote) i += 2;
        else return i + 1;
      } else i++;
    }
  }

  private parseFields(): DuckDbFieldNode[] {
    this.expect('(');
    const fields: DuckDbFieldNode[] = [];
    for (;;) {
      const name = this.parseName();
      const type = this.parseType();
      fields.push({ name, type });
      const ch = this.peek();
      this.pos++;
      if (ch === ')') return fields;
      if (ch !== ',') this.fail('expected "," or ")" in field list');
    }
  }

  parseType(): DuckDbTypeNode {
    this.skipSpace();
    // Base name: words up to a delimiter ("TIMESTAMP WITH TIME ZONE" is one name).
    const start = this.pos;
    while (this.pos < this.text.length && !/[(),[\]]/.test(this.text[this.pos] as string)) this.pos++;
    const name = this.text.slice(start, this.pos).trim().replace(/\s+/g, ' ').toUpperCase();
    if (name === '') this.fail('expected a type name');
    let node: DuckDbTypeNode;
    if ((name === 'STRUCT' || name === 'ROW' || name === 'UNION') && this.peek() === '(') {
      node = { t: 'struct', name: name === 'UNION' ? 'UNION' : 'STRUCT', fields: this.parseFields() };
    } else if (name === 'MAP' && this.peek() === '(') {
      this.expect('(');
      const key = this.parseType();
      this.expect(',');
      const value = this.parseType();
      this.expect(')');
      node = { t: 'map', key, value };
    } else if (this.peek() === '(') {
      node = { t: 'named', name, params: this.rawParams() };
    } else {
      node = { t: 'named', name, params: [] };
    }
    while (this.peek() === '[') {
      this.pos++;
      this.skipSpace();
      const digits = /^\d*/.exec(this.text.slice(this.pos))?.[0] ?? '';
      this.pos += digits.length;
      this.expect(']');
      node = digits === '' ? { t: 'list', element: node } : { t: 'list', element: node, size: Number(digits) };
    }
    return node;
  }
}

export function parseDuckDbType(text: string): DuckDbTypeNode {
  return new TypeTextParser(text).parseAll();
}

const SIMPLE: Readonly<Record<string, UnassignedType>> = {
  BOOLEAN: { kind: 'boolean' },
  BOOL: { kind: 'boolean' },
  TINYINT: { kind: 'int' },
  SMALLINT: { kind: 'int' },
  INTEGER: { kind: 'int' },
  INT: { kind: 'int' },
  INT4: { kind: 'int' },
  UTINYINT: { kind: 'int' },
  USMALLINT: { kind: 'int' },
  BIGINT: { kind: 'long' },
  INT8: { kind: 'long' },
  UINTEGER: { kind: 'long' },
  FLOAT: { kind: 'float' },
  REAL: { kind: 'float' },
  FLOAT4: { kind: 'float' },
  DOUBLE: { kind: 'double' },
  FLOAT8: { kind: 'double' },
  DATE: { kind: 'date' },
  TIME: { kind: 'time' },
  TIMESTAMP: { kind: 'timestamp' },
  DATETIME: { kind: 'timestamp' },
  TIMESTAMP_MS: { kind: 'timestamp' },
  TIMESTAMP_S: { kind: 'timestamp' },
  TIMESTAMP_US: { kind: 'timestamp' },
  'TIMESTAMP WITH TIME ZONE': { kind: 'timestamptz' },
  TIMESTAMPTZ: { kind: 'timestamptz' },
  TIMESTAMP_NS: { kind: 'timestamp_ns' },
  VARCHAR: { kind: 'string' },
  TEXT: { kind: 'string' },
  STRING: { kind: 'string' },
  JSON: { kind: 'string' },
  ENUM: { kind: 'string' },
  UUID: { kind: 'uuid' },
  BLOB: { kind: 'binary' },
  BYTEA: { kind: 'binary' },
};

const WHY_NOT: Readonly<Record<string, string>> = {
  UBIGINT: 'unsigned 64-bit values do not fit Iceberg long; CAST to DECIMAL(20,0) or BIGINT',
  HUGEINT: '128-bit integers have no Iceberg type; CAST to DECIMAL(38,0) or BIGINT',
  UHUGEINT: '128-bit integers have no Iceberg type; CAST to DECIMAL(38,0)',
  INTERVAL: 'Iceberg has no interval type',
  BIT: 'Iceberg has no bit-string type; CAST to BLOB or VARCHAR',
  'TIME WITH TIME ZONE': 'Iceberg time has no zone; CAST to TIME',
  UNION: 'Iceberg has no union type',
  NULL: 'the column has no type (only NULLs); CAST it to a concrete type',
};

function convert(node: DuckDbTypeNode, column: string, text: string): UnassignedType {
  const reject = (why: string): never => {
    throw new InvalidInputError(`column "${column}" has DuckDB type ${text}, which Iceberg cannot store: ${why}`, {
      context: { column, duckdbType: text },
    });
  };
  switch (node.t) {
    case 'struct':
      if (node.name === 'UNION') return reject(WHY_NOT['UNION'] as string);
      return {
        kind: 'struct',
        fields: node.fields.map((f) => ({
          name: f.name,
          required: false,
          type: convert(f.type, `${column}.${f.name}`, text),
        })),
      };
    case 'map':
      return {
        kind: 'map',
        key: convert(node.key, `${column}.key`, text),
        valueRequired: false,
        value: convert(node.value, `${column}.value`, text),
      };
    case 'list':
      if (node.size !== undefined) return reject('fixed-size ARRAY types are not supported; CAST to a list (X[])');
      return { kind: 'list', elementRequired: false, element: convert(node.element, `${column}.element`, text) };
    case 'named': {
      if (node.name === 'DECIMAL' || node.name === 'NUMERIC') {
        const [p, s] = node.params.length === 0 ? ['18', '3'] : node.params;
        const precision = Number(p);
        const scale = Number(s ?? '0');
        if (!Number.isInteger(precision) || !Number.isInteger(scale) || precision < 1 || precision > 38) {
          return reject('bad decimal precision/scale');
        }
        return { kind: 'decimal', precision, scale };
      }
      const simple = SIMPLE[node.name];
      if (simple !== undefined) return simple;
      return reject(WHY_NOT[node.name] ?? 'no matching Iceberg type');
    }
  }
}

/** Map one DuckDB type (DESCRIBE text) to an Iceberg type; errors name the column. */
export function duckDbTypeToIceberg(typeText: string, column: string): UnassignedType {
  return convert(parseDuckDbType(typeText), column, typeText);
}

export interface DuckDbColumn {
  readonly name: string;
  readonly type: string;
  /** DESCRIBE's `null` column: false means NOT NULL, which becomes a required Iceberg field. */
  readonly nullable?: boolean;
}

/** DESCRIBE rows → Iceberg fields without ids (feed them to assignFreshIds). */
export function duckDbColumnsToFields(columns: readonly DuckDbColumn[]): UnassignedField[] {
  return columns.map((c) => ({
    name: c.name,
    required: c.nullable === false,
    type: duckDbTypeToIceberg(c.type, c.name),
  }));
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A field's path as DuckDB names the column: `"st"."x"`, as `COPY … RETURN_STATS` prints it and SQL reads it. */
export function duckDbColumnPath(path: readonly string[]): string {
  return path.map(quoteIdentifier).join('.');
}

/**
 * DuckDB column paths as `COPY … RETURN_STATS` prints them (`"st"."x"`, `"li"."element"`,
 * `"mp"."key"`) → field id. Only leaves (primitive fields) are included: only they are Parquet columns.
 */
export function columnPathIndex(schema: Pick<Schema, 'fields'>): Map<string, number> {
  const index = new Map<string, number>();
  for (const { field, path } of allFields(schema)) {
    if (isPrimitive(field.type)) index.set(duckDbColumnPath(path), field.id);
  }
  return index;
}

/**
 * The DuckDB type of a column of Iceberg type `t`: what a column is CAST to before it is written,
 * and what reads give. Choices where DuckDB has no exact type:
 * - timestamptz_ns → TIMESTAMP_NS holding the UTC wall clock (DuckDB has no nanosecond
 *   TIMESTAMPTZ; its TIMESTAMP WITH TIME ZONE would cut to µs). Files get the Parquet UTC flag
 *   (parquet-utc-nanos.ts); castToColumnSql converts a TIMESTAMPTZ source to UTC first.
 * - unknown → "NULL" (always null; never written: withoutUnknownColumns). Struct members of type
 *   unknown are left out of the STRUCT.
 * - fixed → BLOB.
 * variant, geometry and geography are refused (IcebergFormatError naming `column` when given).
 */
export function icebergToDuckDbType(t: IcebergType | UnassignedType, column?: string): string {
  switch (t.kind) {
    case 'boolean':
      return 'BOOLEAN';
    case 'int':
      return 'INTEGER';
    case 'long':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE';
    case 'decimal':
      return `DECIMAL(${t.precision},${t.scale})`;
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
      return 'TIMESTAMP';
    case 'timestamptz':
      return 'TIMESTAMP WITH TIME ZONE';
    case 'timestamp_ns':
    case 'timestamptz_ns':
      return 'TIMESTAMP_NS';
    case 'string':
      return 'VARCHAR';
    case 'uuid':
      return 'UUID';
    case 'binary':
    case 'fixed':
      // DuckDB has no fixed-length binary; the Parquet column is BYTE_ARRAY.
      return 'BLOB';
    case 'unknown':
      return '"NULL"';
    case 'struct': {
      const members = (t.fields as readonly (NestedField | UnassignedField)[])
        .filter((f) => f.type.kind !== 'unknown')
        .map((f) => `${quoteIdentifier(f.name)} ${icebergToDuckDbType(f.type, column === undefined ? undefined : `${column}.${f.name}`)}`);
      // DuckDB has no empty STRUCT: a struct of unknown members only keeps one null member.
      return `STRUCT(${members.length === 0 ? '"__thund_unknown" "NULL"' : members.join(', ')})`;
    }
    case 'list':
      return `${icebergToDuckDbType(t.element, column === undefined ? undefined : `${column}.element`)}[]`;
    case 'map':
      return `MAP(${icebergToDuckDbType(t.key, column === undefined ? undefined : `${column}.key`)}, ${icebergToDuckDbType(t.value, column === undefined ? undefined : `${column}.value`)})`;
    case 'variant':
    case 'geometry':
    case 'geography':
      throw unsupportedValues(t, column);
  }
}

/** The refusal of a variant, geometry or geography column: Thund keeps such types in metadata only. */
export function unsupportedValues(t: IcebergType | UnassignedType, column: string | undefined): IcebergFormatError {
  const type = typeText(t);
  const subject = column === undefined ? `A column of type ${type}` : `Column "${column}" has type ${type}, which`;
  return new IcebergFormatError(`${subject} cannot be read or written by Thund yet (Iceberg v3 ${t.kind} values are not supported)`, {
    context: { ...(column === undefined ? {} : { column }), type },
  });
}

/** Refuses a schema holding a variant, geometry or geography column (at any depth), naming the first. */
export function checkValuesSupported(schema: { readonly fields: readonly NestedField[] }): void {
  for (const { field, path } of allFields(schema)) {
    if (UNSUPPORTED_VALUE_KINDS.has(field.type.kind)) throw unsupportedValues(field.type, path.join('.'));
  }
}

/**
 * The query without its top-level columns of type unknown: the spec leaves them out of data
 * files (they are always null). `query` yields the schema's top-level fields by name.
 */
export function withoutUnknownColumns(schema: { readonly fields: readonly NestedField[] }, query: string): string {
  const unknown = schema.fields.filter((f) => f.type.kind === 'unknown');
  if (unknown.length === 0) return query;
  if (unknown.length === schema.fields.length) {
    throw new IcebergFormatError('Cannot write a data file whose columns are all of type unknown', { context: { columns: unknown.length } });
  }
  return `SELECT * EXCLUDE (${unknown.map((f) => quoteIdentifier(f.name)).join(', ')}) FROM (${query})`;
}

/**
 * The nanosecond timestamps Thund writes through DuckDB: TIMESTAMP_NS holds int64 nanoseconds,
 * but DuckDB cannot print (so RETURN_STATS fails on) values before 1677-09-22, and reads the
 * largest int64 as infinity. The bounds as µs TIMESTAMPs (for µs and text sources) and as
 * TIMESTAMP_NS (for ns sources).
 */
const NANOS_LOW = '1677-09-22 00:00:00';
const NANOS_HIGH_MICROS = '2262-04-11 23:47:16.854775';
const NANOS_HIGH = '2262-04-11 23:47:16.854775806';

/**
 * SQL casting `source` to the DuckDB form of a column of type `type` named `column`, for writing.
 * `from` is the source's own type when known. Nanosecond timestamps: a TIMESTAMPTZ source of a
 * timestamptz_ns column is taken at UTC (not the session time zone), and a value outside
 * NANOS_LOW … NANOS_HIGH fails naming the column, where DuckDB's own cast error would not.
 */
export function castToColumnSql(source: string, type: IcebergType, column: string, from?: IcebergType | UnassignedType): string {
  const duckType = icebergToDuckDbType(type, column);
  if (type.kind !== 'timestamp_ns' && type.kind !== 'timestamptz_ns') return `CAST(${source} AS ${duckType})`;
  const nanos = from?.kind === 'timestamp_ns' || from?.kind === 'timestamptz_ns';
  const value = type.kind === 'timestamptz_ns' && from?.kind === 'timestamptz' ? `timezone('UTC', ${source})` : `(${source})`;
  const inRange = nanos
    ? `${value} BETWEEN TIMESTAMP_NS '${NANOS_LOW}' AND TIMESTAMP_NS '${NANOS_HIGH}'`
    : `CAST(${value} AS TIMESTAMP) BETWEEN TIMESTAMP '${NANOS_LOW}' AND TIMESTAMP '${NANOS_HIGH_MICROS}'`;
  const message = `column ${quoteIdentifier(column)} is of type ${type.kind}, whose values Thund writes from ${NANOS_LOW} to ${NANOS_HIGH}${type.kind === 'timestamptz_ns' ? ' UTC' : ''}, got `;
  return (
    `CASE WHEN ${value} IS NULL THEN NULL WHEN ${inRange} THEN CAST(${value} AS TIMESTAMP_NS)` +
    ` ELSE error(${quoteSqlText(message)} || CAST(CAST(${value} AS TIMESTAMP) AS VARCHAR)) END`
  );
}

function quoteSqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function idsForType(t: IcebergType): string | undefined {
  switch (t.kind) {
    case 'struct':
      return t.fields
        .filter((f) => f.type.kind !== 'unknown')
        .map((f) => fieldEntry(f.name, f.id, f.type))
        .join(', ');
    case 'list':
      return fieldEntry('element', t.elementId, t.element);
    case 'map':
      return `${fieldEntry('key', t.keyId, t.key)}, ${fieldEntry('value', t.valueId, t.value)}`;
    default:
      return undefined;
  }
}

function fieldEntry(name: string, id: number, type: IcebergType): string {
  const nested = idsForType(type);
  const key = quoteIdentifier(name);
  return nested === undefined ? `${key}: ${id}` : `${key}: {__duckdb_field_id: ${id}, ${nested}}`;
}

/**
 * DuckDB's COPY option stamping Iceberg ids on the Parquet schema, e.g.
 * `FIELD_IDS {"id": 1, "st": {__duckdb_field_id: 2, "x": 4}, "li": {__duckdb_field_id: 3, "element": 5}}`.
 * Columns of type unknown are skipped (they are never written).
 */
export function fieldIdsClause(schema: { readonly fields: readonly NestedField[] }): string {
  checkValuesSupported(schema);
  return `FIELD_IDS {${idsForType({ kind: 'struct', fields: schema.fields })}}`;
}
