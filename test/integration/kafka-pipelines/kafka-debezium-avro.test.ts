/**
 * A Debezium topic in Confluent Avro (through a schema registry: a loopback server speaking the
 * registry's GET /schemas/ids/{id}, with basic auth, named by *_env options) read by a pipeline
 * with `value_format: debezium-avro` into an SCD1 table with `thund run`'s engine: the envelope's
 * op, before and after arrive as columns, as from JSON; an unknown schema id is a dead letter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { encodeConfluentWire } from '../../../connectors/kafka/confluent-wire.js';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-stream.js';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { AvroWire, debeziumEnvelopeSchema, recordSchema } from '../../unit/kafka/avro-wire.js';
import { brokers, createTopic, runSinkSpec, unique } from '../kafka-support/sink-readback.js';
import { liveTableRows } from './pipeline-tables.js';
import { Kafka, logLevel } from 'kafkajs';

let work: string;
let opened: OpenedCatalog;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-kafka-dbz-avro-'));
  opened = await openCatalog(undefined, { warehouse: join(work, 'warehouse') });
});
afterEach(async () => {
  await opened.close();
  rmSync(work, { recursive: true, force: true });
});

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
    const ran = await runSinkSpec({ work, opened }, spec, { streams: kafkaOffsetStreams(env) });
    expect(ran.result.status).toBe('completed');
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers' }, 'id::INTEGER, name, tier', 'id')).toEqual([
      [1, 'customer-1', 'silver'],
      [2, 'customer-2', 'gold'],
      [4, 'customer-4', 'bronze'],
    ]);
    const letters = await liveTableRows(opened, { namespace: ['lake'], name: 'customer_changes_dead_letters' }, 'code, reason', 'ALL');
    expect(letters).toHaveLength(1);
    expect(String(letters[0]?.[1])).toMatch(/99/);
    expect(JSON.stringify(ran.events, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('sr-Pa55-secret');
  } finally {
    await wire.registry.stop();
  }
});
