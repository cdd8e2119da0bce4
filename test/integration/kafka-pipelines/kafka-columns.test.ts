/**
 * What a flow can select from a Kafka source (real broker, `thund run`'s engine): a source of two
 * topics (`topics: [a, b]`) read together, each record's topic, partition, offset, timestamp,
 * key and headers (repeated keys kept in order) as columns beside its value's fields, and a JSON
 * value without a declared schema typed as DuckDB infers it (a nested object is a struct).
 */
import { expect, it } from 'vitest';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import { ServedStreams } from '../../../src/app/serve/served-streams.js';
import { brokers, createTopic, runSinkSpec, unique } from '../kafka-support/sink-readback.js';
import { produce } from './debezium-topic.js';
import { liveTableRows, warehousePerTest } from './pipeline-tables.js';

const place = warehousePerTest('thund-kafka-columns-');

it('reads two topics as one source, with coordinates, key, headers and nested values as columns', async () => {
  const [a, b] = [await createTopic('thund-columns-a', 1), await createTopic('thund-columns-b', 2)];
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  await produce(a, [
    { key: 'k1', value: JSON.stringify({ id: 1, device: { name: 'probe', rack: 7 } }), partition: 0, timestamp: at, headers: { trace: ['t-1', 't-2'], origin: 'a' } },
    { key: null, value: JSON.stringify({ id: 2, device: { name: 'gauge', rack: 9 } }), partition: 0, timestamp: at + 1_000 },
  ]);
  await produce(b, [{ key: 'k3', value: JSON.stringify({ id: 3, device: { name: 'valve', rack: 1 } }), partition: 1, timestamp: at + 2_000, headers: { origin: 'b' } }]);
  const spec = `pipeline: ${unique('columns').replace(/-/g, '_')}
sources:
  devices:
    format: kafka
    topics: [${a}, ${b}]
    bootstrap_servers: "${brokers.join(',')}"
tables:
  lake.readings:
    kind: streaming_table
    sql: |
      SELECT id, device.name AS device_name, device.rack AS rack, _kafka_topic AS topic, _kafka_partition AS kafka_partition,
             _kafka_offset AS kafka_offset, _kafka_timestamp AS produced_at, _kafka_key AS record_key, _kafka_headers AS headers
      FROM STREAM(devices)
`;
  const ran = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
  expect(ran.result.status, ran.result.error?.message).toBe('completed');
  const rows = await liveTableRows(
    place.opened,
    { namespace: ['lake'], name: 'readings' },
    "id::INTEGER, device_name, rack::INTEGER, topic, kafka_partition, kafka_offset::INTEGER, strftime(produced_at, '%Y-%m-%d %H:%M:%S'), record_key, to_json(headers)::VARCHAR",
    'id',
  );
  // The coordinates' types are their own, not what the first batch's values suggest.
  const { metadata } = await place.opened.catalog.loadTable({ namespace: ['lake'], name: 'readings' });
  const types = Object.fromEntries(metadata.schemas.at(-1)!.fields.map((f) => [f.name, f.type.kind]));
  expect(types).toMatchObject({ topic: 'string', kafka_partition: 'int', kafka_offset: 'long', produced_at: 'timestamp', record_key: 'string', headers: 'list' });
  expect(rows).toEqual([
    [1, 'probe', 7, a, 0, 0, '2026-01-02 03:04:05', 'k1', '[{"key":"trace","value":"t-1"},{"key":"trace","value":"t-2"},{"key":"origin","value":"a"}]'],
    [2, 'gauge', 9, a, 0, 1, '2026-01-02 03:04:06', null, '[]'],
    [3, 'valve', 1, b, 1, 0, '2026-01-02 03:04:07', 'k3', '[{"key":"origin","value":"b"}]'],
  ]);
});

it('skips a materialized view over a streaming table that has no data yet, and computes it once it has', async () => {
  const topic = await createTopic('thund-columns-empty', 1);
  const spec = `pipeline: ${unique('empty_stream').replace(/-/g, '_')}
sources:
  events: { format: kafka, topic: ${topic}, bootstrap_servers: "${brokers.join(',')}" }
tables:
  lake.events:
    kind: streaming_table
    sql: SELECT id FROM STREAM(events)
  lake.event_count:
    sql: SELECT count(*)::INTEGER AS n FROM lake.events
`;
  const first = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
  expect(first.result.status, first.result.error?.message).toBe('completed');
  expect(first.result.flows.find((f) => f.flow === 'lake.event_count')?.skipped).toBe('upstream-empty');
  await produce(topic, [1, 2, 3].map((id) => ({ key: String(id), value: JSON.stringify({ id }) })));
  const second = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
  expect(second.result.status, second.result.error?.message).toBe('completed');
  expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'event_count' }, 'n', 'n')).toEqual([[3]]);
});

it('starts a flow without a checkpoint at the end of the log with starting_offsets: latest, and a long-running process reads what arrives after it', async () => {
  const topic = await createTopic('thund-columns-latest', 2);
  await produce(topic, [1, 2, 3].map((id) => ({ key: String(id), value: JSON.stringify({ id }) })));
  const spec = `pipeline: ${unique('latest').replace(/-/g, '_')}
sources:
  events: { format: kafka, topic: ${topic}, bootstrap_servers: "${brokers.join(',')}", starting_offsets: latest }
tables:
  lake.events:
    kind: streaming_table
    sql: SELECT id FROM STREAM(events)
`;
  // One set of streams for both runs, as thund serve keeps them between triggers.
  const streams = new ServedStreams(kafkaOffsetStreams());
  try {
    const first = await runSinkSpec(place, spec, { streams });
    expect(first.result.status, first.result.error?.message).toBe('completed');
    expect(first.events.filter((e) => e.phase === 'flow-progress')).toHaveLength(0);
    await produce(topic, [4, 5].map((id) => ({ key: String(id), value: JSON.stringify({ id }) })));
    expect((await runSinkSpec(place, spec, { streams })).result.status).toBe('completed');
    expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'events' }, 'id::INTEGER', 'id')).toEqual([[4], [5]]);
  } finally {
    await streams.closeAll();
  }
});

it('reads everything up to the end offsets in one run when the byte bound cuts the micro-batches short', async () => {
  const topic = await createTopic('thund-columns-bytes', 3);
  const pad = 'x'.repeat(1_000);
  await produce(topic, Array.from({ length: 30 }, (_, id) => ({ key: String(id), value: JSON.stringify({ id, pad }), partition: id % 3 })));
  const spec = `pipeline: ${unique('bytes').replace(/-/g, '_')}
sources:
  events: { format: kafka, topic: ${topic}, bootstrap_servers: "${brokers.join(',')}" }
tables:
  lake.events:
    kind: streaming_table
    properties: { thund.stream.max-bytes-per-batch: "4000" }
    sql: SELECT id FROM STREAM(events)
`;
  const ran = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
  expect(ran.result.status, ran.result.error?.message).toBe('completed');
  expect(ran.events.filter((e) => e.phase === 'flow-progress').length).toBeGreaterThanOrEqual(5);
  expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'events' }, 'id::INTEGER', 'id')).toEqual(Array.from({ length: 30 }, (_, id) => [id]));
});
