/**
 * `thund serve` (in process) creating its table from Confluent-Avro records with logical types,
 * produced to the test stack's Kafka: the table's Iceberg schema has timestamptz for
 * timestamp-micros/-millis, timestamp for local-timestamp-micros, date, time, an exact
 * decimal(20,2) and uuid as string, and the values read back are exact (a decimal a double would
 * round, timestamps to the microsecond). A Debezium-Avro topic lands Debezium's own time types the
 * same way, and pyiceberg reads the same types and values. The registry is a loopback server
 * (the stack has none).
 */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import type { ServeFlag } from '../../src/app/serve/serve-config.js';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { typeText } from '../../src/iceberg/schema.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { embeddedPipelineFile, EoKafka, tableName, unique } from './kafka-eo-support/eo-stack.js';
import { readTable } from './kafka-eo-support/landed-rows.js';
import { serveUntilLanded, testServeSettings } from './kafka-eo-support/serve-in-process.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { AVRO_LOGICAL, avroDecimal, AvroWire, connectDecimal, connectType, debeziumEnvelopeSchema, decimalBytes, nullable, recordSchema } from '../unit/kafka/avro-wire.js';

const kafka = new EoKafka();

afterAll(async () => {
  await kafka.close();
});

const EVENT = recordSchema('shop.Event', {
  id: 'long',
  at: AVRO_LOGICAL.timestampMicros,
  at_ms: nullable(AVRO_LOGICAL.timestampMillis),
  local_at: AVRO_LOGICAL.localTimestampMicros,
  day: AVRO_LOGICAL.date,
  clock: AVRO_LOGICAL.timeMicros,
  price: avroDecimal(20, 2),
  ref: AVRO_LOGICAL.uuid,
});

/** 2024-01-02T03:04:05.123456Z in microseconds since the epoch. */
const AT = 1_704_164_645_123_456;
/** 12345678901234567.89 unscaled: 20 digits, more than a double holds. */
const PRICE = 1_234_567_890_123_456_789n;

/** Runs serve in this process, committing every 500 ms and reading the registry at `registryUrl`, until the table's positions cover `records`. */
async function serveFromRegistry(pipeline: string, table: TableIdentifier, records: number, registryUrl: string, flags: Readonly<Partial<Record<ServeFlag, string>>>): Promise<void> {
  const settings = testServeSettings(kafka.brokers, table, { 'commit-interval-ms': '500', 'schema-registry-url-env': 'IT_SR_URL', ...flags });
  await serveUntilLanded(pipeline, table, records, settings, { IT_SR_URL: registryUrl });
}

/** The table's columns as Iceberg type text, read through the catalog. */
async function icebergTypes(pipeline: string, table: TableIdentifier): Promise<Record<string, string>> {
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const loaded = await opened.catalog.loadTable(table);
    return Object.fromEntries(currentSchema(loaded.metadata).fields.map((f) => [f.name, typeText(f.type)]));
  } finally {
    await opened.close();
  }
}

