/**
 * Confluent-wire Avro values for tests: record schemas written compactly, values encoded with
 * plain avsc (number longs, so the writer side stays independent of the decoder's bigint longs)
 * behind the 5-byte Confluent header, and a loopback registry serving the same schemas by id.
 */
import avsc from 'avsc';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import type { RawRecord } from '../../../connectors/kafka/raw-record.js';
import { FakeSchemaRegistry, type RegistryEntry } from './fake-schema-registry.js';
import { rawRecord } from './records.js';

export interface AvroField {
  readonly name: string;
  readonly type: unknown;
  readonly default?: unknown;
}

export interface AvroRecordSchema {
  readonly type: 'record';
  readonly name: string;
  readonly namespace?: string;
  readonly fields: readonly AvroField[];
}

class Nullable {
  constructor(readonly type: unknown) {}
}

/** A field that may be null: the union ['null', type] with default null. */
export const nullable = (type: unknown): Nullable => new Nullable(type);

/** A record schema from its full name ('shop.Event') and its fields in order, name to type. */
export function recordSchema(fullName: string, fields: Readonly<Record<string, unknown>>): AvroRecordSchema {
  const dot = fullName.lastIndexOf('.');
  const named = dot < 0 ? { name: fullName } : { name: fullName.slice(dot + 1), namespace: fullName.slice(0, dot) };
  return {
    type: 'record',
    ...named,
    fields: Object.entries(fields).map(([name, type]) => (type instanceof Nullable ? { name, type: ['null', type.type], default: null } : { name, type })),
  };
}

/** Avro's logical types on the base types the Avro specification gives them. */
export const AVRO_LOGICAL = {
  timestampMicros: { type: 'long', logicalType: 'timestamp-micros' },
  timestampMillis: { type: 'long', logicalType: 'timestamp-millis' },
  localTimestampMicros: { type: 'long', logicalType: 'local-timestamp-micros' },
  localTimestampMillis: { type: 'long', logicalType: 'local-timestamp-millis' },
  date: { type: 'int', logicalType: 'date' },
  timeMillis: { type: 'int', logicalType: 'time-millis' },
  timeMicros: { type: 'long', logicalType: 'time-micros' },
  uuid: { type: 'string', logicalType: 'uuid' },
} as const;

/** Avro's decimal on bytes. */
export const avroDecimal = (precision: number, scale: number) => ({ type: 'bytes', logicalType: 'decimal', precision, scale }) as const;

/** Big-endian two's complement, as Avro decimals are written: in the fewest bytes, or in `size` bytes for a fixed. */
export function decimalBytes(unscaled: bigint, size?: number): Buffer {
  let length = size ?? 1;
  while (size === undefined && (unscaled >= 1n << BigInt(8 * length - 1) || unscaled < -(1n << BigInt(8 * length - 1)))) length++;
  const modulus = 1n << BigInt(8 * length);
  return Buffer.from(((unscaled + modulus) % modulus).toString(16).padStart(length * 2, '0'), 'hex');
}

/** A Kafka Connect semantic type (Debezium's io.debezium.time.*): the base type named by connect.name. */
export const connectType = (type: string, connectName: string) => ({ type, 'connect.version': 1, 'connect.name': connectName }) as const;

/** Kafka Connect's Decimal as Debezium writes it: bytes with connect.parameters and Avro's decimal logicalType. */
export function connectDecimal(precision: number, scale: number) {
  return {
    type: 'bytes',
    scale,
    precision,
    'connect.version': 1,
    'connect.parameters': { scale: String(scale), 'connect.decimal.precision': String(precision) },
    'connect.name': 'org.apache.kafka.connect.data.Decimal',
    logicalType: 'decimal',
  } as const;
}

/** Debezium's Envelope around a row's Value record, in the Value's namespace: before, after, op, ts_ms. */
export function debeziumEnvelopeSchema(value: AvroRecordSchema): AvroRecordSchema {
  const envelope = value.namespace === undefined ? 'Envelope' : `${value.namespace}.Envelope`;
  return recordSchema(envelope, { before: nullable(value), after: nullable(value.name), op: 'string', ts_ms: nullable('long') });
}

export interface AvroWireOptions {
  /** Basic-auth credentials the registry requires. */
  readonly credentials?: { readonly username: string; readonly password: string };
  /** avsc's wrapUnions for the writers; false takes union values bare, as Debezium rows are given. */
  readonly wrapUnions?: boolean;
}

/** Schemas registered under ids: a loopback registry that serves them, and their writers. */
export class AvroWire {
  readonly registry: FakeSchemaRegistry;
  private readonly writers = new Map<number, avsc.Type>();

  constructor(
    private readonly entries: ReadonlyMap<number, RegistryEntry>,
    private readonly options: AvroWireOptions = {},
  ) {
    this.registry = new FakeSchemaRegistry(entries, options.credentials);
  }

  /** The Avro bytes of `value` written with schema `schemaId`, without the Confluent header. */
  payload(schemaId: number, value: unknown): Buffer {
    return this.writer(schemaId).toBuffer(value);
  }

  /** `value` in Confluent wire format: the header naming `schemaId`, then its Avro bytes. */
  encode(schemaId: number, value: unknown): Buffer {
    return encodeConfluentWire(schemaId, this.payload(schemaId, value));
  }

  /** A raw Kafka record whose value is encode(schemaId, value), at `offset`. */
  record(schemaId: number, value: unknown, offset: bigint): RawRecord {
    return rawRecord(this.encode(schemaId, value), { offset });
  }

  private writer(schemaId: number): avsc.Type {
    const known = this.writers.get(schemaId);
    if (known !== undefined) return known;
    const entry = this.entries.get(schemaId);
    if (entry === undefined) throw new Error(`schema id ${schemaId} is not registered in this test`);
    const writer = avsc.Type.forSchema(entry.schema as avsc.Schema, this.options.wrapUnions === undefined ? {} : { wrapUnions: this.options.wrapUnions });
    this.writers.set(schemaId, writer);
    return writer;
  }
}
