/**
 * `thund serve pipeline.yaml` (the built CLI) on a pipeline that writes three tables from two
 * topics: a Debezium topic applied as an SCD1 table and an SCD2 history, and an orders topic
 * appended (filtered) to a third table, and a materialized view over the SCD1 table. While the events are produced in 20 chunks the service is
 * killed with SIGKILL after each chunk (at a random moment of its work) and started again; then it
 * runs until caught up and stops on SIGTERM with exit code 0. Every table equals its reference
 * over everything produced: no change lost or applied twice, no order missing or landed twice,
 * and the view counts the current customers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openCatalog } from '../../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../../src/app/serve/connection-file.js';
import { ServeProcess } from '../kafka-eo-support/serve-process.js';
import { brokers, createTopic } from '../kafka-support/sink-readback.js';
import { changeEvents, produce, referenceRows, scd1Reference, scd2Reference } from './debezium-topic.js';
import { liveTableRows } from './pipeline-tables.js';

const CHUNKS = 20;
const ORDERS_PER_CHUNK = 300;

let work: string;
let running: ServeProcess | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-serve-pipeline-'));
});
afterEach(() => {
  running?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function spec(changesTopic: string, ordersTopic: string): string {
  const cdc = (scd: 1 | 2): string => `    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: ${scd} }
    properties: { thund.stream.max-rows-per-batch: "25" }`;
  return `pipeline: serve_crash
catalog: { type: sql, warehouse: warehouse }
sources:
  customer_changes:
    format: kafka
    topic: ${changesTopic}
    bootstrap_servers: "${brokers.join(',')}"
    value_format: debezium
  orders:
    format: kafka
    topic: ${ordersTopic}
    bootstrap_servers: "${brokers.join(',')}"
tables:
  lake.customers:
    kind: streaming_table
${cdc(1)}
  lake.customers_history:
    kind: streaming_table
    partitioned_by: ["bucket(4, id)"]
${cdc(2)}
  lake.big_orders:
    kind: streaming_table
    properties: { thund.stream.max-rows-per-batch: "700" }
    sql: SELECT id, customer, amount, _kafka_partition AS kafka_partition, _kafka_offset AS kafka_offset FROM STREAM(orders) WHERE amount >= 100
  lake.customers_per_tier:
    mode: overwrite
    sql: SELECT tier, count(*) AS customers FROM lake.customers GROUP BY tier
`;
}

const orders = (chunk: number): { key: string; value: string }[] =>
  Array.from({ length: ORDERS_PER_CHUNK }, (_, i) => {
    const id = chunk * ORDERS_PER_CHUNK + i;
    return { key: String(id), value: JSON.stringify({ id, customer: (id % 40) + 1, amount: (id * 37) % 250 }) };
  });

it('lands three tables from two topics exactly once through 20 kill -9 restarts of thund serve', async () => {
  const changesTopic = await createTopic('thund-serve-cdc', 3);
  const ordersTopic = await createTopic('thund-serve-orders', 2);
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(pipeline, spec(changesTopic, ordersTopic));
  const changes = (await Promise.all([0, 1, 2, 3].map((part) => changeEvents(part)))).flat();
  const perChunk = Math.ceil(changes.length / CHUNKS);
  let kills = 0;
  let committedBeforeKills = 0;
  for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
    running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 200 });
    await produce(changesTopic, changes.slice(chunk * perChunk, (chunk + 1) * perChunk));
    await produce(ordersTopic, orders(chunk));
    // Even chunks: somewhere in its work (starting, joining, reading, writing or committing).
    // Odd chunks: after the service committed its first batch of this run, so on a loaded machine
    // too, half the kills land between or inside batches of a service that was doing real work.
    if (chunk % 2 === 1) await waitForCommit(running, 60_000);
    await new Promise((resolve) => setTimeout(resolve, (chunk % 2 === 1 ? 0 : 300) + Math.floor(Math.random() * 2_500)));
    running.kill('SIGKILL');
    expect((await running.exited).signal).toBe('SIGKILL');
    committedBeforeKills += running.committedBatches();
    kills += 1;
  }
  expect(kills).toBe(20);
  // The kills interrupted real work: every other killed service had committed batches before it.
  expect(committedBeforeKills).toBeGreaterThanOrEqual(CHUNKS / 2);

  running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 200 });
  await running.waitReady(60_000);
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const expectedOrders = CHUNKS * ORDERS_PER_CHUNK;
    const expectedBig = Array.from({ length: expectedOrders }, (_, id) => id).filter((id) => (id * 37) % 250 >= 100);
    const deadline = Date.now() + 120_000;
    let landed: unknown[][] = [];
    while (Date.now() < deadline) {
      landed = await liveTableRows(opened, { namespace: ['lake'], name: 'big_orders' }, 'id', 'id').catch(() => []);
      const metrics = (await running.get('/metrics')).body;
      const lagging = [...metrics.matchAll(/^thund_source_lag_records\{[^}]*\} (\d+)$/gm)].some((m) => Number(m[1]) > 0);
      if (landed.length >= expectedBig.length && !lagging) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    running.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
    expect(running.logs.some((line) => line['msg'] === 'thund serve stopped')).toBe(true);

    expect(landed.map((row) => Number(row[0]))).toEqual(expectedBig);
    const all = [0, 1, 2, 3];
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers' }, 'id, name, email, tier', 'id')).toEqual(await referenceRows(scd1Reference(all)));
    // The materialized view over the SCD1 table was refreshed after its upstream's last commit.
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers_per_tier' }, 'tier, customers::INTEGER', 'tier')).toEqual(
      await referenceRows(`SELECT tier, count(*)::INTEGER FROM (${scd1Reference(all)}) GROUP BY tier ORDER BY tier`),
    );
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers_history' }, 'id, name, email, tier, __START_AT, __END_AT', 'id, __START_AT')).toEqual(
      await referenceRows(scd2Reference(all)),
    );
  } finally {
    await opened.close();
  }
}, 600_000);

async function waitForCommit(service: ServeProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (service.committedBatches() === 0) {
    if (Date.now() > deadline) throw new Error(`thund serve committed no batch in ${timeoutMs} ms: ${service.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
