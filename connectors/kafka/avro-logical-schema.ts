/**
 * What an Avro writer schema says about the columns its records land in: for every node, how to
 * turn the decoded value of a logical type into exact text (avro-logical-values.ts) and the DuckDB
 * type the landed column gets. Logical types (Avro 1.11 spec) map as timestamp-millis/-micros →
 * TIMESTAMP WITH TIME ZONE (they are UTC instants), local-timestamp-* → TIMESTAMP, date → DATE,
 * time-millis/-micros → TIME, decimal(p,s) → DECIMAL(p,s) (p > 38, which Iceberg cannot hold, stays
 * exact text), uuid → VARCHAR (Avro's uuid annotates a string, Spark shows an Iceberg uuid as a
 * string anyway, and uuid columns have had reader bugs between Spark and pyiceberg, e.g.
 * apache/iceberg#14027). Kafka Connect and Debezium semantic types named by `connect.name`
 * map the same way when no logicalType is given. A logicalType on the wrong base type is ignored,
 * as the spec asks. Unions of several non-null types have no column type (the reader detects one)
 * and their logical values are converted only when the decoder wrapped them ({branch: value}).
 */
import { InvalidInputError } from '../../src/errors.js';
import { quoteIdentifier } from '../../src/iceberg/duckdb-types.js';
import { dateText, decimalText, timestampText, timeText, unscaledOf, uuidText } from './avro-logical-values.js';

export interface AvroNode {
  /** The DuckDB type of the column this node's values land in; undefined when the schema fixes none. */
  readonly columnType: string | undefined;
  /** Turns a decoded value into its landed form; undefined when values land as decoded. */
  readonly convert: ((value: unknown) => unknown) | undefined;
  /** A record's fields (also through a union with null). */
  readonly fields?: ReadonlyMap<string, AvroNode>;
}

/** Iceberg's (and DuckDB's) largest decimal precision. */
export const MAX_DECIMAL_PRECISION = 38;
const MICROS_PER_DAY = 86_400_000_000n;

const PRIMITIVE_TYPES: Readonly<Record<string, string | undefined>> = {
  null: undefined,
  boolean: 'BOOLEAN',
  int: 'INTEGER',
  long: 'BIGINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  // Bytes land as base64 text (json-safe-values.ts).
  bytes: 'VARCHAR',
  string: 'VARCHAR',
};

/** The nodes of a writer schema; named types are resolved by full name, recursive ones lazily. */
export function compileAvroSchema(schema: unknown): AvroNode {
  return new SchemaCompiler().node(schema, '');
}

/** DuckDB types of a record node's fields that the schema fixes. */
export function columnTypesOf(node: AvroNode): Map<string, string> {
  const types = new Map<string, string>();
  for (const [name, field] of node.fields ?? []) if (field.columnType !== undefined) types.set(name, field.columnType);
  return types;
}

type SchemaObject = Readonly<Record<string, unknown>>;

const PLAIN: AvroNode = { columnType: undefined, convert: undefined };

class SchemaCompiler {
  private readonly named = new Map<string, AvroNode>();
  private readonly compiling = new Set<string>();

  node(schema: unknown, namespace: string): AvroNode {
    if (typeof schema === 'string') return this.reference(schema, namespace);
    if (Array.isArray(schema)) return this.union(schema, namespace);
    if (typeof schema !== 'object' || schema === null) return PLAIN;
    const object = schema as SchemaObject;
    const type = object['type'];
    if (type === 'record' || type === 'error') return this.record(object, namespace);
    if (type === 'enum') return this.define(object, namespace, () => ({ columnType: 'VARCHAR', convert: undefined }));
    if (type === 'fixed') return this.define(object, namespace, () => logicalNode(object, 'fixed') ?? { columnType: 'VARCHAR', convert: undefined });
    if (type === 'array') return this.array(this.node(object['items'], namespace));
    if (type === 'map') return this.map(this.node(object['values'], namespace));
    if (typeof type === 'string' && type in PRIMITIVE_TYPES) return logicalNode(object, type) ?? this.reference(type, namespace);
    return this.node(type, namespace);
  }

  private reference(name: string, namespace: string): AvroNode {
    if (name in PRIMITIVE_TYPES) return { columnType: PRIMITIVE_TYPES[name], convert: undefined };
    const full = name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
    const key = this.named.has(full) || this.compiling.has(full) ? full : name;
    const known = this.named.get(key);
    if (known !== undefined) return known;
    if (!this.compiling.has(key)) return PLAIN;
    // A recursive reference: no column type can describe it; values convert once the type is known.
    return { columnType: undefined, convert: (value) => this.named.get(key)?.convert?.(value) ?? value };
  }

