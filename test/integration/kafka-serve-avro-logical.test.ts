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
import avsc from 'avsc';
import { afterAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { encodeConfluentWire } from '../../connectors/kafka/confluent-wire.js';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { serveSettings } from '../../src/app/serve/serve-config.js';
import { serve } from '../../src/app/serve/serve-service.js';
import { typeText } from '../../src/iceberg/schema.js';
import { currentSchema } from '../../src/iceberg/snapshot-ancestry.js';
import { embeddedPipelineFile, EoKafka, tableName, unique, waitForPositions } from './kafka-eo-support/eo-stack.js';
import { readTable } from './kafka-eo-support/landed-rows.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { FakeSchemaRegistry } from '../unit/kafka/fake-schema-registry.js';

const kafka = new EoKafka();

afterAll(async () => {
  await kafka.close();
});

const EVENT = {
  type: 'record',
  name: 'Event',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'at_ms', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }], default: null },
    { name: 'local_at', type: { type: 'long', logicalType: 'local-timestamp-micros' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'clock', type: { type: 'long', logicalType: 'time-micros' } },
    { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 20, scale: 2 } },
    { name: 'ref', type: { type: 'string', logicalType: 'uuid' } },
  ],
};

/** 2024-01-02T03:04:05.123456Z in microseconds since the epoch. */
const AT = 1_704_164_645_123_456;
/** 12345678901234567.89 unscaled: 20 digits, more than a double holds. */
const PRICE = 1_234_567_890_123_456_789n;

/** Big-endian two's complement in the fewest bytes, as Avro decimals are written. */
function decimalBytes(unscaled: bigint): Buffer {
  let length = 1;
  while (unscaled >= 1n << BigInt(8 * length - 1) || unscaled < -(1n << BigInt(8 * length - 1))) length++;
  const modulus = 1n << BigInt(8 * length);
  return Buffer.from(((unscaled + modulus) % modulus).toString(16).padStart(length * 2, '0'), 'hex');
}

