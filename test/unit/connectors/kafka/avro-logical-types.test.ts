/**
 * Avro logical types through the Confluent Avro decoder: real Avro bytes (plain avsc on the writer
 * side, which encodes the underlying int/long/bytes/fixed) behind a Confluent header, decoded to
 * exact text and typed from the writer schema; then staged in DuckDB the way serve stages a batch
 * with those types, so the Iceberg schema a created table would get and the values read back are
 * checked, not just the decoder's output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfluentAvroDecoder } from '../../../../connectors/kafka/avro-decoder.js';
import { compileAvroSchema, columnTypesOf } from '../../../../connectors/kafka/avro-logical-schema.js';
import { DebeziumRowDecoder } from '../../../../connectors/kafka/debezium-row-decoder.js';
import { JsonSafeDecoder } from '../../../../connectors/kafka/json-safe-values.js';
import { decodeRecords } from '../../../../connectors/kafka/decode-records.js';
import type { RecordDecoder } from '../../../../connectors/kafka/record-decoder.js';
import type { RawRecord } from '../../../../connectors/kafka/raw-record.js';
import { SchemaRegistryClient } from '../../../../connectors/kafka/schema-registry-client.js';
import { DuckDbSession } from '../../../../src/duckdb/session.js';
import { stageRecords, type JsonRecord } from '../../../../src/engine/graph/streaming/batch-staging.js';
import { describeFlow } from '../../../../src/engine/flow-output.js';
import { typeText } from '../../../../src/iceberg/schema.js';
import { AVRO_LOGICAL, avroDecimal, AvroWire, connectDecimal, connectType, debeziumEnvelopeSchema, decimalBytes, nullable, recordSchema } from '../../kafka/avro-wire.js';

const EVENT_SCHEMA = recordSchema('shop.Event', {
  id: 'long',
  at_micros: AVRO_LOGICAL.timestampMicros,
  at_millis: nullable(AVRO_LOGICAL.timestampMillis),
  local_micros: AVRO_LOGICAL.localTimestampMicros,
  local_millis: AVRO_LOGICAL.localTimestampMillis,
  day: AVRO_LOGICAL.date,
  clock_millis: AVRO_LOGICAL.timeMillis,
  clock_micros: AVRO_LOGICAL.timeMicros,
  price: avroDecimal(20, 2),
  ratio: { type: 'fixed', name: 'Ratio', size: 4, logicalType: 'decimal', precision: 9, scale: 4 },
  huge: avroDecimal(40, 0),
  ref: AVRO_LOGICAL.uuid,
  ref_fixed: { type: 'fixed', name: 'Uuid16', size: 16, logicalType: 'uuid' },
  // A logicalType on the wrong base type is ignored (Avro spec): a plain int.
  not_a_timestamp: { type: 'int', logicalType: 'timestamp-millis' },
  stops: { type: 'array', items: AVRO_LOGICAL.date },
  span: recordSchema('Span', { start: AVRO_LOGICAL.timestampMicros, label: 'string' }),
});

// 2024-01-02T03:04:05.123456Z: 19724 days after the epoch plus 3 h 4 min 5.123456 s.
const AT_MICROS = 19_724 * 86_400_000_000 + 11_045_123_456;
const HUGE = 10n ** 39n + 7n;

function event(id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    at_micros: AT_MICROS,
    at_millis: Math.floor(AT_MICROS / 1000),
    local_micros: AT_MICROS,
    local_millis: Math.floor(AT_MICROS / 1000),
    day: 19_724,
    clock_millis: 11_045_123,
    clock_micros: 11_045_123_456,
    price: decimalBytes(1_234_567_890_123_456_789n),
    ratio: decimalBytes(-5n, 4),
    huge: decimalBytes(HUGE),
    ref: '123e4567-e89b-12d3-a456-426614174000',
    ref_fixed: Buffer.from('f79c3e09677c4bbda4793f349cb785e7', 'hex'),
    not_a_timestamp: 7,
    stops: [0, -1],
    span: { start: -1, label: 'w' },
    ...overrides,
  };
}

/** A newer version: price gains precision, a timestamp field is added. */
const EVENT_V2_SCHEMA = {
  ...EVENT_SCHEMA,
  fields: [
    ...EVENT_SCHEMA.fields.map((f) => (f.name === 'price' ? { name: 'price', type: avroDecimal(24, 2) } : f)),
    { name: 'shipped', type: ['null', AVRO_LOGICAL.timestampMillis], default: null },
  ],
};
const eventWire = new AvroWire(new Map([[11, { schema: EVENT_SCHEMA }], [12, { schema: EVENT_V2_SCHEMA }]]));
let url: string;
let tempDir: string;

