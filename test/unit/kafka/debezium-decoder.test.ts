import avsc from 'avsc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfluentAvroDecoder } from '../../../connectors/kafka/avro-decoder.js';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import { DebeziumDecoder, type ChangeEvent } from '../../../connectors/kafka/debezium-decoder.js';
import { JsonDecoder } from '../../../connectors/kafka/json-decoder.js';
import { decodeRecords } from '../../../connectors/kafka/decode-records.js';
import { SchemaRegistryClient } from '../../../connectors/kafka/schema-registry-client.js';
import { FakeSchemaRegistry } from './fake-schema-registry.js';
import { rawRecord } from './records.js';

const source = { connector: 'postgresql', db: 'shop', table: 'users', lsn: 24023128, ts_ms: 1_764_000_000_100 };
const ann = { id: 1, name: 'ann' };
const ann2 = { id: 1, name: 'ann b.' };

function envelope(op: string, before: unknown, after: unknown): string {
  return JSON.stringify({ before, after, source, op, ts_ms: 1_764_000_000_200 });
}

function decodeJson(values: Array<string | null>): ReturnType<typeof decodeRecords<ChangeEvent>> {
  const raws = values.map((v, i) => rawRecord(v, { offset: BigInt(100 + i) }));
  return decodeRecords(new DebeziumDecoder(new JsonDecoder()), raws);
}

describe('Debezium decoder (JSON envelopes)', () => {
  it('maps create, snapshot read, update and delete to row kinds with their row images', () => {
    const batch = decodeJson([envelope('c', null, ann), envelope('r', null, ann), envelope('u', ann, ann2), envelope('d', ann2, null)]);
    expect(batch.deadLetters).toEqual([]);
    expect(batch.records.map((r) => [r.offset, r.value.op, r.value.rows])).toEqual([
      [100n, 'c', [{ rowKind: '+I', row: ann }]],
      [101n, 'r', [{ rowKind: '+I', row: ann }]],
      [102n, 'u', [{ rowKind: '-U', row: ann }, { rowKind: '+U', row: ann2 }]],
      [103n, 'd', [{ rowKind: '-D', row: ann2 }]],
    ]);
    expect(batch.records[0]?.value.tsMs).toBe(1_764_000_000_200);
    expect(batch.records[0]?.value.source).toEqual(source);
  });

  it('emits only +U for an update without a before image (e.g. Postgres REPLICA IDENTITY DEFAULT)', () => {
    expect(decodeJson([envelope('u', null, ann2)]).records[0]?.value.rows).toEqual([{ rowKind: '+U', row: ann2 }]);
  });

  it('skips and counts delete tombstones (null values) and passes truncates on without rows', () => {
    const batch = decodeJson([envelope('d', ann, null), null, envelope('t', null, null)]);
    expect(batch.records.map((r) => [r.offset, r.value.op, r.value.rows.length])).toEqual([
      [100n, 'd', 1],
      [102n, 't', 0],
    ]);
    expect(batch.skipped).toEqual({ tombstone: 1 });
    expect(batch.deadLetters).toEqual([]);
  });

  it('unwraps the JSON converter form {schema, payload}', () => {
    const wrapped = JSON.stringify({ schema: { type: 'struct', name: 'shop.users.Envelope' }, payload: JSON.parse(envelope('c', null, ann)) });
    expect(decodeJson([wrapped]).records[0]?.value.rows).toEqual([{ rowKind: '+I', row: ann }]);
  });

  it('makes malformed envelopes dead-letter candidates with reasons, decoding the rest', () => {
    const batch = decodeJson([
      envelope('x', null, ann),
      envelope('c', null, null),
      envelope('d', null, null),
      JSON.stringify({ id: 1 }),
      '{broken',
      envelope('c', null, ann),
    ]);
    expect(batch.records.map((r) => r.offset)).toEqual([105n]);
    expect(batch.deadLetters.map((d) => [d.offset, d.reason])).toEqual([
      [100n, expect.stringMatching(/^not a Debezium envelope: .*\(op\)$/)],
      [101n, 'Debezium op "c" without a "after" row image'],
      [102n, 'Debezium op "d" without a "before" row image'],
      [103n, expect.stringMatching(/^not a Debezium envelope: .*\(op\)$/)],
      [104n, expect.stringMatching(/^invalid JSON/)],
    ]);
  });
});

describe('Debezium decoder (Avro envelopes from the schema registry)', () => {
  const value = { type: 'record', name: 'Value', namespace: 'shop.public.users', fields: [{ name: 'id', type: 'long' }, { name: 'name', type: ['null', 'string'] }] };
  const envelopeSchema = {
    type: 'record',
    name: 'Envelope',
    namespace: 'shop.public.users',
    fields: [
      { name: 'before', type: ['null', value], default: null },
      { name: 'after', type: ['null', 'Value'], default: null },
      { name: 'source', type: { type: 'record', name: 'Source', namespace: 'io.debezium', fields: [{ name: 'db', type: 'string' }, { name: 'lsn', type: ['null', 'long'] }] } },
      { name: 'op', type: 'string' },
      { name: 'ts_ms', type: ['null', 'long'], default: null },
    ],
  };
  const writer = avsc.Type.forSchema(envelopeSchema as avsc.Schema, { wrapUnions: false });
  const registry = new FakeSchemaRegistry(new Map([[7, { schema: envelopeSchema }]]));
  let url: string;
  beforeAll(async () => {
    url = await registry.start();
  });
  afterAll(async () => {
    await registry.stop();
  });

  it('decodes an update into -U/+U rows with bigint longs and unwrapped optional fields', async () => {
    const bytes = writer.toBuffer({ before: { id: 5, name: 'old' }, after: { id: 5, name: null }, source: { db: 'shop', lsn: 77 }, op: 'u', ts_ms: 1_764_000_000_300 });
    const decoder = new DebeziumDecoder(new ConfluentAvroDecoder(new SchemaRegistryClient({ url })));
    const raws = [rawRecord(encodeConfluentWire(7, bytes)), rawRecord(null, { offset: 42n })];
    await decoder.prepare(raws);
    const batch = decodeRecords(decoder, raws);
    expect(batch.deadLetters).toEqual([]);
    const event = batch.records[0]?.value;
    expect(event?.op).toBe('u');
    expect(event?.tsMs).toBe(1_764_000_000_300);
    expect(event?.rows.map((r) => [r.rowKind, { ...r.row }])).toEqual([
      ['-U', { id: 5n, name: 'old' }],
      ['+U', { id: 5n, name: null }],
    ]);
    expect(batch.skipped).toEqual({ tombstone: 1 });
  });
});
