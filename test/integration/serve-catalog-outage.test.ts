/**
 * `thund serve` (the built CLI) through outages of its REST catalog, staged by a TCP proxy in front
 * of the stack's REST fixture while a topic is produced:
 * - frozen (no byte either way, as a SIGSTOPped server): /healthz, /readyz, /metrics and /status
 *   each answer within 1 s throughout; /readyz turns 503 with the reason `catalog`; once thawed the
 *   service catches up without a restart;
 * - killed (connection refused) then back: serve logs one warning when the outage starts and one
 *   line when it ends, retries with backoff instead of exiting, and catches up.
 * Afterwards the table holds every record of the topic exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { TEST_S3_STORAGE_BLOCK } from '../stack/s3-env.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { requireServiceEnv } from '../stack/service.js';
import { brokers, createTopic } from './kafka-support/sink-readback.js';
import { caughtUp, expectOutageEndedThenStop, frozenProbeOutage, idsUpTo, killThenRestart, landedIds, logLines, OUTAGE_STARTED, outageRecords as records, outagePerTest, probes, rowsWritten, waitFor, writeOutagePipeline } from './serve-outage-support.js';
import { TcpFreezeProxy } from './tcp-freeze-proxy.js';

const REST_URI = requireServiceEnv('THUND_TEST_REST_URI');

const place = outagePerTest('thund-catalog-outage-');

it('answers its probes at once and rides out a frozen and a killed catalog, landing every record once', async () => {
  const proxy = await TcpFreezeProxy.start(REST_URI);
  place.cleanups.push(() => proxy.close());
  const topic = await createTopic('thund-outage', 2);
  const namespace = `outage_${randomUUID().slice(0, 8)}`;
  const pipeline = writeOutagePipeline(place.work, { catalog: `{ type: rest, uri: "${proxy.url(REST_URI)}" }`, storage: TEST_S3_STORAGE_BLOCK, topic, brokers: brokers.join(','), namespace });
  const service = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  await service.waitReady(90_000);
  await produce(topic, records(0, 400));
  await waitFor('the first records landed', 60_000, async () => ((await rowsWritten(service)) >= 400 ? true : undefined));

  // Frozen: the probes keep answering, and say why the service is not ready.
  proxy.freeze();
  await produce(topic, records(400, 400));
  await frozenProbeOutage(service, 'catalog');
  for (let i = 0; i < 4; i += 1) await probes(service);
  proxy.thaw();
  await caughtUp(service, 800, 'caught up after the freeze');

  // Killed: the triggers fail fast; serve retries with backoff instead of exiting, and says so.
  await killThenRestart(service, proxy, 'catalog', () => produce(topic, records(800, 400)));
  await caughtUp(service, 1_200, 'caught up after the catalog came back');
  expect(logLines(service, OUTAGE_STARTED).at(-1)).toMatchObject({ level: 'warn', dependency: 'catalog' });
  await expectOutageEndedThenStop(service, 'catalog', 4_000);
  expect(await landedIds(pipeline, namespace)).toEqual(idsUpTo(1_200));
}, 600_000);
