/**
 * Bad records on a Kafka topic read by a pipeline (`thund run`'s engine, real broker):
 *  - a value that is not JSON and a value whose field does not fit the source's declared schema
 *    land in the source's dead-letter table (topic, partition, offset, raw bytes, code, reason
 *    naming the field and type), once, however often the pipeline runs; every other record lands;
 *  - a record failing a `fail` expectation stops the run naming the flow and the expectation; the
 *    batches before it stay, nothing of its batch lands and its positions do not move, so a rerun
 *    stops at the same record; with the expectation turned to `drop` the next run lands the rest
 *    and leaves out only that record.
 */
import { expect, it } from 'vitest';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import { brokers, createTopic, runSinkSpec, unique, type SinkRun } from '../kafka-support/sink-readback.js';
import { produce } from './debezium-topic.js';
import { liveTableRows, warehousePerTest } from './pipeline-tables.js';

const place = warehousePerTest('thund-kafka-bad-');

const run = (spec: string): Promise<SinkRun> => runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
const payment = (id: number, amount: unknown = id * 10): string => JSON.stringify({ id, amount, note: `payment ${id}` });

function spec(pipeline: string, topic: string, expectation = ''): string {
  return `pipeline: ${pipeline}
sources:
  payments:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
    schema: { id: BIGINT NOT NULL, amount: BIGINT, note: STRING }
tables:
  lake.payments:
    kind: streaming_table
    properties: { thund.stream.max-rows-per-batch: "10" }
${expectation}    sql: SELECT id, amount, note, _kafka_offset AS kafka_offset FROM STREAM(payments)
`;
}

it('sends undecodable and misfit records to the dead letters, once, and lands every other record', async () => {
  const topic = await createTopic('thund-kafka-bad', 1);
  const pipeline = unique('bad_records').replace(/-/g, '_');
  const records = [
    ...Array.from({ length: 12 }, (_, i) => ({ key: String(i), value: payment(i) })),
    { key: 'poison', value: '{"id": 99, "amount": ' },
    { key: '12', value: payment(12, 'a lot') },
    { key: 'noid', value: JSON.stringify({ amount: 5, note: 'no id' }) },
    ...Array.from({ length: 6 }, (_, i) => ({ key: String(13 + i), value: payment(13 + i) })),
  ];
  await produce(topic, records);
  const first = await run(spec(pipeline, topic));
  expect(first.result.status, first.result.error?.message).toBe('completed');
  expect(await run(spec(pipeline, topic)).then((r) => r.result.status)).toBe('completed');

  const landed = await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments' }, 'id::INTEGER, amount::INTEGER, note', 'id');
  const good = [...Array.from({ length: 12 }, (_, i) => i), ...Array.from({ length: 6 }, (_, i) => 13 + i)];
  expect(landed).toEqual(good.map((id) => [id, id * 10, `payment ${id}`]));

  const letters = await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments_dead_letters' }, 'topic, partition, "offset"::INTEGER, code, reason, decode(value) AS value', '"offset"');
  expect(letters.map((row) => row.slice(0, 4))).toEqual([
    [topic, 0, 12, 'DECODE_FAILED'],
    [topic, 0, 13, 'SCHEMA_MISFIT'],
    [topic, 0, 14, 'SCHEMA_MISFIT'],
  ]);
  expect(String(letters[1]?.[4])).toMatch(/field amount: value "a lot" does not fit BIGINT/);
  expect(String(letters[2]?.[4])).toMatch(/field id: missing, and the column is NOT NULL/);
  expect(letters[0]?.[5]).toBe('{"id": 99, "amount": ');
});

it('stops at a record failing a fail expectation without landing its batch, and lands the rest once it drops', async () => {
  const topic = await createTopic('thund-kafka-expect', 1);
  const pipeline = unique('expect_fail').replace(/-/g, '_');
  await produce(topic, Array.from({ length: 30 }, (_, i) => ({ key: String(i), value: payment(i, i === 17 ? -5 : i * 10) })));
  const failing = spec(pipeline, topic, '    expectations: { positive_amount: { condition: amount >= 0, action: fail } }\n');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const ran = await run(failing);
    expect(ran.result.status).toBe('failed');
    expect(ran.result.error?.message).toMatch(/positive_amount/);
    // Batches of 10 offsets: the first (0-9) landed, the one holding offset 17 did not.
    expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments' }, 'id::INTEGER', 'id')).toEqual(Array.from({ length: 10 }, (_, i) => [i]));
  }
  const dropping = spec(pipeline, topic, '    expectations: { positive_amount: { condition: amount >= 0, action: drop } }\n');
  expect((await run(dropping)).result.status).toBe('completed');
  expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'payments' }, 'id::INTEGER', 'id')).toEqual(
    Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 17).map((i) => [i]),
  );
});
