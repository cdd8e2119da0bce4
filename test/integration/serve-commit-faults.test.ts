/**
 * `thund serve` (the built CLI) through commits whose answers go wrong, staged by an HTTP fault
 * proxy in front of the stack's REST fixture while a topic is produced:
 * - the answer dropped: the catalog applied the commit, the connection died before its answer;
 *   serve settles the unknown outcome by finding its snapshot in the table, and says so naming it;
 * - the request delivered late, after the client's request timeout (catalog.request_timeout_ms):
 *   serve finds its snapshot absent, says so, and commits again with the same snapshot id; the late
 *   request then fails its requirements at the catalog.
 * Afterwards the table holds every record of the topic exactly once, each warned snapshot once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { TEST_S3_STORAGE_BLOCK } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { FaultProxy } from './fault-proxy.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { brokers, createTopic } from './kafka-support/sink-readback.js';
import { caughtUp, idsUpTo, landedIds, lastWords, logLines, outagePerTest, outageRecords as records, waitFor, writeOutagePipeline } from './serve-outage-support.js';

const REST_URI = requireServiceEnv('THUND_TEST_REST_URI');
// Long enough for a cold REST fixture on a busy machine; a late commit is held for twice as long.
const REQUEST_TIMEOUT_MS = 5_000;

const place = outagePerTest('thund-commit-faults-');

const commitWarnings = (service: ServeProcess, kind: string) => logLines(service, /^commit: /).filter((line) => line['kind'] === kind);

it('settles a dropped commit answer and a commit delivered after its timeout, warning with the snapshot ids, landing every record once', async ({ onTestFailed }) => {
  const proxy = await FaultProxy.start(REST_URI);
  place.cleanups.push(() => proxy.close());
  const topic = await createTopic('thund-commit-faults', 2);
  const namespace = `commit_faults_${randomUUID().slice(0, 8)}`;
  const catalog = `{ type: rest, uri: "${proxy.uri}", request_timeout_ms: ${REQUEST_TIMEOUT_MS} }`;
  const pipeline = writeOutagePipeline(place.work, { catalog, storage: TEST_S3_STORAGE_BLOCK, topic, brokers: brokers.join(','), namespace });
  const service = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  onTestFailed(() => console.error(lastWords(service)));
  await service.waitReady(90_000);
  await produce(topic, records(0, 300));
  await caughtUp(service, 300, 'the first records landed');
  const commitOfOrders = new RegExp(`/namespaces/${namespace}/tables/orders$`);

  // The catalog applies the commit; the connection dies before its answer.
  proxy.inject({ method: 'POST', path: commitOfOrders, occurrences: [1], action: { kind: 'forward-then-drop' } });
  await produce(topic, records(300, 300));
  await caughtUp(service, 600, 'caught up after the dropped answer');
  expect(proxy.requests.filter((r) => r.fault === 'forward-then-drop' && r.forwarded)).toHaveLength(1);
  const applied = await waitFor('the applied outcome warned', 10_000, async () => commitWarnings(service, 'unknown-outcome-applied')[0]);
  expect(applied).toMatchObject({ level: 'warn', table: `${namespace}.orders`, attempt: 1 });
  expect(String(applied['msg'])).toContain(String(applied['snapshotId']));
  expect(applied['tableSnapshotId']).toBe(applied['snapshotId']);

  // The commit reaches the catalog only after the client gave up on it.
  proxy.clearRules();
  proxy.inject({ method: 'POST', path: commitOfOrders, occurrences: [1], action: { kind: 'delay-then-forward', ms: REQUEST_TIMEOUT_MS * 2 } });
  await produce(topic, records(600, 300));
  await caughtUp(service, 900, 'caught up after the late commit');
  await waitFor('the late commit delivered', 30_000, async () => (proxy.requests.some((r) => r.fault === 'delay-then-forward' && r.forwarded) ? true : undefined));
  const late = commitWarnings(service, 'unknown-outcome-not-applied');
  expect(late).toHaveLength(1);
  expect(late[0]).toMatchObject({ level: 'warn', table: `${namespace}.orders`, attempt: 1 });
  expect(String(late[0]!['msg'])).toContain(String(late[0]!['snapshotId']));
  expect(logLines(service, 'thund serve failed')).toHaveLength(0);

  // Each warned snapshot is in the table once, and every record once.
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const { metadata } = await opened.catalog.loadTable({ namespace: [namespace], name: 'orders' });
    const ids = metadata.snapshots.map((snapshot) => String(snapshot.snapshotId));
    for (const warned of [applied, late[0]!]) expect(ids.filter((id) => id === warned['snapshotId'])).toHaveLength(1);
  } finally {
    await opened.close();
  }
  expect(await landedIds(pipeline, namespace)).toEqual(idsUpTo(900));
  service.kill('SIGTERM');
  expect((await service.exited).code).toBe(0);
}, 600_000);