describe('thund serve: Avro logical types land as Iceberg types', () => {
  it('creates timestamptz, timestamp, date, time, decimal(20, 2) and string columns with exact values', async () => {
    const wire = new AvroWire(new Map([[31, { schema: EVENT }]]));
    const url = await wire.registry.start();
    try {
      const topic = unique('serve-avro-logical');
      const table = { namespace: [unique('lt')], name: 'events' };
      await kafka.createTopic(topic, 2);
      const events = Array.from({ length: 6 }, (_, i) => ({
        id: i,
        at: AT + i,
        at_ms: i % 2 === 0 ? null : Math.floor(AT / 1000) - i,
        local_at: AT - i,
        day: 19_724 + i,
        clock: 11_045_123_456 + i,
        price: decimalBytes(i === 5 ? -PRICE : PRICE + BigInt(i)),
        ref: `123e4567-e89b-12d3-a456-42661417400${i}`,
      }));
      const messages = events.map((e) => ({ partition: e.id % 2, key: `k-${e.id}`, value: wire.encode(31, e) }));
      await (await kafka.producer()).send({ topic, messages, acks: -1 });

      const pipeline = embeddedPipelineFile();
      await serveFromRegistry(pipeline, table, messages.length, url, { topic, 'value-format': 'avro' });

      expect(await icebergTypes(pipeline, table)).toMatchObject({
        id: 'long',
        at: 'timestamptz',
        at_ms: 'timestamptz',
        local_at: 'timestamp',
        day: 'date',
        clock: 'time',
        price: 'decimal(20, 2)',
        ref: 'string',
      });
      const landed = await readTable(
        pipeline,
        table,
        `id, epoch_us("at")::VARCHAR AS at_us, epoch_ms(at_ms)::VARCHAR AS at_ms, epoch_us(local_at)::VARCHAR AS local_us, "day"::VARCHAR AS "day", epoch_us(clock)::VARCHAR AS clock_us, price::VARCHAR AS price, ref`,
      );
      const rows: Array<Record<string, unknown>> = landed.rows.map((r) => ({ ...r, id: Number(r['id']) })).sort((a, b) => a.id - b.id);
      // What a double would have made of the decimal: it cannot hold 20 digits.
      expect(String(Number('12345678901234567.89'))).not.toBe('12345678901234567.89');
      expect(rows).toEqual(
        events.map((e, i) => {
          const unscaled = i === 5 ? -PRICE : PRICE + BigInt(i);
          const magnitude = unscaled < 0n ? -unscaled : unscaled;
          return {
            id: e.id,
            at_us: String(e.at),
            at_ms: e.at_ms === null ? null : String(e.at_ms),
            local_us: String(e.local_at),
            day: new Date(e.day * 86_400_000).toISOString().slice(0, 10),
            clock_us: String(e.clock),
            price: `${unscaled < 0n ? '-' : ''}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, '0')}`,
            ref: e.ref,
          };
        }),
      );
      expect(rows[0]?.['price']).toBe('12345678901234567.89');

      // An independent reader: pyiceberg over the embedded catalog's SQLite file.
      const warehouse = join(dirname(pipeline), 'warehouse');
      const py = await readWithPyiceberg({ catalogDb: join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: tableName(table) });
      expect(Object.fromEntries(py.schema.map((f) => [f.name, f.type]))).toMatchObject({ at: 'timestamptz', local_at: 'timestamp', day: 'date', clock: 'time', price: 'decimal(20, 2)', ref: 'string' });
      const first = py.rows.find((r) => r['id'] === 0);
      expect(first).toMatchObject({
        at: '2024-01-02T03:04:05.123456+00:00',
        at_ms: null,
        local_at: '2024-01-02T03:04:05.123456',
        day: '2024-01-02',
        clock: '03:04:05.123456',
        price: '12345678901234567.89',
        ref: '123e4567-e89b-12d3-a456-426614174000',
      });
      expect(py.rows.find((r) => r['id'] === 5)).toMatchObject({ at: '2024-01-02T03:04:05.123461+00:00', at_ms: '2024-01-02T03:04:05.118000+00:00', price: '-12345678901234567.89' });
    } finally {
      await wire.registry.stop();
    }
  }, 180_000);

  it('adds a later schema version\'s decimal and date fields with their types when the table auto-evolves', async () => {
    const v1Fields = { id: 'long', at: AVRO_LOGICAL.timestampMicros };
    const v1 = recordSchema('shop.Tick', v1Fields);
    const v2 = recordSchema('shop.Tick', { ...v1Fields, price: nullable(avroDecimal(20, 2)), day: nullable(AVRO_LOGICAL.date) });
    const wire = new AvroWire(new Map([[51, { schema: v1 }], [52, { schema: v2 }]]));
    const url = await wire.registry.start();
    try {
      const topic = unique('serve-avro-evolve');
      const table = { namespace: [unique('lt')], name: 'ticks' };
      await kafka.createTopic(topic, 1);
      const flags = { topic, 'value-format': 'avro', 'schema-auto-evolve': 'true' };
      const pipeline = embeddedPipelineFile();
      const producer = await kafka.producer();
      await producer.send({ topic, messages: [{ key: 'a', value: wire.encode(51, { id: 1, at: AT }) }], acks: -1 });
      await serveFromRegistry(pipeline, table, 1, url, flags);
      const second = wire.encode(52, { id: 2, at: AT + 1, price: decimalBytes(PRICE), day: 19_724 });
      await producer.send({ topic, messages: [{ key: 'b', value: second }], acks: -1 });
      await serveFromRegistry(pipeline, table, 2, url, flags);

      expect(await icebergTypes(pipeline, table)).toMatchObject({ id: 'long', at: 'timestamptz', price: 'decimal(20, 2)', day: 'date' });
      // The first data file predates the new columns: read through pyiceberg, which reads them as null there.
      const warehouse = join(dirname(pipeline), 'warehouse');
      const py = await readWithPyiceberg({ catalogDb: join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: tableName(table) });
      expect(py.rows.map((r) => ({ id: r['id'], at: r['at'], price: r['price'], day: r['day'] })).sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
        { id: 1, at: '2024-01-02T03:04:05.123456+00:00', price: null, day: null },
        { id: 2, at: '2024-01-02T03:04:05.123457+00:00', price: '12345678901234567.89', day: '2024-01-02' },
      ]);
    } finally {
      await wire.registry.stop();
    }
  }, 180_000);

  it('lands Debezium MicroTimestamp, ZonedTimestamp, Date and Connect Decimal from debezium-avro with their types', async () => {
    const value = recordSchema('shop.public.orders.Value', {
      id: 'int',
      created: connectType('long', 'io.debezium.time.MicroTimestamp'),
      seen: nullable(connectType('string', 'io.debezium.time.ZonedTimestamp')),
      due: connectType('int', 'io.debezium.time.Date'),
      total: connectDecimal(20, 2),
    });
    const wire = new AvroWire(new Map([[41, { schema: debeziumEnvelopeSchema(value) }]]), { wrapUnions: false });
    const url = await wire.registry.start();
    try {
      const topic = unique('serve-dbz-logical');
      const table = { namespace: [unique('lt')], name: 'orders' };
      await kafka.createTopic(topic, 1);
      const row = { id: 1, created: AT, seen: '2024-01-02T05:04:05.123456+02:00', due: 19_724, total: decimalBytes(PRICE) };
      const messages = [
        { key: 'k1', value: wire.encode(41, { before: null, after: row, op: 'c', ts_ms: 1 }) },
        { key: 'k1', value: wire.encode(41, { before: row, after: null, op: 'd', ts_ms: 2 }) },
      ];
      await (await kafka.producer()).send({ topic, messages, acks: -1 });

      const pipeline = embeddedPipelineFile();
      await serveFromRegistry(pipeline, table, messages.length, url, { topic, 'value-format': 'debezium-avro' });

      expect(await icebergTypes(pipeline, table)).toMatchObject({ id: 'int', created: 'timestamp', seen: 'timestamptz', due: 'date', total: 'decimal(20, 2)', _op: 'string' });
      const landed = await readTable(pipeline, table, `_op, epoch_us(created)::VARCHAR AS created, epoch_us(seen)::VARCHAR AS seen, due::VARCHAR AS due, total::VARCHAR AS total`);
      const expected = { created: String(AT), seen: String(AT), due: '2024-01-02', total: '12345678901234567.89' };
      expect(landed.rows.sort((a, b) => String(a['_op']).localeCompare(String(b['_op'])))).toEqual([
        { _op: 'c', ...expected },
        { _op: 'd', ...expected },
      ]);
    } finally {
      await wire.registry.stop();
    }
  }, 180_000);
});