/** Runs serve in this process until the table's positions cover `records`, then stops it. */
async function serveUntilLanded(pipeline: string, table: TableIdentifier, records: number, options: Record<string, string>, env: Readonly<Record<string, string>>): Promise<void> {
  let stop: (reason: string) => void = () => undefined;
  const settings = serveSettings({ 'kafka-brokers': kafka.brokers, group: unique('g'), table: tableName(table), 'http-port': '0', 'commit-interval-ms': '500', 'duckdb-threads': '1', 'session-timeout-ms': '6000', ...options }, {});
  const done = serve({ pipelinePath: pipeline, settings, overrides: {}, logger: { log: () => undefined }, stopSignal: new Promise<string>((resolve) => (stop = resolve)), env });
  done.catch(() => undefined);
  try {
    await waitForPositions(pipeline, table, records, 90_000);
  } finally {
    stop('test');
    await done;
  }
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
    const registry = new FakeSchemaRegistry(new Map([[31, { schema: EVENT }]]));
    const url = await registry.start();
    try {
      const topic = unique('serve-avro-logical');
      const table = { namespace: [unique('lt')], name: 'events' };
      await kafka.createTopic(topic, 2);
      const writer = avsc.Type.forSchema(EVENT as avsc.Schema);
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
      const messages = events.map((e) => ({ partition: e.id % 2, key: `k-${e.id}`, value: encodeConfluentWire(31, writer.toBuffer(e)) }));
      await (await kafka.producer()).send({ topic, messages, acks: -1 });

      const pipeline = embeddedPipelineFile();
      await serveUntilLanded(pipeline, table, messages.length, { topic, 'value-format': 'avro', 'schema-registry-url-env': 'IT_SR_URL' }, { IT_SR_URL: url });

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
      await registry.stop();
    }
  }, 180_000);

  it('adds a later schema version\'s decimal and date fields with their types when the table auto-evolves', async () => {
    const v1 = { type: 'record', name: 'Tick', namespace: 'shop', fields: [{ name: 'id', type: 'long' }, { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } }] };
    const v2 = {
      ...v1,
      fields: [
        ...v1.fields,
        { name: 'price', type: ['null', { type: 'bytes', logicalType: 'decimal', precision: 20, scale: 2 }], default: null },
        { name: 'day', type: ['null', { type: 'int', logicalType: 'date' }], default: null },
      ],
    };
    const registry = new FakeSchemaRegistry(new Map([[51, { schema: v1 }], [52, { schema: v2 }]]));
    const url = await registry.start();
    try {
      const topic = unique('serve-avro-evolve');
      const table = { namespace: [unique('lt')], name: 'ticks' };
      await kafka.createTopic(topic, 1);
      const options = { topic, 'value-format': 'avro', 'schema-registry-url-env': 'IT_SR_URL', 'schema-auto-evolve': 'true' };
      const pipeline = embeddedPipelineFile();
      const producer = await kafka.producer();
      await producer.send({ topic, messages: [{ key: 'a', value: encodeConfluentWire(51, avsc.Type.forSchema(v1 as avsc.Schema).toBuffer({ id: 1, at: AT })) }], acks: -1 });
      await serveUntilLanded(pipeline, table, 1, options, { IT_SR_URL: url });
      const second = avsc.Type.forSchema(v2 as avsc.Schema).toBuffer({ id: 2, at: AT + 1, price: decimalBytes(PRICE), day: 19_724 });
      await producer.send({ topic, messages: [{ key: 'b', value: encodeConfluentWire(52, second) }], acks: -1 });
      await serveUntilLanded(pipeline, table, 2, options, { IT_SR_URL: url });

      expect(await icebergTypes(pipeline, table)).toMatchObject({ id: 'long', at: 'timestamptz', price: 'decimal(20, 2)', day: 'date' });
      // The first data file predates the new columns: read through pyiceberg, which reads them as null there.
      const warehouse = join(dirname(pipeline), 'warehouse');
      const py = await readWithPyiceberg({ catalogDb: join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: tableName(table) });
      expect(py.rows.map((r) => ({ id: r['id'], at: r['at'], price: r['price'], day: r['day'] })).sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
        { id: 1, at: '2024-01-02T03:04:05.123456+00:00', price: null, day: null },
        { id: 2, at: '2024-01-02T03:04:05.123457+00:00', price: '12345678901234567.89', day: '2024-01-02' },
      ]);
    } finally {
      await registry.stop();
    }
  }, 180_000);

  it('lands Debezium MicroTimestamp, ZonedTimestamp, Date and Connect Decimal from debezium-avro with their types', async () => {
    const value = {
      type: 'record',
      name: 'Value',
      namespace: 'shop.public.orders',
      fields: [
        { name: 'id', type: 'int' },
        { name: 'created', type: { type: 'long', 'connect.version': 1, 'connect.name': 'io.debezium.time.MicroTimestamp' } },
        { name: 'seen', type: ['null', { type: 'string', 'connect.version': 1, 'connect.name': 'io.debezium.time.ZonedTimestamp' }], default: null },
        { name: 'due', type: { type: 'int', 'connect.version': 1, 'connect.name': 'io.debezium.time.Date' } },
        {
          name: 'total',
          type: { type: 'bytes', scale: 2, precision: 20, 'connect.parameters': { scale: '2', 'connect.decimal.precision': '20' }, 'connect.name': 'org.apache.kafka.connect.data.Decimal', logicalType: 'decimal' },
        },
      ],
    };
    const envelope = {
      type: 'record',
      name: 'Envelope',
      namespace: 'shop.public.orders',
      fields: [
        { name: 'before', type: ['null', value], default: null },
        { name: 'after', type: ['null', 'Value'], default: null },
        { name: 'op', type: 'string' },
        { name: 'ts_ms', type: ['null', 'long'], default: null },
      ],
    };
    const registry = new FakeSchemaRegistry(new Map([[41, { schema: envelope }]]));
    const url = await registry.start();
    try {
      const topic = unique('serve-dbz-logical');
      const table = { namespace: [unique('lt')], name: 'orders' };
      await kafka.createTopic(topic, 1);
      const writer = avsc.Type.forSchema(envelope as avsc.Schema, { wrapUnions: false });
      const row = { id: 1, created: AT, seen: '2024-01-02T05:04:05.123456+02:00', due: 19_724, total: decimalBytes(PRICE) };
      const messages = [
        { key: 'k1', value: encodeConfluentWire(41, writer.toBuffer({ before: null, after: row, op: 'c', ts_ms: 1 })) },
        { key: 'k1', value: encodeConfluentWire(41, writer.toBuffer({ before: row, after: null, op: 'd', ts_ms: 2 })) },
      ];
      await (await kafka.producer()).send({ topic, messages, acks: -1 });

      const pipeline = embeddedPipelineFile();
      await serveUntilLanded(pipeline, table, messages.length, { topic, 'value-format': 'debezium-avro', 'schema-registry-url-env': 'IT_SR_URL' }, { IT_SR_URL: url });

      expect(await icebergTypes(pipeline, table)).toMatchObject({ id: 'int', created: 'timestamp', seen: 'timestamptz', due: 'date', total: 'decimal(20, 2)', _op: 'string' });
      const landed = await readTable(pipeline, table, `_op, epoch_us(created)::VARCHAR AS created, epoch_us(seen)::VARCHAR AS seen, due::VARCHAR AS due, total::VARCHAR AS total`);
      const expected = { created: String(AT), seen: String(AT), due: '2024-01-02', total: '12345678901234567.89' };
      expect(landed.rows.sort((a, b) => String(a['_op']).localeCompare(String(b['_op'])))).toEqual([
        { _op: 'c', ...expected },
        { _op: 'd', ...expected },
      ]);
    } finally {
      await registry.stop();
    }
  }, 180_000);
});