beforeAll(async () => {
  url = await eventWire.registry.start();
  tempDir = await mkdtemp(join(tmpdir(), 'thund-avro-logical-'));
});
afterAll(async () => {
  await eventWire.registry.stop();
  await rm(tempDir, { recursive: true, force: true });
});

/** Stages decoded records as serve does for a new table, with the decoder's column types, and returns the table's schema and rows. */
async function stage(decoder: RecordDecoder<Record<string, unknown>>, columns: ReadonlyMap<string, string>, raws: RawRecord[], select: string) {
  const records = decodeRecords(new JsonSafeDecoder(decoder), raws).records as JsonRecord[];
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    await stageRecords({ session, records, table: 'batch', tempDir, columns, readOtherFields: true });
    const { fields } = await describeFlow(session, 'avro-logical', 'SELECT * FROM batch');
    const types = Object.fromEntries(fields.map((f) => [f.name, typeText(f.type)]));
    return { types, rows: await session.queryJson(`SELECT ${select} FROM batch ORDER BY _kafka_offset`) };
  } finally {
    session.close();
  }
}

describe('Avro logical types', () => {
  it('decode to exact text: instants with +00:00, local timestamps, dates, times, decimals and UUIDs', async () => {
    expect(new Date(Math.floor(AT_MICROS / 1000)).toISOString()).toBe('2024-01-02T03:04:05.123Z');
    const decoder = new ConfluentAvroDecoder(new SchemaRegistryClient({ url }));
    const raws = [eventWire.record(11, event(1), 0n), eventWire.record(11, event(2, { at_millis: null, at_micros: -1 }), 1n)];
    await decoder.prepare(raws);
    const batch = decodeRecords(decoder, raws);
    expect(batch.deadLetters).toEqual([]);
    const [first, second] = batch.records.map((r) => ({ ...r.value }));
    expect(first).toEqual({
      id: 1n,
      at_micros: '2024-01-02T03:04:05.123456+00:00',
      at_millis: '2024-01-02T03:04:05.123000+00:00',
      local_micros: '2024-01-02 03:04:05.123456',
      local_millis: '2024-01-02 03:04:05.123000',
      day: '2024-01-02',
      clock_millis: '03:04:05.123000',
      clock_micros: '03:04:05.123456',
      price: '12345678901234567.89',
      ratio: '-0.0005',
      huge: HUGE.toString(),
      ref: '123e4567-e89b-12d3-a456-426614174000',
      ref_fixed: 'f79c3e09-677c-4bbd-a479-3f349cb785e7',
      not_a_timestamp: 7,
      stops: ['1970-01-01', '1969-12-31'],
      span: expect.objectContaining({ start: '1969-12-31T23:59:59.999999+00:00', label: 'w' }),
    });
    expect(second).toMatchObject({ at_micros: '1969-12-31T23:59:59.999999+00:00', at_millis: null });
  });

  it('types the columns from the writer schema: timestamptz, timestamp, date, time, exact decimals, uuid as string', () => {
    expect(Object.fromEntries(columnTypesOf(compileAvroSchema(EVENT_SCHEMA)))).toEqual({
      id: 'BIGINT',
      at_micros: 'TIMESTAMP WITH TIME ZONE',
      at_millis: 'TIMESTAMP WITH TIME ZONE',
      local_micros: 'TIMESTAMP',
      local_millis: 'TIMESTAMP',
      day: 'DATE',
      clock_millis: 'TIME',
      clock_micros: 'TIME',
      price: 'DECIMAL(20,2)',
      ratio: 'DECIMAL(9,4)',
      huge: 'VARCHAR',
      ref: 'VARCHAR',
      ref_fixed: 'VARCHAR',
      not_a_timestamp: 'INTEGER',
      stops: 'DATE[]',
      span: 'STRUCT("start" TIMESTAMP WITH TIME ZONE, "label" VARCHAR)',
    });
  });

  it('stage into the Iceberg types a created table gets, with values exact to the microsecond and the cent', async () => {
    const decoder = new ConfluentAvroDecoder(new SchemaRegistryClient({ url }));
    const raws = [eventWire.record(11, event(1), 0n), eventWire.record(11, event(2, { at_micros: -1, price: decimalBytes(-5n) }), 1n)];
    await decoder.prepare(raws);
    const { types, rows } = await stage(
      decoder,
      decoder.columnTypes(raws.map((r) => r.value)),
      raws,
      `id, epoch_us(at_micros)::VARCHAR AS at_us, epoch_us(local_micros)::VARCHAR AS local_us, epoch_ms(at_millis)::VARCHAR AS at_ms, day::VARCHAR AS day,
       clock_micros::VARCHAR AS clock, price::VARCHAR AS price, ratio::VARCHAR AS ratio, huge, ref, stops::VARCHAR AS stops, epoch_us(span.start)::VARCHAR AS span_start`,
    );
    expect(types).toMatchObject({
      id: 'long',
      at_micros: 'timestamptz',
      at_millis: 'timestamptz',
      local_micros: 'timestamp',
      local_millis: 'timestamp',
      day: 'date',
      clock_millis: 'time',
      clock_micros: 'time',
      price: 'decimal(20, 2)',
      ratio: 'decimal(9, 4)',
      huge: 'string',
      ref: 'string',
      ref_fixed: 'string',
      not_a_timestamp: 'int',
      stops: 'list<date>',
      span: 'struct<start: timestamptz, label: string>',
    });
    expect(rows).toEqual([
      {
        id: '1',
        at_us: String(AT_MICROS),
        local_us: String(AT_MICROS),
        at_ms: String(Math.floor(AT_MICROS / 1000)),
        day: '2024-01-02',
        clock: '03:04:05.123456',
        price: '12345678901234567.89',
        ratio: '-0.0005',
        huge: HUGE.toString(),
        ref: '123e4567-e89b-12d3-a456-426614174000',
        stops: '[1970-01-01, 1969-12-31]',
        span_start: '-1',
      },
      expect.objectContaining({ id: '2', at_us: '-1', price: '-0.05' }),
    ]);
  });

  it('gives the column types of the schema versions a batch holds, the newer version winning', async () => {
    const decoder = new ConfluentAvroDecoder(new SchemaRegistryClient({ url }));
    const v1 = eventWire.record(11, event(1), 0n);
    const v2 = eventWire.record(12, { ...event(2), shipped: 1 }, 1n);
    await decoder.prepare([v2, v1]);
    expect(decoder.columnTypes([v1.value]).get('price')).toBe('DECIMAL(20,2)');
    expect(decoder.columnTypes([v1.value]).has('shipped')).toBe(false);
    const both = decoder.columnTypes([v2.value, v1.value, null]);
    expect([both.get('price'), both.get('shipped'), both.get('day')]).toEqual(['DECIMAL(24,2)', 'TIMESTAMP WITH TIME ZONE', 'DATE']);
    expect(decodeRecords(decoder, [v2]).records[0]?.value['shipped']).toBe('1970-01-01T00:00:00.001000+00:00');
  });

  it('dead-letters a time outside one day and decodes the rest', async () => {
    const decoder = new ConfluentAvroDecoder(new SchemaRegistryClient({ url }));
    const raws = [eventWire.record(11, event(1, { clock_micros: 86_400_000_000 }), 5n), eventWire.record(11, event(2), 6n)];
    await decoder.prepare(raws);
    const batch = decodeRecords(decoder, raws);
    expect(batch.records.map((r) => r.offset)).toEqual([6n]);
    expect(batch.deadLetters.map((d) => [d.offset, d.code, d.reason])).toEqual([[5n, 'DECODE_FAILED', 'Avro time value 86400000000 is outside one day (schema id 11)']]);
  });
});

