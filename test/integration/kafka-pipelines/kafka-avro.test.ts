/**
 * Confluent Avro topics read by pipelines with `thund run`'s engine, through a schema registry (a
 * loopback server speaking the registry's GET /schemas/ids/{id}, with basic auth, named by *_env
 * options):
 *  - `value_format: avro`: fields typed by their writer schema's logical types (timestamp-micros
 *    lands as timestamptz, decimal(20,2) exactly), not as the JSON reader would guess them;
 *  - `value_format: debezium-avro` into an SCD1 table: the envelope's op, before and after arrive
 *    as columns, as from JSON; an unknown schema id is a dead letter.
 */
import { expect, it } from 'vitest';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import { AVRO_LOGICAL, avroDecimal, AvroWire, debeziumEnvelopeSchema, decimalBytes, recordSchema } from '../../unit/kafka/avro-wire.js';
import { brokers, createTopic, runSinkSpec, unique } from '../kafka-support/sink-readback.js';
import { liveTableRows, warehousePerTest } from './pipeline-tables.js';
import { Kafka, logLevel } from 'kafkajs';

const place = warehousePerTest('thund-kafka-dbz-avro-');

it('applies Debezium Avro changes through the schema registry as an SCD1 table', async () => {
  const value = recordSchema('shop.public.customers.Value', { id: 'long', name: 'string', tier: 'string' });
  const wire = new AvroWire(new Map([[5, { schema: debeziumEnvelopeSchema(value) }]]), { wrapUnions: false, credentials: { username: 'sr-user', password: 'sr-Pa55-secret' } });
  const url = await wire.registry.start();
  try {
    const topic = await createTopic('thund-dbz-avro', 2);
    const row = (id: number, tier: string) => ({ id, name: `customer-${id}`, tier });
    const changes: { id: number; envelope: Record<string, unknown> }[] = [
      ...[1, 2, 3, 4].map((id, i) => ({ id, envelope: { before: null, after: row(id, 'bronze'), op: 'c', ts_ms: 10 + i } })),
      { id: 2, envelope: { before: row(2, 'bronze'), after: row(2, 'gold'), op: 'u', ts_ms: 20 } },
      { id: 3, envelope: { before: row(3, 'bronze'), after: null, op: 'd', ts_ms: 21 } },
      { id: 1, envelope: { before: row(1, 'bronze'), after: row(1, 'silver'), op: 'u', ts_ms: 22 } },
    ];
    const producer = new Kafka({ clientId: 'thund-it-dbz-avro', brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        ...changes.map((c) => ({ key: String(c.id), value: wire.encode(5, c.envelope) })),
        { key: 'poison', value: encodeConfluentWire(99, wire.payload(5, changes[0]!.envelope)) },
      ],
    });
    await producer.disconnect();
    const spec = `pipeline: ${unique('dbz_avro').replace(/-/g, '_')}
sources:
  customer_changes:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
    value_format: debezium-avro
    options: { schema_registry_url_env: TEST_REGISTRY_URL, schema_registry_username_env: TEST_REGISTRY_USER, schema_registry_password_env: TEST_REGISTRY_PASSWORD }
tables:
  lake.customers:
    kind: streaming_table
    sql: SELECT op, before, after, ts_ms FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: ts_ms, change_format: debezium, stored_as_scd_type: 1 }
`;
    const env = { ...process.env, TEST_REGISTRY_URL: url, TEST_REGISTRY_USER: 'sr-user', TEST_REGISTRY_PASSWORD: 'sr-Pa55-secret' };
    const ran = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams(env) });
    expect(ran.result.status, ran.result.error?.message).toBe('completed');
    expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'customers' }, 'id::INTEGER, name, tier', 'id')).toEqual([
      [1, 'customer-1', 'silver'],
      [2, 'customer-2', 'gold'],
      [4, 'customer-4', 'bronze'],
    ]);
    const letters = await liveTableRows(place.opened, { namespace: ['lake'], name: 'customer_changes_dead_letters' }, 'code, reason', 'ALL');
    expect(letters).toHaveLength(1);
    expect(String(letters[0]?.[1])).toMatch(/99/);
    expect(JSON.stringify(ran.events, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('sr-Pa55-secret');
  } finally {
    await wire.registry.stop();
  }
});

it('types Avro fields by their writer schema\'s logical types', async () => {
  const schema = recordSchema('shop.Payment', { id: 'long', paid_at: AVRO_LOGICAL.timestampMicros, day: AVRO_LOGICAL.date, amount: avroDecimal(20, 2) });
  const wire = new AvroWire(new Map([[8, { schema }]]));
  const url = await wire.registry.start();
  try {
    const topic = await createTopic('thund-avro-logical', 1);
    const at = 1_704_164_645_123_456; // 2024-01-02T03:04:05.123456Z
    const producer = new Kafka({ clientId: 'thund-it-avro-logical', brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        ...[0, 1, 2].map((i) => ({ key: String(i), value: wire.encode(8, { id: i, paid_at: at + i, day: 19_724 + i, amount: decimalBytes(1_234_567_890_123_456_789n + BigInt(i)) }) })),
        // Cut short: the consumer's worker writes no line for it, and the main thread dead-letters it.
        { key: 'cut', value: wire.encode(8, { id: 3, paid_at: at, day: 19_724, amount: decimalBytes(1n) }).subarray(0, 9) },
      ],
    });
    await producer.disconnect();
    const spec = `pipeline: ${unique('avro_logical').replace(/-/g, '_')}
sources:
  payments:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
    value_format: avro
    options: { schema_registry_url_env: TEST_REGISTRY_URL }
tables:
  lake.payments:
    kind: streaming_table
    sql: SELECT id, paid_at, day, amount FROM STREAM(payments)
`;
    const ran = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams({ ...process.env, TEST_REGISTRY_URL: url }) });
    expect(ran.result.status, ran.result.error?.message).toBe('completed');
    const { metadata } = await place.opened.catalog.loadTable({ namespace: ['lake'], name: 'payments' });
    const types = Object.fromEntries(metadata.schemas.at(-1)!.fields.map((f) => [f.name, f.type.kind === 'decimal' ? `decimal(${f.type.precision}, ${f.type.scale})` : f.type.kind]));
    expect(types).toEqual({ id: 'long', paid_at: 'timestamptz', day: 'date', amount: 'decimal(20, 2)' });
    expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments' }, "id::INTEGER, strftime(paid_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f'), day::VARCHAR, amount::VARCHAR", 'id')).toEqual([
      [0, '2024-01-02 03:04:05.123456', '2024-01-02', '12345678901234567.89'],
      [1, '2024-01-02 03:04:05.123457', '2024-01-03', '12345678901234567.90'],
      [2, '2024-01-02 03:04:05.123458', '2024-01-04', '12345678901234567.91'],
    ]);
    const letters = await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments_dead_letters' }, '"offset"::INTEGER, code, reason', 'ALL');
    expect(letters).toEqual([[3, 'DECODE_FAILED', expect.stringMatching(/^bytes do not match Avro schema id 8: /)]]);
  } finally {
    await wire.registry.stop();
  }
});
