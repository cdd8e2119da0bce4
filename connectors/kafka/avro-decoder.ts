/**
 * Avro values in the Confluent wire format. prepare() fetches each writer schema once from the
 * registry; decode() is then synchronous. Longs decode as bigint (int64 exact), unions of null and
 * one type decode unwrapped. A record whose schema id the registry does not know, whose schema is
 * not Avro or uses references, or whose bytes do not match its schema is a DecodeError.
 */
import avsc from 'avsc';
import { avroType } from '../../src/iceberg/avro/container.js';
import { parseConfluentWire } from './confluent-wire.js';
import { DecodeError } from './decode-error.js';
import type { RawRecord } from './raw-record.js';
import type { Decoded, RecordDecoder } from './record-decoder.js';
import { SchemaNotFoundError, type SchemaRegistryClient } from './schema-registry-client.js';

export type AvroRecordValue = Record<string, unknown>;

type WriterSchema = { readonly type: avsc.Type } | { readonly problem: string };

export class ConfluentAvroDecoder implements RecordDecoder<AvroRecordValue> {
  readonly format = 'avro';
  private readonly schemas = new Map<number, WriterSchema>();

  constructor(private readonly registry: SchemaRegistryClient) {}

  async prepare(records: readonly RawRecord[]): Promise<void> {
    const wanted = new Set<number>();
    for (const record of records) {
      if (record.value === null) continue;
      const wire = parseConfluentWire(record.value);
      if ('schemaId' in wire && !this.schemas.has(wire.schemaId)) wanted.add(wire.schemaId);
    }
    await Promise.all([...wanted].map(async (id) => this.schemas.set(id, await this.writerSchema(id))));
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
    return { value: value as AvroRecordValue };
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
      const type = avroType(JSON.parse(registered.schema) as never);
      if (type.typeName !== 'record') return { problem: `schema id ${id} is an Avro ${type.typeName}, not a record` };
      return { type };
    } catch (cause) {
      return { problem: `schema id ${id} is not a valid Avro schema: ${cause instanceof Error ? cause.message : String(cause)}` };
    }
  }
}