describe('Debezium semantic types inside Avro', () => {
  const value = recordSchema('shop.public.orders.Value', {
    id: 'int',
    created: connectType('long', 'io.debezium.time.MicroTimestamp'),
    updated: nullable(connectType('long', 'io.debezium.time.Timestamp')),
    seen: nullable(connectType('string', 'io.debezium.time.ZonedTimestamp')),
    due: connectType('int', 'io.debezium.time.Date'),
    slot: connectType('long', 'io.debezium.time.MicroTime'),
    total: connectDecimal(12, 2),
  });
  const envelopeWire = new AvroWire(new Map([[21, { schema: debeziumEnvelopeSchema(value) }]]), { wrapUnions: false });
  let dbzUrl: string;
  beforeAll(async () => {
    dbzUrl = await envelopeWire.registry.start();
  });
  afterAll(async () => {
    await envelopeWire.registry.stop();
  });

  it('land MicroTimestamp/Timestamp as timestamp, ZonedTimestamp as timestamptz, Date as date, MicroTime as time, Connect Decimal exact', async () => {
    const row = { id: 9, created: AT_MICROS, updated: Math.floor(AT_MICROS / 1000), seen: '2024-01-02T05:04:05.123456+02:00', due: 19_724, slot: 11_045_123_456, total: decimalBytes(-123_456_789n) };
    const raws = [
      envelopeWire.record(21, { before: null, after: row, op: 'c', ts_ms: 1 }, 0n),
      envelopeWire.record(21, { before: { ...row, total: decimalBytes(1n) }, after: null, op: 'd', ts_ms: 2 }, 1n),
    ];
    const decoder = new DebeziumRowDecoder(new ConfluentAvroDecoder(new SchemaRegistryClient({ url: dbzUrl })), 'change_op');
    await decoder.prepare(raws);
    const columns = decoder.columnTypes(raws.map((r) => r.value));
    expect(Object.fromEntries(columns)).toEqual({
      id: 'INTEGER',
      created: 'TIMESTAMP',
      updated: 'TIMESTAMP',
      seen: 'TIMESTAMP WITH TIME ZONE',
      due: 'DATE',
      slot: 'TIME',
      total: 'DECIMAL(12,2)',
      change_op: 'VARCHAR',
    });
    const { types, rows } = await stage(
      decoder,
      columns,
      raws,
      `id, epoch_us(created)::VARCHAR AS created, epoch_ms(updated)::VARCHAR AS updated, epoch_us(seen)::VARCHAR AS seen, due::VARCHAR AS due, slot::VARCHAR AS slot, total::VARCHAR AS total, change_op`,
    );
    expect(types).toMatchObject({ id: 'int', created: 'timestamp', updated: 'timestamp', seen: 'timestamptz', due: 'date', slot: 'time', total: 'decimal(12, 2)', change_op: 'string' });
    expect(rows).toEqual([
      {
        id: 9,
        created: String(AT_MICROS),
        updated: String(Math.floor(AT_MICROS / 1000)),
        seen: String(AT_MICROS),
        due: '2024-01-02',
        slot: '03:04:05.123456',
        total: '-1234567.89',
        change_op: 'c',
      },
      expect.objectContaining({ total: '0.01', change_op: 'd' }),
    ]);
  });
});
