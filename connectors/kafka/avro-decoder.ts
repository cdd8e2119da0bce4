/**
 * Avro values in the Confluent wire format. prepare() fetches each writer schema once from the
 * registry; decode() is then synchronous. Longs decode as bigint (int64 exact), unions of null and
 * one type decode unwrapped, and logical types (timestamps, dates, times, decimals, fixed UUIDs)
 * become exact text (avro-logical-schema.ts) whose column types columnTypes() gives. A record
 * whose schema id the registry does not know, whose schema is not Avro or uses references, or
 * whose bytes do not match its schema is a DecodeError. The Kafka consumer's worker runs this
 * decoder too and writes each value that decodes as its staged line (avro-line-packer.ts): such a
 * record passes as its line and is decoded here only if something reads its value.
 */
import avsc from 'avsc';
import { InvalidInputError } from '../../src/errors.js';
import { avroType } from '../../src/iceberg/avro/container.js';
import { mergeColumnTypes, type ValueBytes, type ValueColumnTypes, type WriterSchemaNodes } from './avro-logical-columns.js';
import { columnTypesOf, compileAvroSchema, type AvroNode } from './avro-logical-schema.js';
import { confluentSchemaId, parseConfluentWire } from './confluent-wire.js';
import { DecodeError } from './decode-error.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';
import { SchemaNotFoundError, type SchemaRegistryClient } from './schema-registry-client.js';

export type AvroRecordValue = Record<string, unknown>;

type WriterSchema = { readonly type: avsc.Type; readonly node: AvroNode; readonly columnTypes: ReadonlyMap<string, string> } | { readonly problem: string };

export class ConfluentAvroDecoder implements RecordDecoder<AvroRecordValue>, ValueColumnTypes, WriterSchemaNodes {
  readonly format = 'avro';
  private readonly schemas = new Map<number, WriterSchema>();

  constructor(private readonly registry: SchemaRegistryClient) {}

  async prepare(records: readonly RawRecord[]): Promise<void> {
    await this.prepareIds(schemaIds(records.map((record) => record.value)));
  }

  /** Fetches the writer schemas of these registry ids that are not prepared yet. */
  async prepareIds(ids: Iterable<number>): Promise<void> {
    const wanted = [...ids].filter((id) => !this.schemas.has(id));
    await Promise.all(wanted.map(async (id) => this.schemas.set(id, await this.writerSchema(id))));
  }

  /** The prepared writer schema of a registry id as avsc reads it and as it lands; undefined when unprepared or unusable. */
  preparedSchema(id: number): { readonly type: avsc.Type; readonly node: AvroNode } | undefined {
    const schema = this.schemas.get(id);
    return schema === undefined || 'problem' in schema ? undefined : schema;
  }

  passesAsLine(record: RawRecord): boolean {
    return record.stagedLine !== undefined;
  }

  decode(record: RawRecord): Decoded<AvroRecordValue> {
    if (record.value === null) return { skip: 'tombstone' };
    const wire = parseConfluentWire(record.value);
    if ('problem' in wire) throw new DecodeError(record, wire.problem);
    const schema = this.schemas.get(wire.schemaId);
    if (schema === undefined) throw new Error(`Avro schema id ${wire.schemaId} was not prepared before decode`);
    if ('problem' in schema) throw new DecodeError(record, schema.problem);
    let value: unknown;
    try {
      value = schema.type.fromBuffer(wire.payload);
    } catch (cause) {
      throw new DecodeError(record, `bytes do not match Avro schema id ${wire.schemaId}: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
    }
    try {
      return { value: (schema.node.convert?.(value) ?? value) as AvroRecordValue };
    } catch (cause) {
      if (cause instanceof InvalidInputError) throw new DecodeError(record, `${cause.message} (schema id ${wire.schemaId})`, cause);
      throw cause;
    }
  }

  columnTypes(values: ValueBytes): ReadonlyMap<string, string> {
    return mergeColumnTypes(this.usableSchemas(values).map((s) => s.columnTypes));
  }

  writerNodes(values: ValueBytes): readonly AvroNode[] {
    return this.usableSchemas(values).map((s) => s.node);
  }

  /** The prepared schemas these values were written with, lowest (oldest) registry id first. */
  private usableSchemas(values: ValueBytes): Array<Extract<WriterSchema, { node: AvroNode }>> {
    return [...schemaIds(values)]
      .sort((a, b) => a - b)
      .map((id) => this.schemas.get(id))
      .filter((s): s is Extract<WriterSchema, { node: AvroNode }> => s !== undefined && 'node' in s);
  }

  private async writerSchema(id: number): Promise<WriterSchema> {
    let registered;
    try {
      registered = await this.registry.schemaById(id);
    } catch (error) {
      if (error instanceof SchemaNotFoundError) return { problem: `schema id ${id} is not in the schema registry` };
      throw error;
    }
    if (registered.schemaType.toUpperCase() !== 'AVRO') return { problem: `schema id ${id} is ${registered.schemaType}, not AVRO` };
    if (registered.references.length > 0) return { problem: `schema id ${id} uses schema references, which are not supported yet` };
    try {
      const json: unknown = JSON.parse(registered.schema);
      const type = avroType(json as never);
      if (type.typeName !== 'record') return { problem: `schema id ${id} is an Avro ${type.typeName}, not a record` };
      const node = compileAvroSchema(json);
      return { type, node, columnTypes: columnTypesOf(node) };
    } catch (cause) {
      return { problem: `schema id ${id} is not a valid Avro schema: ${cause instanceof Error ? cause.message : String(cause)}` };
    }
  }
}

/** The registry ids of these values' Confluent headers (a run of one id, the usual batch, costs a comparison a value). */
function schemaIds(values: ValueBytes): Set<number> {
  const ids = new Set<number>();
  let last: number | undefined;
  for (const value of values) {
    const id = confluentSchemaId(value);
    if (id === undefined || id === last) continue;
    ids.add(id);
    last = id;
  }
  return ids;
}
