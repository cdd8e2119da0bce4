/**
 * `thund serve` (the built CLI as a child process) from the test stack's Kafka into Iceberg
 * through the REST catalog with data on MinIO: every produced record lands exactly once (count
 * and key checksum), SIGTERM finishes and commits the batch in progress and exits 0, poison records land in
 * the dead-letter table at their offsets while the rest go on, and a topic deleted and recreated
 * under a table's positions stops the service with a clear error instead of a silent stall.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EoKafka, restPipelineFile, tableName, unique, waitForPositions } from './kafka-eo-support/eo-stack.js';
import { expectedKeys, keyChecksum, produceRange } from './kafka-eo-support/produce.js';
import { positionTotal, readPositions, readTable } from './kafka-eo-support/landed-rows.js';
import { ServeProcess, sleep } from './kafka-eo-support/serve-process.js';

const kafka = new EoKafka();
const started: ServeProcess[] = [];

afterAll(async () => {
  for (const p of started) p.kill('SIGKILL');
  await kafka.close();
});

async function startServe(options: Omit<Parameters<typeof ServeProcess.start>[0], 'brokers'>): Promise<ServeProcess> {
  const process = await ServeProcess.start({ ...options, brokers: kafka.brokers });
  started.push(process);
  return process;
}

describe('thund serve: Kafka → Iceberg (REST catalog, MinIO)', () => {
  const pipeline = restPipelineFile();
  const namespace = unique('eo');

  it('lands 200k records of 6 partitions exactly once, and SIGTERM exits 0 with all of it committed', async () => {
    const topic = unique('eo-land');
    const table = { namespace: [namespace], name: 'events' };
    const total = 200_000;
    await kafka.createTopic(topic, 6);
    await produceRange(await kafka.producer(), topic, 6, 0, total);
    const serve = await startServe({ pipeline, topic, group: unique('g'), table: tableName(table), commitRecords: 50_000, commitIntervalMs: 2_000 });
    await serve.waitReady(60_000);
    await waitForPositions(pipeline, table, total, 240_000);
    const metrics = (await serve.get('/metrics')).body;
    serve.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });

    const landed = await readTable(pipeline, table, '_kafka_key, _kafka_partition, _kafka_offset, id');
    const keys = landed.rows.map((r) => String(r['_kafka_key']));
    expect(keys.length).toBe(total);
    expect(new Set(keys).size).toBe(total);
    expect(keyChecksum(keys)).toBe(keyChecksum(expectedKeys(0, total)));
    // The value's fields landed beside the coordinates: id i was produced with key k-i to partition i mod 6.
    for (const row of landed.rows.slice(0, 1000)) {
      expect(row['_kafka_key']).toBe(`k-${String(row['id'])}`);
      expect(Number(row['_kafka_partition'])).toBe(Number(row['id']) % 6);
    }
    expect(landed.positions.list.map((p) => [p.partition, p.nextOffset]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      [0, 1, 2, 3, 4, 5].map((p) => [p, BigInt(Math.ceil((total - p) / 6))]),
    );
    // The shorthand's one flow is named after the table and reads the source kafka_records.
    const flow = tableName(table);
    expect(metrics).toMatch(new RegExp(`^thund_flow_rows_written_total\\{flow="${flow}"\\} 200000$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^thund_flow_commits_total\\{flow="${flow}"\\} [1-9]\\d*$`, 'm'));
    for (let partition = 0; partition < 6; partition++) {
      expect(metrics).toMatch(new RegExp(`^thund_source_lag_records\\{source="kafka_records",flow="[^"]+",topic="${topic}",partition="${partition}"\\} 0$`, 'm'));
    }
  }, 420_000);

  it('on SIGTERM finishes and commits the batch in progress, exits 0, and a restart lands the rest exactly once', async () => {
    const topic = unique('eo-term');
    const table = { namespace: [namespace], name: 'term' };
    const total = 30_000;
    await kafka.createTopic(topic, 6);
    await produceRange(await kafka.producer(), topic, 6, 0, total);
    // Small batches: the stop comes while the trigger still has many to go.
    const options = { pipeline, topic, group: unique('g'), table: tableName(table), commitRecords: 600, commitIntervalMs: 600_000 };
    const serve = await startServe(options);
    await serve.waitReady(60_000).catch(() => undefined);
    for (let i = 0; i < 600 && positionTotal(await readPositions(pipeline, table)) === 0n; i++) await sleep(100);
    serve.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(serve.logs.some((l) => l['msg'] === 'thund serve stopped')).toBe(true);
    const stopped = await readTable(pipeline, table, '_kafka_key');
    expect(stopped.rows.length).toBeGreaterThan(0);
    expect(Number(positionTotal(stopped.positions))).toBe(stopped.rows.length);
    expect(new Set(stopped.rows.map((r) => r['_kafka_key'])).size).toBe(stopped.rows.length);

    const again = await startServe(options);
    await again.waitReady(60_000);
    await waitForPositions(pipeline, table, total, 120_000);
    again.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    const landed = await readTable(pipeline, table, '_kafka_key');
    const keys = landed.rows.map((r) => String(r['_kafka_key']));
    expect(keys.length).toBe(total);
    expect(keyChecksum(keys)).toBe(keyChecksum(expectedKeys(0, total)));
  }, 240_000);

  it('sends undecodable, reserved-field and uncastable records to the dead-letter table with their offsets; the rest land', async () => {
    const topic = unique('eo-poison');
    const table = { namespace: [namespace], name: 'poison' };
    const dlq = { namespace: [namespace], name: 'poison_dead_letters' };
    await kafka.createTopic(topic, 2);
    const producer = await kafka.producer();
    const good = (i: number): string => JSON.stringify({ id: i, code: String(i) });
    const poison = new Map<string, { value: string; code: string }>([
      ['p-json', { value: '{"id": 1, broken', code: 'DECODE_FAILED' }],
      ['p-array', { value: '[1, 2, 3]', code: 'DECODE_FAILED' }],
      ['p-reserved', { value: '{"id": 7, "_kafka_offset": 1}', code: 'FLOW_FAILED' }],
      ['p-cast', { value: '{"id": 8, "code": "not-a-number"}', code: 'FLOW_FAILED' }],
    ]);
    // Partition 0: goods 0..99 with the poison records at offsets 10, 20, 30, 40; partition 1: goods only.
    const messages = [];
    const expectedAt = new Map<string, bigint>();
    let offset = 0n;
    const poisonKeys = [...poison.keys()];
    for (let i = 0; i < 100; i++) {
      if (i > 0 && i % 10 === 0 && poisonKeys.length > 0) {
        const key = poisonKeys.shift() as string;
        messages.push({ partition: 0, key, value: poison.get(key)?.value ?? '' });
        expectedAt.set(key, offset++);
      }
      messages.push({ partition: 0, key: `k-${i}`, value: good(i) });
      offset++;
    }
    for (let i = 100; i < 150; i++) messages.push({ partition: 1, key: `k-${i}`, value: good(i) });
    await producer.send({ topic, messages, acks: -1 });

    const serve = await startServe({
      pipeline,
      topic,
      group: unique('g'),
      table: tableName(table),
      sql: 'SELECT _kafka_key, _kafka_partition, _kafka_offset, id, CAST(code AS INTEGER) AS code_number FROM kafka_records',
      commitIntervalMs: 1_000,
    });
    await serve.waitReady(60_000);
    await waitForPositions(pipeline, table, 154, 120_000);
    serve.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);

    const landed = await readTable(pipeline, table, '_kafka_key, code_number');
    expect(landed.rows.map((r) => String(r['_kafka_key'])).sort()).toEqual(expectedKeys(0, 150).sort());
    expect(landed.rows.every((r) => r['_kafka_key'] === `k-${String(r['code_number'])}`)).toBe(true);
    const letters = await readTable(pipeline, dlq, `topic, "partition", "offset", decode("key") AS "key", decode("value") AS "value", code, reason`);
    const got = letters.rows
      .map((r) => ({ key: String(r['key']), partition: Number(r['partition']), offset: BigInt(String(r['offset'])), code: r['code'], topic: r['topic'] }))
      .sort((a, b) => Number(a.offset - b.offset));
    expect(got).toEqual(
      [...expectedAt].map(([key, at]) => ({ key, partition: 0, offset: at, code: poison.get(key)?.code, topic })).sort((a, b) => Number(a.offset - b.offset)),
    );
    const raw = letters.rows.find((r) => String(r['key']) === 'p-json');
    expect(String(raw?.['value'])).toBe('{"id": 1, broken');
    expect(String(letters.rows.find((r) => String(r['key']) === 'p-cast')?.['reason'])).toMatch(/not-a-number/);
    expect(String(letters.rows.find((r) => String(r['key']) === 'p-reserved')?.['reason'])).toMatch(/_kafka_offset/);
    // Each commit of dead letters is a warning with its count and the snapshot holding them.
    const warned = serve.logs.filter((l) => l['level'] === 'warn' && l['kind'] === 'dead-letters');
    expect(warned.length).toBeGreaterThan(0);
    for (const w of warned) expect(w).toMatchObject({ table: tableName(dlq), snapshotId: expect.stringMatching(/^-?\d+$/) });
    const counted = warned.map((w) => Number(/^commit: (\d+) dead letters? committed/.exec(String(w['msg']))?.[1]));
    expect(counted.reduce((sum, n) => sum + n, 0)).toBe(poison.size);
  }, 180_000);

  it('stops with a clear error when the topic was deleted and recreated below the table’s positions', async () => {
    const topic = unique('eo-recreate');
    const table = { namespace: [namespace], name: 'recreate' };
    await kafka.createTopic(topic, 6);
    await produceRange(await kafka.producer(), topic, 6, 0, 600);
    const first = await startServe({ pipeline, topic, group: unique('g'), table: tableName(table) });
    await first.waitReady(60_000);
    await waitForPositions(pipeline, table, 600, 120_000);
    first.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    await kafka.deleteTopic(topic);
    await kafka.createTopic(topic, 6);
    await produceRange(await kafka.producer(), topic, 6, 0, 12);
    const second = await startServe({ pipeline, topic, group: unique('g'), table: tableName(table) });
    const exit = await Promise.race([second.exited, sleep(90_000).then(() => 'still running' as const)]);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(second.stderr).toMatch(/beyond the end of the log/);
    expect(second.stderr).toMatch(/deleted and recreated/);
    expect(positionTotal(await readPositions(pipeline, table))).toBe(600n);
  }, 240_000);
});
