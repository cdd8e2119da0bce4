/**
 * `thund serve` (in process) from the test stack's Kafka into an embedded catalog with values
 * that are not plain JSON: Confluent Avro through a schema registry (a loopback server speaking
 * the registry's GET /schemas/ids/{id}, with basic auth; the stack has no registry) and Debezium
 * envelopes, chosen through the pipeline file's `serve:` block. Rows land with exact values, the
 * Debezium op in a column, undecodable records in the dead-letter table, and no secret in a log.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeConfluentWire } from '../../connectors/kafka/confluent-wire.js';
import { loadServeFile } from '../../src/app/serve/serve-file.js';
import { embeddedPipelineFile, EoKafka, unique } from './kafka-eo-support/eo-stack.js';
import { readTable } from './kafka-eo-support/landed-rows.js';
import { serveUntilLanded, testServeSettings } from './kafka-eo-support/serve-in-process.js';
import { AvroWire, nullable, recordSchema } from '../unit/kafka/avro-wire.js';

const kafka = new EoKafka();

afterAll(async () => {
  await kafka.close();
});

const ORDER = recordSchema('shop.Order', { id: 'long', customer: 'string', note: nullable('string'), amount: 'double' });

describe('thund serve: Avro and Debezium values', () => {
  it('lands Confluent Avro values decoded through the schema registry; an unknown schema id is a dead letter', async () => {
    const wire = new AvroWire(new Map([[7, { schema: ORDER }]]), { credentials: { username: 'sr-user', password: 'sr-Pa55-secret' } });
    const registry = wire.registry;
    const url = await registry.start();
    try {
      const topic = unique('serve-avro');
      const table = { namespace: [unique('fmt')], name: 'orders' };
      await kafka.createTopic(topic, 2);
      const orders = Array.from({ length: 40 }, (_, i) => ({ id: 2 ** 40 + i, customer: `c-${i}`, note: i % 3 === 0 ? null : `n-${i}`, amount: i * 0.5 }));
      const messages = orders.map((o, i) => ({ partition: i % 2, key: `k-${o.id}`, value: wire.encode(7, o) }));
      // Written with the registered schema, but naming an id the registry does not have.
      messages.push({ partition: 0, key: 'poison', value: encodeConfluentWire(99, wire.payload(7, { id: 1, customer: 'x', note: null, amount: 1 })) });
      await (await kafka.producer()).send({ topic, messages, acks: -1 });

      const pipeline = embeddedPipelineFile();
      const env = { IT_SR_URL: url, IT_SR_USER: 'sr-user', IT_SR_PASSWORD: 'sr-Pa55-secret' };
      const settings = testServeSettings(kafka.brokers, table, {
        topic,
        'commit-interval-ms': '500',
        'value-format': 'avro',
        'schema-registry-url-env': 'IT_SR_URL',
        'schema-registry-username-env': 'IT_SR_USER',
        'schema-registry-password-env': 'IT_SR_PASSWORD',
      });
      const logs = await serveUntilLanded(pipeline, table, messages.length, settings, env);

      const landed = await readTable(pipeline, table, 'id, customer, note, amount, _kafka_key');
      const rows = landed.rows.map((r) => ({ id: Number(r['id']), customer: r['customer'], note: r['note'], amount: r['amount'] })).sort((a, b) => a.id - b.id);
      expect(rows).toEqual(orders);
      const letters = await readTable(pipeline, { namespace: table.namespace, name: 'orders_dead_letters' }, 'code, reason, "offset"::INTEGER AS "offset", "partition"');
      expect(letters.rows).toEqual([{ code: 'DECODE_FAILED', reason: 'schema id 99 is not in the schema registry', offset: 20, partition: 0 }]);
      // Once for the service and once for its Kafka consumer's worker, which decodes the values into staged lines.
      expect(registry.requests.filter((r) => r === 'GET /schemas/ids/7').length).toBe(2);
      const logText = logs.join('\n');
      expect(logText).toMatch(/"thund serve started".*"valueFormat":"avro"/);
      expect(logText).not.toContain('sr-Pa55-secret');
      expect(logText).not.toContain(url.replace(/\/$/, ''));
    } finally {
      await registry.stop();
    }
  }, 180_000);

  it('lands Debezium envelopes (set in the serve: block) as row images with the op in a column; tombstones and truncates are skipped', async () => {
    const topic = unique('serve-dbz');
    const table = { namespace: [unique('fmt')], name: 'customers' };
    await kafka.createTopic(topic, 1);
    const source = { connector: 'postgresql', db: 'shop', table: 'customers' };
    const events = [
      { op: 'r', before: null, after: { id: 1, name: 'Ana', tier: 'gold' } },
      { op: 'c', before: null, after: { id: 2, name: 'Bo', tier: 'silver' } },
      { op: 'u', before: { id: 2, name: 'Bo', tier: 'silver' }, after: { id: 2, name: 'Bo', tier: 'gold' } },
      { op: 'd', before: { id: 1, name: 'Ana', tier: 'gold' }, after: null },
      { op: 't', before: null, after: null },
    ];
    const messages = events.map((e, i) => ({ key: JSON.stringify({ id: i }), value: JSON.stringify({ schema: { type: 'struct' }, payload: { ...e, source, ts_ms: 1_700_000_000_000 + i } }) }));
    const tombstone = { key: JSON.stringify({ id: 1 }), value: null };
    await (await kafka.producer()).send({ topic, messages: [...messages, tombstone, { key: 'bad', value: '{"op":"x"}' }], acks: -1 });

    const pipeline = embeddedPipelineFile();
    writeFileSync(pipeline, ['catalog: { type: sql, warehouse: warehouse }', 'serve:', '  value_format: debezium', '  topic: ${IT_DBZ_TOPIC}', '  commit_interval_ms: 500', '  debezium_op_column: change_op', ''].join('\n'));
    const env = { IT_DBZ_TOPIC: topic };
    const settings = testServeSettings(kafka.brokers, table, {}, await loadServeFile(pipeline, env));
    expect(settings).toMatchObject({ valueFormat: 'debezium-json', topic, commitIntervalMs: 500, debeziumOpColumn: 'change_op' });
    const logs = await serveUntilLanded(pipeline, table, messages.length + 2, settings, env);

    const landed = await readTable(pipeline, table, 'id, name, tier, change_op, "_kafka_offset"');
    expect(landed.rows.map((r) => ({ ...r, id: Number(r['id']), _kafka_offset: Number(r['_kafka_offset']) })).sort((a, b) => a._kafka_offset - b._kafka_offset)).toEqual([
      { id: 1, name: 'Ana', tier: 'gold', change_op: 'r', _kafka_offset: 0 },
      { id: 2, name: 'Bo', tier: 'silver', change_op: 'c', _kafka_offset: 1 },
      { id: 2, name: 'Bo', tier: 'gold', change_op: 'u', _kafka_offset: 2 },
      { id: 1, name: 'Ana', tier: 'gold', change_op: 'd', _kafka_offset: 3 },
    ]);
    const letters = await readTable(pipeline, { namespace: table.namespace, name: 'customers_dead_letters' }, 'code, "offset"::INTEGER AS "offset"');
    expect(letters.rows).toEqual([{ code: 'DECODE_FAILED', offset: 6 }]);
    expect(logs.join('\n')).toMatch(/"thund serve started".*"valueFormat":"debezium"/);
  }, 180_000);
});
