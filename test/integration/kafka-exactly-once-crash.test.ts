/**
 * Crash safety of `thund serve`: while records are being produced, the service is killed with
 * SIGKILL at random moments (before it is ready, while it writes files, between file write and
 * commit, during the commit) a dozen times and restarted; after a last run drains the topic, the
 * table holds every produced record exactly once (count, distinct keys, key checksum).
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

const KILLS = 20;
const TOTAL = 120_000;

async function untilCommitted(serve: ServeProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (serve.committedBatches() === 0) {
    if (Date.now() > deadline) throw new Error(`thund serve committed no batch within ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe('thund serve under kill -9', () => {
  it(`loses and duplicates nothing over ${KILLS} kills while producing`, async () => {
    const pipeline = embeddedPipelineFile();
    const topic = unique('eo-crash');
    const group = unique('g');
    const table = { namespace: ['crash'], name: 'events' };
    await kafka.createTopic(topic, 6);
    const producer = await kafka.producer();
    const chunk = TOTAL / KILLS;
    let committedBeforeKill = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      await produceRange(producer, topic, 6, kill * chunk, chunk);
      const serve = await ServeProcess.start({ pipeline, brokers: kafka.brokers, topic, group, table: tableName(table), commitRecords: 4_000, commitIntervalMs: 700 });
      started.push(serve);
      // Random moments from process start (often before the group join) to several batches in.
      // Every fourth run is first let commit a batch, so that on a slow machine too some kills
      // hit a service that is landing data (between file writes and commits).
      if (kill % 4 === 3) await untilCommitted(serve, 120_000);
      await sleep(500 + Math.floor(Math.random() * 7_000));
      committedBeforeKill += serve.committedBatches();
      serve.kill('SIGKILL');
      expect((await serve.exited).signal).toBe('SIGKILL');
    }
    // The kills must have hit a service that was landing data, not only ones still starting.
    expect(committedBeforeKill).toBeGreaterThan(0);

    const last = await ServeProcess.start({ pipeline, brokers: kafka.brokers, topic, group, table: tableName(table), commitRecords: 20_000, commitIntervalMs: 1_000 });
    started.push(last);
    await last.waitReady(90_000);
    await waitForPositions(pipeline, table, TOTAL, 300_000);
    last.kill('SIGTERM');
    expect((await last.exited).code).toBe(0);

    const landed = await readTable(pipeline, table, '_kafka_key');
    const keys = landed.rows.map((r) => String(r['_kafka_key']));
    expect(keys.length).toBe(TOTAL);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(keyChecksum(keys)).toBe(keyChecksum(expectedKeys(0, TOTAL)));
  }, 900_000);
});
