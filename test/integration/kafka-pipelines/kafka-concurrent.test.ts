/**
 * Two processes on one Kafka pipeline (an append flow and an SCD2 flow over two topics), as a
 * scheduler that fires twice or a second replica would: both read every partition, and every
 * commit is fenced on the checkpoint its batch was planned from, so the loser of each race plans
 * again from the table's positions. Two `thund run` processes started together, and two
 * `thund serve` processes running side by side while records are produced: every order lands
 * exactly once and the history equals its reference.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openCatalog } from '../../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../../src/app/serve/connection-file.js';
import { thundAsync } from '../../e2e/cli.js';
import { ServeProcess } from '../kafka-eo-support/serve-process.js';
import { brokers, createTopic } from '../kafka-support/sink-readback.js';
import { changeEvents, produce, referenceRows, scd2Reference } from './debezium-topic.js';
import { liveTableRows } from './pipeline-tables.js';

let work: string;
const services: ServeProcess[] = [];

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-kafka-concurrent-'));
});
afterEach(() => {
  for (const service of services.splice(0)) service.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

const orders = (from: number, to: number): { key: string; value: string }[] =>
  Array.from({ length: to - from }, (_, i) => ({ key: String(from + i), value: JSON.stringify({ id: from + i, amount: (from + i) % 97 }) }));

async function pipelineFile(): Promise<{ path: string; ordersTopic: string; changesTopic: string }> {
  const ordersTopic = await createTopic('thund-concurrent-orders', 3);
  const changesTopic = await createTopic('thund-concurrent-cdc', 2);
  const path = join(work, 'pipeline.yaml');
  writeFileSync(
    path,
    `pipeline: concurrent_kafka
catalog: { type: sql, warehouse: warehouse }
sources:
  orders: { format: kafka, topic: ${ordersTopic}, bootstrap_servers: "${brokers.join(',')}" }
  changes: { format: kafka, topic: ${changesTopic}, bootstrap_servers: "${brokers.join(',')}", value_format: debezium }
tables:
  lake.orders:
    kind: streaming_table
    properties: { thund.stream.max-rows-per-batch: "400" }
    sql: SELECT id, amount FROM STREAM(orders)
  lake.customers_history:
    kind: streaming_table
    properties: { thund.stream.max-rows-per-batch: "30" }
    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: 2 }
`,
  );
  return { path, ordersTopic, changesTopic };
}

async function expectExactlyOnce(pipeline: string, orderCount: number, parts: readonly number[]): Promise<void> {
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const ids = (await liveTableRows(opened, { namespace: ['lake'], name: 'orders' }, 'id::INTEGER', 'id')).map((row) => row[0]);
    expect(ids).toEqual(Array.from({ length: orderCount }, (_, i) => i));
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers_history' }, 'id, name, email, tier, __START_AT, __END_AT', 'id, __START_AT')).toEqual(
      await referenceRows(scd2Reference(parts)),
    );
  } finally {
    await opened.close();
  }
}

it('two thund run processes started together land every record once', async () => {
  const { path, ordersTopic, changesTopic } = await pipelineFile();
  await produce(ordersTopic, orders(0, 3_000));
  for (const part of [0, 1, 2, 3]) await produce(changesTopic, await changeEvents(part));
  const runs = await Promise.all([thundAsync(['run', path], work), thundAsync(['run', path], work)]);
  for (const run of runs) expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  await expectExactlyOnce(path, 3_000, [0, 1, 2, 3]);
}, 300_000);

it('two thund serve processes on one pipeline land every record once', async () => {
  const { path, ordersTopic, changesTopic } = await pipelineFile();
  services.push(await ServeProcess.startPipeline(path, { triggerIntervalMs: 200 }), await ServeProcess.startPipeline(path, { triggerIntervalMs: 200 }));
  for (const part of [0, 1, 2, 3]) {
    await produce(ordersTopic, orders(part * 1_000, (part + 1) * 1_000));
    await produce(changesTopic, await changeEvents(part));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
  const opened = await openCatalog(await loadConnectionFile(path));
  try {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const landed = await liveTableRows(opened, { namespace: ['lake'], name: 'orders' }, 'count(*)::INTEGER', '1').catch(() => [[0]]);
      const lagging = await Promise.all(services.map(async (s) => /^thund_source_lag_records\{[^}]*\} [1-9]/m.test((await s.get('/metrics')).body)));
      if (Number(landed[0]?.[0]) >= 4_000 && !lagging.some(Boolean)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await opened.close();
  }
  for (const service of services) service.kill('SIGTERM');
  for (const service of services) expect((await service.exited).code).toBe(0);
  // Both ran the whole time (neither stopped on a lost race), and together they committed the work.
  expect(services.every((s) => s.logs.some((line) => line['msg'] === 'thund serve stopped'))).toBe(true);
  expect(services.reduce((sum, s) => sum + s.committedBatches(), 0)).toBeGreaterThan(0);
  await expectExactlyOnce(path, 4_000, [0, 1, 2, 3]);
}, 300_000);