  private define(object: SchemaObject, namespace: string, build: (inner: string) => AvroNode): AvroNode {
    const name = typeof object['name'] === 'string' ? object['name'] : '';
    const own = typeof object['namespace'] === 'string' ? object['namespace'] : namespace;
    const full = name.includes('.') || own === '' ? name : `${own}.${name}`;
    const inner = full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : '';
    this.compiling.add(full);
    try {
      const node = build(inner);
      this.named.set(full, node);
      return node;
    } finally {
      this.compiling.delete(full);
    }
  }

  private record(object: SchemaObject, namespace: string): AvroNode {
    return this.define(object, namespace, (inner) => {
      const fields = new Map<string, AvroNode>();
      for (const field of Array.isArray(object['fields']) ? (object['fields'] as unknown[]) : []) {
        const { name, type } = (field ?? {}) as { name?: unknown; type?: unknown };
        if (typeof name === 'string') fields.set(name, this.node(type, inner));
      }
      const typed = [...fields].every(([, f]) => f.columnType !== undefined);
      const columnType = typed && fields.size > 0 ? `STRUCT(${[...fields].map(([name, f]) => `${quoteIdentifier(name)} ${f.columnType}`).join(', ')})` : undefined;
      const converting = [...fields].filter(([, f]) => f.convert !== undefined) as Array<[string, AvroNode & { convert: (value: unknown) => unknown }]>;
      const convert =
        converting.length === 0
          ? undefined
          : (value: unknown): unknown => {
              if (typeof value !== 'object' || value === null) return value;
              const record = value as Record<string, unknown>;
              for (const [name, f] of converting) if (Object.hasOwn(record, name)) record[name] = f.convert(record[name]);
              return record;
            };
      return { columnType, convert, fields };
    });
  }

  private array(items: AvroNode): AvroNode {
    const convert = items.convert;
    return {
      columnType: items.columnType === undefined ? undefined : `${items.columnType}[]`,
      convert: convert === undefined ? undefined : (value) => (Array.isArray(value) ? value.map(convert) : value),
    };
  }

  private map(values: AvroNode): AvroNode {
    const convert = values.convert;
    return {
      columnType: values.columnType === undefined ? undefined : `MAP(VARCHAR, ${values.columnType})`,
      convert:
        convert === undefined
          ? undefined
          : (value) => {
              if (typeof value !== 'object' || value === null) return value;
              const map = value as Record<string, unknown>;
              for (const key of Object.keys(map)) map[key] = convert(map[key]);
              return map;
            },
    };
  }

  private union(branches: readonly unknown[], namespace: string): AvroNode {
    const nodes = branches.map((b) => ({ name: branchName(b, namespace), node: this.node(b, namespace) }));
    const present = nodes.filter((b) => b.name !== 'null');
    const only = present.length === 1 ? present[0] : undefined;
    if (only !== undefined) {
      const convert = only.node.convert;
      return {
        columnType: only.node.columnType,
        convert: convert === undefined ? undefined : (value) => (value === null || value === undefined ? value : convert(value)),
        ...(only.node.fields === undefined ? {} : { fields: only.node.fields }),
      };
    }
    const byName = new Map(present.filter((b) => b.node.convert !== undefined).map((b) => [b.name, b.node.convert as (value: unknown) => unknown]));
    if (byName.size === 0) return PLAIN;
    // Such a union decodes wrapped as {branch: value} when avsc cannot tell the branches apart by value.
    return {
      columnType: undefined,
      convert: (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
        const keys = Object.keys(value);
        const convert = keys.length === 1 ? byName.get(keys[0] as string) : undefined;
        if (convert === undefined) return value;
        const wrapped = value as Record<string, unknown>;
        wrapped[keys[0] as string] = convert(wrapped[keys[0] as string]);
        return wrapped;
      },
    };
  }
}

/** The name avsc wraps a union branch's value under: the primitive or the named type's full name. */
function branchName(schema: unknown, namespace: string): string {
  if (typeof schema === 'string') return schema in PRIMITIVE_TYPES || schema.includes('.') || namespace === '' ? schema : `${namespace}.${schema}`;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return '';
  const object = schema as SchemaObject;
  const name = object['name'];
  if (typeof name !== 'string') return typeof object['type'] === 'string' ? object['type'] : '';
  const own = typeof object['namespace'] === 'string' ? object['namespace'] : namespace;
  return name.includes('.') || own === '' ? name : `${own}.${name}`;
}

/** The node of a logical type on `base`, or undefined when the schema has none that fits it. */
function logicalNode(object: SchemaObject, base: string): AvroNode | undefined {
  const logical = object['logicalType'];
  const fromLogical = typeof logical === 'string' ? avroLogical(logical, object, base) : undefined;
  if (fromLogical !== undefined) return fromLogical;
  const connect = object['connect.name'];
  return typeof connect === 'string' ? connectLogical(connect, object, base) : undefined;
}

