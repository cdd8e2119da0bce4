/**
 * `thund serve pipeline.yaml` maintains its tables by itself: with the tables' maintenance
 * intervals set to 0 it compacts, rewrites delete files and manifests, and expires snapshots
 * between every two triggers, while a Debezium topic (applied as SCD1, so upserts leave delete
 * files) and an orders topic are produced. The service is killed with SIGKILL at random moments
 * (often inside a maintenance action) and started again. Afterwards both tables equal their
 * references (nothing lost or landed twice, no deleted row back), maintenance commits are in the
 * tables' histories and counted on /metrics, and every snapshot the tables still hold reads in
 * full (no file a retained snapshot needs was deleted).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../../src/app/serve/connection-file.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { ServeProcess } from '../kafka-eo-support/serve-process.js';
import { brokers, createTopic } from '../kafka-support/sink-readback.js';
import { changeEvents, produce, referenceRows, scd1Reference } from './debezium-topic.js';
import { liveTableRows } from './pipeline-tables.js';

const CHUNKS = 8;
const ORDERS_PER_CHUNK = 200;

let work: string;
let running: ServeProcess | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-serve-maintenance-'));
});
afterEach(() => {
  running?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Every action at every gap between triggers; expiry keeps the last 3 snapshots of any age. */
const MAINTAINED = [
  '"thund.maintenance.compact.interval-ms": "0"',
  '"thund.maintenance.rewrite-position-deletes.interval-ms": "0"',
  '"thund.maintenance.rewrite-manifests.interval-ms": "0"',
  '"thund.maintenance.expire-snapshots.interval-ms": "0"',
  '"history.expire.max-snapshot-age-ms": "1"',
  '"history.expire.min-snapshots-to-keep": "3"',
].join(', ');

function spec(changesTopic: string, ordersTopic: string): string {
  return `pipeline: serve_maintenance
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
    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: 1 }
    properties: { thund.stream.max-rows-per-batch: "25", write.delete.mode: merge-on-read, write.update.mode: merge-on-read, write.merge.mode: merge-on-read, ${MAINTAINED} }
  lake.orders:
    kind: streaming_table
    partitioned_by: ["bucket(3, id)"]
    properties: { thund.stream.max-rows-per-batch: "120", ${MAINTAINED} }
    sql: SELECT id, customer, amount FROM STREAM(orders)
`;
}

const orders = (chunk: number): { key: string; value: string }[] =>
  Array.from({ length: ORDERS_PER_CHUNK }, (_, i) => {
    const id = chunk * ORDERS_PER_CHUNK + i;
    return { key: String(id), value: JSON.stringify({ id, customer: (id % 40) + 1, amount: (id * 37) % 250 }) };
  });

it('compacts and expires its tables between triggers, through kill -9 restarts, with nothing lost, doubled or unreadable', async () => {
  const changesTopic = await createTopic('thund-maint-cdc', 2);
  const ordersTopic = await createTopic('thund-maint-orders', 2);
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(pipeline, spec(changesTopic, ordersTopic));
  const changes = (await Promise.all([0, 1].map((part) => changeEvents(part)))).flat();
  const perChunk = Math.ceil(changes.length / CHUNKS);
  let maintenanceLines = 0;
  for (let chunk = 0; chunk < CHUNKS; chunk += 1) {
    running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 300 });
    await produce(changesTopic, changes.slice(chunk * perChunk, (chunk + 1) * perChunk));
    await produce(ordersTopic, orders(chunk));
    await new Promise((resolve) => setTimeout(resolve, 2_000 + Math.floor(Math.random() * 3_000)));
    running.kill('SIGKILL');
    expect((await running.exited).signal).toBe('SIGKILL');
    maintenanceLines += running.logs.filter((line) => line['msg'] === 'maintenance').length;
  }
  // The killed services maintained their tables between triggers.
  expect(maintenanceLines).toBeGreaterThan(0);

  running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 300 });
  await running.waitReady(60_000);
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const expectedOrders = CHUNKS * ORDERS_PER_CHUNK;
    const deadline = Date.now() + 120_000;
    let metrics = '';
    while (Date.now() < deadline) {
      const landed = await liveTableRows(opened, { namespace: ['lake'], name: 'orders' }, 'id', 'id').catch(() => []);
      metrics = (await running.get('/metrics')).body;
      const lagging = [...metrics.matchAll(/^thund_source_lag_records\{[^}]*\} (\d+)$/gm)].some((m) => Number(m[1]) > 0);
      const compacted = /^thund_maintenance_runs_total\{table="lake\.orders",action="compact",outcome="ok"\} [1-9]/m.test(metrics);
      if (landed.length >= expectedOrders && !lagging && compacted) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    running.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
    expect(metrics).toMatch(/^thund_maintenance_runs_total\{table="lake\.orders",action="compact",outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^thund_maintenance_runs_total\{table="lake\.customers",action="expire-snapshots",outcome="ok"\} [1-9]/m);

    expect((await liveTableRows(opened, { namespace: ['lake'], name: 'orders' }, 'id', 'id')).map((row) => Number(row[0]))).toEqual(Array.from({ length: expectedOrders }, (_, id) => id));
    expect(await liveTableRows(opened, { namespace: ['lake'], name: 'customers' }, 'id, name, email, tier', 'id')).toEqual(await referenceRows(scd1Reference([0, 1])));

    for (const name of ['orders', 'customers']) {
      const { metadata } = await opened.catalog.loadTable({ namespace: ['lake'], name });
      // Expiry kept the history short: far fewer snapshots than the commits made.
      expect(metadata.snapshots.length).toBeLessThan(40);
      expect(await everySnapshotReads(opened, name)).toBe(true);
    }
  } finally {
    await opened.close();
  }
}, 600_000);

/** Reads every snapshot the table holds in full: a file a retained snapshot needs and that is gone fails the read. */
async function everySnapshotReads(opened: OpenedCatalog, name: string): Promise<boolean> {
  const { metadata, io } = await opened.catalog.loadTable({ namespace: ['lake'], name });
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    for (const snapshot of metadata.snapshots) {
      const rows = await openTableRows({ session, io, metadata, snapshotId: snapshot.snapshotId });
      try {
        await session.queryJson(`SELECT count(*) AS n FROM (${rows.sql})`);
      } finally {
        await rows.release();
      }
    }
    return true;
  } finally {
    session.close();
  }
}
