/**
 * Two `thund serve` instances in one consumer group on one table: the second joins half-way (a
 * rebalance moves partitions, with batches in flight), both commit their partitions' positions
 * into the same table and retry on conflict, and the table ends with every record exactly once.
 * A member that exits cleanly leaves the group at once; the wait a killed member's session causes
 * is logged with its length.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPipelineFile, EoKafka, tableName, unique, waitForPositions } from './kafka-eo-support/eo-stack.js';
import { expectedKeys, keyChecksum, produceRange } from './kafka-eo-support/produce.js';
import { readTable } from './kafka-eo-support/landed-rows.js';
import { ServeProcess, sleep } from './kafka-eo-support/serve-process.js';

const kafka = new EoKafka();
const started: ServeProcess[] = [];

afterAll(async () => {
  for (const p of started) p.kill('SIGKILL');
  await kafka.close();
});

const TOTAL = 90_000;

describe('thund serve: two instances in one group', () => {
  it('lands every record exactly once across a rebalance', async () => {
    const pipeline = embeddedPipelineFile();
    const topic = unique('eo-group');
    const group = unique('g');
    const table = { namespace: ['grp'], name: 'events' };
    await kafka.createTopic(topic, 6);
    const producer = await kafka.producer();
    const options = { pipeline, brokers: kafka.brokers, topic, group, table: tableName(table), commitRecords: 3_000, commitIntervalMs: 500 };
    await produceRange(producer, topic, 6, 0, TOTAL / 3);
    const a = await ServeProcess.start(options);
    started.push(a);
    await a.waitReady(60_000);
    await sleep(2_000);
    const b = await ServeProcess.start(options);
    started.push(b);
    await produceRange(producer, topic, 6, TOTAL / 3, TOTAL / 3);
    await b.waitReady(90_000);
    await produceRange(producer, topic, 6, (2 * TOTAL) / 3, TOTAL / 3);
    await waitForPositions(pipeline, table, TOTAL, 300_000);
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    expect((await b.exited).code).toBe(0);

    // Both landed data, and A gave partitions up in the rebalance.
    expect(a.committedBatches()).toBeGreaterThan(0);
    expect(b.committedBatches()).toBeGreaterThan(0);
    expect(a.logs.some((l) => l['msg'] === 'partitions assigned' && Array.isArray(l['revoked']) && l['revoked'].length > 0)).toBe(true);

    const landed = await readTable(pipeline, table, '_kafka_key');
    const keys = landed.rows.map((r) => String(r['_kafka_key']));
    expect(keys.length).toBe(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(keyChecksum(keys)).toBe(keyChecksum(expectedKeys(0, TOTAL)));
  }, 600_000);

  it('lands every record exactly once when a member is killed mid-stream and its partitions move', async () => {
    const pipeline = embeddedPipelineFile();
    const topic = unique('eo-group-kill');
    const group = unique('g');
    const table = { namespace: ['grp'], name: 'killed' };
    await kafka.createTopic(topic, 6);
    const producer = await kafka.producer();
    const options = { pipeline, brokers: kafka.brokers, topic, group, table: tableName(table), commitRecords: 2_000, commitIntervalMs: 400 };
    const a = await ServeProcess.start(options);
    const b = await ServeProcess.start(options);
    started.push(a, b);
    await a.waitReady(60_000);
    await b.waitReady(90_000);
    await produceRange(producer, topic, 6, 0, TOTAL / 2);
    await sleep(1_500);
    a.kill('SIGKILL');
    const aExit = await a.exited;
    expect(aExit.signal, `A exited by itself (${JSON.stringify(aExit)}): ${a.stderr}`).toBe('SIGKILL');
    await produceRange(producer, topic, 6, TOTAL / 2, TOTAL / 2);
    // B takes A's partitions once A's session times out, and starts them at the table's positions.
    await waitForPositions(pipeline, table, TOTAL, 300_000);
    b.kill('SIGTERM');
    expect((await b.exited).code).toBe(0);
    expect(b.logs.filter((l) => l['msg'] === 'partitions assigned').length).toBeGreaterThan(1);
    // Its last assignment names every partition it then held: all six, A's included.
    const held = b.logs.filter((l) => l['msg'] === 'partitions assigned').at(-1)?.['held'];
    expect(Array.isArray(held) ? held.length : held).toBe(6);

    const landed = await readTable(pipeline, table, '_kafka_key');
    const keys = landed.rows.map((r) => String(r['_kafka_key']));
    expect(keys.length).toBe(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(keyChecksum(keys)).toBe(keyChecksum(expectedKeys(0, TOTAL)));
  }, 600_000);

  it('a member that leaves cleanly frees its partitions at once; after a killed one, the wait for its session is logged with its length', async () => {
    const pipeline = embeddedPipelineFile();
    const topic = unique('eo-group-session');
    const group = unique('g');
    await kafka.createTopic(topic, 3);
    // A session long enough that the wait outlasts a process's start (the default is kafkajs's 30 s).
    const options = { pipeline, brokers: kafka.brokers, topic, group, table: tableName({ namespace: ['grp'], name: 'sessions' }), sessionTimeoutMs: 20_000 };
    const waits = (p: ServeProcess) => p.logs.filter((l) => String(l['msg']).startsWith('waiting for the consumer group'));

    const a = await ServeProcess.start(options);
    started.push(a);
    await a.waitReady(60_000);
    a.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    const b = await ServeProcess.start(options);
    started.push(b);
    await b.waitReady(60_000);
    expect(waits(b)).toEqual([]);

    b.kill('SIGKILL');
    await b.exited;
    const c = await ServeProcess.start(options);
    started.push(c);
    await c.waitReady(90_000);
    expect(waits(c)).toMatchObject([{ level: 'warn', group, sessionTimeoutMs: 20_000 }]);
    const ended = c.logs.find((l) => l['msg'] === 'consumer group assigned partitions after the wait');
    expect(ended).toMatchObject({ group });
    expect(Number(ended?.['waitedMs'])).toBeGreaterThan(5_000);
    c.kill('SIGTERM');
    expect((await c.exited).code).toBe(0);
  }, 300_000);
});
