/**
 * `thund serve` (the built CLI) through an outage of its object storage, staged by a TCP proxy in
 * front of the stack's MinIO (serve's storage.s3 endpoint; the REST fixture reaches MinIO
 * directly) while a topic is produced. Frozen (no byte either way, as a SIGSTOPped MinIO): every
 * S3 request fails after storage.s3.idle_timeout_ms and its retries, so the trigger fails; serve
 * logs one warning when the outage starts, /readyz turns 503 naming storage while the probes keep
 * answering within 1 s, and once thawed serve catches up and logs the outage's end. Killed (the
 * proxy resets and refuses connections) and restarted: the same. SIGTERM while storage hangs: serve
 * stops within its shutdown grace time, and the next start lands the rest. Nothing is
 * half-committed: every snapshot's manifest list exists, and the table holds every record once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { requireServiceEnv } from '../stack/service.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { brokers, createTopic } from './kafka-support/sink-readback.js';
import { caughtUp, expectOutageEndedThenStop, idsUpTo, killThenRestart, landedIds, lastWords, logLines, OUTAGE_STARTED, outageRecords as records, outagePerTest, probes, waitFor, writeOutagePipeline } from './serve-outage-support.js';
import { TcpFreezeProxy } from './tcp-freeze-proxy.js';

const REST_URI = requireServiceEnv('THUND_TEST_REST_URI');
const S3_ENDPOINT = requireServiceEnv('THUND_TEST_S3_ENDPOINT');

const place = outagePerTest('thund-storage-outage-');

it('answers its probes at once and rides out frozen and killed storage, stops within its grace time while storage hangs, committing nothing by halves and landing every record once', async ({ onTestFailed }) => {
  const proxy = await TcpFreezeProxy.start(S3_ENDPOINT);
  place.cleanups.push(() => proxy.close());
  const topic = await createTopic('thund-storage-outage', 2);
  const namespace = `storage_outage_${randomUUID().slice(0, 8)}`;
  const storage = `storage:
  s3:
    endpoint: ${proxy.url(S3_ENDPOINT)}
    region: \${THUND_TEST_S3_REGION}
    path_style: true
    connect_timeout_ms: 1000
    idle_timeout_ms: 2000
    access_key_id_env: THUND_TEST_S3_ACCESS_KEY
    secret_access_key_env: THUND_TEST_S3_SECRET_KEY
`;
  const pipeline = writeOutagePipeline(place.work, { catalog: `{ type: rest, uri: "${REST_URI}" }`, storage, topic, brokers: brokers.join(','), namespace });
  const service = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  onTestFailed(() => console.error(lastWords(service)));
  await service.waitReady(90_000);
  await produce(topic, records(0, 300));
  await caughtUp(service, 300, 'the first records landed');

  proxy.freeze();
  await produce(topic, records(300, 300));
  const outage = await waitFor('the outage logged', 120_000, async () => logLines(service, OUTAGE_STARTED).at(-1));
  expect(outage).toMatchObject({ level: 'warn', dependency: 'storage', code: 'STORAGE' });
  const frozen = await probes(service);
  expect(frozen).toMatchObject({ ready: 503, reasons: ['storage'] });
  for (let i = 0; i < 3; i += 1) {
    await probes(service);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  proxy.thaw();
  await caughtUp(service, 600, 'caught up after the storage came back', 180_000);
  expect(logLines(service, 'outage ended').at(-1)).toMatchObject({ level: 'info', dependency: 'storage' });

  // Killed (connections reset, then refused), then back: the same, a new outage.
  await killThenRestart(service, proxy, 'storage', () => produce(topic, records(600, 300)));
  await caughtUp(service, 900, 'caught up after the storage was back', 180_000);
  await expectOutageEndedThenStop(service, 'storage', 4_000);

  // SIGTERM while storage hangs: a service with a 3 s grace time stops within it, exit 0.
  const hung = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500, extraEnv: { THUND_SERVE_SHUTDOWN_GRACE_MS: '3000' } }));
  await hung.waitReady(90_000);
  proxy.freeze();
  await produce(topic, records(900, 100));
  await waitFor('the hung storage logged', 120_000, async () => logLines(hung, OUTAGE_STARTED)[0]);
  const stopping = performance.now();
  hung.kill('SIGTERM');
  expect((await hung.exited).code).toBe(0);
  expect(performance.now() - stopping).toBeLessThan(3_000 + 2_000);
  proxy.thaw();

  // A new start lands what the stopped one left, from the positions in the table.
  const last = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  await last.waitReady(90_000);
  await waitFor('the rest landed', 120_000, async () => ((await landedIds(pipeline, namespace)).length >= 1_000 ? true : undefined));
  last.kill('SIGTERM');
  expect((await last.exited).code).toBe(0);

  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const { metadata } = await opened.catalog.loadTable({ namespace: [namespace], name: 'orders' });
    for (const snapshot of metadata.snapshots) expect(await opened.io.exists(snapshot.manifestList), snapshot.manifestList).toBe(true);
  } finally {
    await opened.close();
  }
  expect(await landedIds(pipeline, namespace)).toEqual(idsUpTo(1_000));
}, 900_000);
