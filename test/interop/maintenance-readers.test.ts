/**
 * A table `thund serve` committed to some three hundred times (small micro-batches of an orders
 * topic, and a Debezium topic upserted into an SCD1 table), then `thund maintain --pipeline` with
 * every action: afterwards each partition holds at most ceil(bytes / target) + 1 data files, the
 * current snapshot lists a few manifests, the history is cut to what was retained and every
 * retained snapshot still reads, no file is left that the metadata does not reach, and pyiceberg
 * (before and after) and Spark (after) read exactly the rows of the references.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalog, type OpenedCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { currentSnapshot } from '../../src/iceberg/snapshot-ancestry.js';
import { liveFilesOf } from '../../src/table/delete-planning.js';
import { locationKey } from '../../src/table/maintenance/location-key.js';
import { ManifestCache } from '../../src/table/maintenance/reachable-files.js';
import { manifestsOf } from '../../src/table/scan.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { thund } from '../e2e/cli.js';
import { ServeProcess } from '../integration/kafka-eo-support/serve-process.js';
import { brokers, createTopic } from '../integration/kafka-support/sink-readback.js';
import { changeEvents, produce, referenceRows, scd1Reference } from '../integration/kafka-pipelines/debezium-topic.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { localCatalog } from './quickstart-expected.js';
import type { ReaderTable } from './read-table-output.js';
import { readWithSpark } from './spark.js';

const ORDERS = 4_500;
const ORDERS_PER_BATCH = 15;
const OFF = ['compact', 'rewrite-position-deletes', 'rewrite-manifests', 'expire-snapshots', 'remove-orphans'].map((a) => `"thund.maintenance.${a}.interval-ms": "-1"`).join(', ');

let work: string;
let pipeline: string;
let opened: OpenedCatalog;
let commitsBefore = 0;

function spec(changesTopic: string, ordersTopic: string): string {
  return `pipeline: maintained
catalog: { type: sql, warehouse: warehouse }
sources:
  customer_changes: { format: kafka, topic: ${changesTopic}, bootstrap_servers: "${brokers.join(',')}", value_format: debezium }
  orders: { format: kafka, topic: ${ordersTopic}, bootstrap_servers: "${brokers.join(',')}" }
tables:
  lake.customers:
    kind: streaming_table
    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: 1 }
    properties: { thund.stream.max-rows-per-batch: "20", ${OFF} }
  lake.orders:
    kind: streaming_table
    partitioned_by: ["bucket(2, id)"]
    properties: { thund.stream.max-rows-per-batch: "${ORDERS_PER_BATCH}", ${OFF} }
    sql: SELECT id, customer, amount FROM STREAM(orders)
`;
}

const orderRows = (): { key: string; value: string }[] =>
  Array.from({ length: ORDERS }, (_, id) => ({ key: String(id), value: JSON.stringify({ id, customer: (id % 40) + 1, amount: (id * 37) % 250 }) }));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-maintenance-readers-'));
  const changesTopic = await createTopic('thund-maint-readers-cdc', 2);
  const ordersTopic = await createTopic('thund-maint-readers-orders', 1);
  pipeline = join(work, 'pipeline.yaml');
  writeFileSync(pipeline, spec(changesTopic, ordersTopic));
  await produce(ordersTopic, orderRows());
  await produce(changesTopic, (await Promise.all([0, 1].map((part) => changeEvents(part)))).flat());
  const serve = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 100 });
  try {
    await serve.waitReady(120_000);
    const deadline = Date.now() + 240_000;
    for (;;) {
      const metrics = (await serve.get('/metrics')).body;
      const lags = [...metrics.matchAll(/^thund_source_lag_records\{[^}]*\} (\d+)$/gm)].map((m) => Number(m[1]));
      if (lags.length >= 3 && lags.every((lag) => lag === 0)) break;
      if (Date.now() > deadline) throw new Error(`thund serve did not catch up: ${metrics}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    serve.kill('SIGTERM');
    await serve.exited;
  }
  opened = await openCatalog(await loadConnectionFile(pipeline));
  commitsBefore = (await opened.catalog.loadTable({ namespace: ['lake'], name: 'orders' })).metadata.snapshots.length;
}, 400_000);

afterAll(async () => {
  await opened?.close();
  rmSync(work, { recursive: true, force: true });
});

const readArgs = (table: string): ReturnType<typeof localCatalog> => localCatalog(join(work, 'warehouse'), { table });
const orderIds = (table: ReaderTable): number[] => table.rows.map((row) => Number(row['id'])).sort((a, b) => a - b);
const customers = (table: ReaderTable): unknown[][] =>
  table.rows.map((row) => [Number(row['id']), row['name'], row['email'], row['tier']]).sort((a, b) => Number(a[0]) - Number(b[0]));

describe('thund maintain on a table serve committed to some three hundred times', () => {
  it('leaves few files and manifests, a short history whose snapshots all read, no unreachable file, and the same rows in pyiceberg and Spark', async () => {
    expect(commitsBefore).toBeGreaterThanOrEqual(ORDERS / ORDERS_PER_BATCH);
    const allIds = Array.from({ length: ORDERS }, (_, id) => id);
    const customersReference = (await referenceRows(scd1Reference([0, 1]))).map(([id, ...rest]) => [Number(id), ...rest]);
    expect(orderIds(await readWithPyiceberg(readArgs('lake.orders')))).toEqual(allIds);
    expect(customers(await readWithPyiceberg(readArgs('lake.customers')))).toEqual(customersReference);

    const run = thund(['maintain', '--pipeline', pipeline, '--older-than', '0ms', '--retain-last', '3'], work);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^lake\.orders {2}compact: \d+ files/m);

    for (const name of ['orders', 'customers']) {
      const { metadata, io } = await opened.catalog.loadTable({ namespace: ['lake'], name });
      const snapshot = currentSnapshot(metadata);
      if (snapshot === undefined) throw new Error(`lake.${name} has no snapshot`);
      const { data } = await liveFilesOf(io, snapshot);
      const perPartition = new Map<string, { files: number; bytes: bigint }>();
      for (const { file } of data) {
        const key = JSON.stringify(file.partition, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
        const at = perPartition.get(key) ?? { files: 0, bytes: 0n };
        perPartition.set(key, { files: at.files + 1, bytes: at.bytes + file.fileSizeInBytes });
      }
      const target = 512n * 1024n * 1024n;
      for (const { files, bytes } of perPartition.values()) expect(files).toBeLessThanOrEqual(Number((bytes + target - 1n) / target) + 1);
      expect((await manifestsOf(io, snapshot)).length).toBeLessThanOrEqual(4);
      expect(metadata.snapshots.length).toBeLessThanOrEqual(5);

      // Every retained snapshot reads; every stored file is one the metadata reaches.
      const session = await DuckDbSession.open({ threads: 1 });
      try {
        for (const kept of metadata.snapshots) {
          const rows = await openTableRows({ session, io, metadata, snapshotId: kept.snapshotId });
          try {
            await session.queryJson(`SELECT count(*) AS n FROM (${rows.sql})`);
          } finally {
            await rows.release();
          }
        }
      } finally {
        session.close();
      }
      const reachable = await new ManifestCache(io).reachableFrom(metadata.snapshots, { strict: true, liveOnly: true });
      const reached = new Set([...reachable.manifestLists.keys(), ...reachable.manifests.keys(), ...reachable.contentFiles.keys()]);
      const stored = filesUnder(new URL(metadata.location).pathname).filter((path) => !path.endsWith('.metadata.json') && !path.includes('/thund-checkpoints/'));
      expect(stored.filter((path) => !reached.has(locationKey(`file://${path}`)))).toEqual([]);
    }

    expect(orderIds(await readWithPyiceberg(readArgs('lake.orders')))).toEqual(allIds);
    expect(customers(await readWithPyiceberg(readArgs('lake.customers')))).toEqual(customersReference);
    expect(orderIds(await readWithSpark(readArgs('lake.orders')))).toEqual(allIds);
    expect(customers(await readWithSpark(readArgs('lake.customers')))).toEqual(customersReference);
  }, 900_000);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