function avroLogical(logical: string, object: SchemaObject, base: string): AvroNode | undefined {
  switch (logical) {
    case 'timestamp-millis':
      return base === 'long' ? timestamp(1000n, true) : undefined;
    case 'timestamp-micros':
      return base === 'long' ? timestamp(1n, true) : undefined;
    case 'local-timestamp-millis':
      return base === 'long' ? timestamp(1000n, false) : undefined;
    case 'local-timestamp-micros':
      return base === 'long' ? timestamp(1n, false) : undefined;
    case 'date':
      return base === 'int' ? DATE : undefined;
    case 'time-millis':
      return base === 'int' ? time(1000n) : undefined;
    case 'time-micros':
      return base === 'long' ? time(1n) : undefined;
    case 'decimal':
      return base === 'bytes' || base === 'fixed' ? decimal(object['precision'], object['scale']) : undefined;
    case 'uuid':
      if (base === 'string') return { columnType: 'VARCHAR', convert: undefined };
      return base === 'fixed' && object['size'] === 16 ? UUID_FIXED : undefined;
    default:
      return undefined;
  }
}

/** Kafka Connect and Debezium semantic types (connect.name) without an Avro logicalType. */
function connectLogical(name: string, object: SchemaObject, base: string): AvroNode | undefined {
  switch (name) {
    case 'org.apache.kafka.connect.data.Timestamp':
      return base === 'long' ? timestamp(1000n, true) : undefined;
    case 'io.debezium.time.Timestamp':
      return base === 'long' ? timestamp(1000n, false) : undefined;
    case 'io.debezium.time.MicroTimestamp':
      return base === 'long' ? timestamp(1n, false) : undefined;
    case 'io.debezium.time.ZonedTimestamp':
      // ISO-8601 text with its offset, which DuckDB reads as an instant.
      return base === 'string' ? { columnType: 'TIMESTAMP WITH TIME ZONE', convert: undefined } : undefined;
    case 'org.apache.kafka.connect.data.Date':
    case 'io.debezium.time.Date':
      return base === 'int' ? DATE : undefined;
    case 'org.apache.kafka.connect.data.Time':
    case 'io.debezium.time.Time':
      return base === 'int' ? time(1000n) : undefined;
    case 'io.debezium.time.MicroTime':
      return base === 'long' ? time(1n) : undefined;
    case 'org.apache.kafka.connect.data.Decimal': {
      const parameters = (object['connect.parameters'] ?? {}) as Record<string, unknown>;
      return base === 'bytes' ? decimal(numberOf(parameters['connect.decimal.precision']) ?? MAX_DECIMAL_PRECISION, numberOf(parameters['scale'])) : undefined;
    }
    default:
      return undefined;
  }
}

function timestamp(microsPerUnit: bigint, utcAdjusted: boolean): AvroNode {
  return {
    columnType: utcAdjusted ? 'TIMESTAMP WITH TIME ZONE' : 'TIMESTAMP',
    convert: (value) => timestampText(integerOf(value, 'timestamp') * microsPerUnit, utcAdjusted),
  };
}

function time(microsPerUnit: bigint): AvroNode {
  return {
    columnType: 'TIME',
    convert: (value) => {
      const micros = integerOf(value, 'time') * microsPerUnit;
      if (micros < 0n || micros >= MICROS_PER_DAY) throw new InvalidInputError(`Avro time value ${String(value)} is outside one day`, { context: { value: String(value) } });
      return timeText(micros);
    },
  };
}

const DATE: AvroNode = { columnType: 'DATE', convert: (value) => dateText(Number(integerOf(value, 'date'))) };

const UUID_FIXED: AvroNode = { columnType: 'VARCHAR', convert: (value) => (value instanceof Uint8Array ? uuidText(value) : value) };

function decimal(precisionAttribute: unknown, scaleAttribute: unknown): AvroNode | undefined {
  const precision = numberOf(precisionAttribute);
  const scale = scaleAttribute === undefined ? 0 : numberOf(scaleAttribute);
  if (precision === undefined || scale === undefined || precision < 1 || scale < 0 || scale > precision) return undefined;
  return {
    // Beyond Iceberg's precision the exact text lands as a string rather than a rounded number.
    columnType: precision <= MAX_DECIMAL_PRECISION ? `DECIMAL(${precision},${scale})` : 'VARCHAR',
    convert: (value) => (value instanceof Uint8Array ? decimalText(unscaledOf(value), scale) : value),
  };
}

function numberOf(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}

function integerOf(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw new InvalidInputError(`Avro ${what} value ${String(value)} is not an integer`, { context: { value: String(value) } });
}
