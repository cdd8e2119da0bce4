/**
 * `thund serve` (the built CLI) through outages of its Kafka broker while the topic is produced.
 * The stack's broker advertises its own address, so clients that bootstrap through a proxy would
 * then connect to the broker directly: this test starts a broker of its own with a second listener
 * whose advertised address is a TCP proxy's (test/stack/kafka.ts, `proxied`), so every byte serve
 * exchanges with Kafka passes the proxy, while the test produces on the broker's own listener.
 * - frozen (no byte either way, as a SIGSTOPped broker) for longer than a trigger: /healthz,
 *   /readyz, /metrics and /status each answer within 1 s; /readyz turns 503 naming kafka; once
 *   thawed the service catches up without a restart;
 * - killed (connections reset, then refused) then back: serve logs one warning when the outage
 *   starts and one line when it ends, retries instead of exiting, and catches up.
 * Afterwards the table holds every record of the topic exactly once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { expect, it } from 'vitest';
import { startKafka } from '../stack/kafka.js';
import { freePort } from '../stack/process.js';
import { TEST_S3_STORAGE_BLOCK } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { createTopic } from './kafka-support/sink-readback.js';
import { caughtUp, expectOutageEndedThenStop, frozenProbeOutage, idsUpTo, killThenRestart, landedIds, lastWords, outageRecords as records, outagePerTest, probes, writeOutagePipeline } from './serve-outage-support.js';
import { TcpFreezeProxy } from './tcp-freeze-proxy.js';

const REST_URI = requireServiceEnv('THUND_TEST_REST_URI');

const place = outagePerTest('thund-kafka-outage-');

it('answers its probes at once and rides out a frozen and a killed Kafka broker, landing every record once', async ({ onTestFailed }) => {
  // The test's own broker keeps its data and log in the test's folder, not beside the shared stack's.
  process.env['THUND_STACK_DIR'] = join(place.work, 'stack');
  place.cleanups.push(() => delete process.env['THUND_STACK_DIR']);
  const proxiedPort = await freePort();
  const proxy = await TcpFreezeProxy.start(`tcp://127.0.0.1:${proxiedPort}`);
  place.cleanups.push(() => proxy.close());
  const started = await startKafka({ proxied: { port: proxiedPort, advertisedPort: proxy.port } });
  place.cleanups.push(() => started.stop());
  const direct = new Kafka({ clientId: 'thund-it-kafka-outage', brokers: [started.brokers], logLevel: logLevel.NOTHING });
  const topic = await createTopic('thund-kafka-outage', 2, direct);
  const namespace = `kafka_outage_${randomUUID().slice(0, 8)}`;
  const pipeline = writeOutagePipeline(place.work, { catalog: `{ type: rest, uri: "${REST_URI}" }`, storage: TEST_S3_STORAGE_BLOCK, topic, brokers: `127.0.0.1:${proxy.port}`, namespace });
  const service = (place.running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  onTestFailed(() => console.error(lastWords(service)));
  await service.waitReady(90_000);
  await produce(topic, records(0, 300), direct);
  await caughtUp(service, 300, 'the first records landed');

  // Frozen for longer than a trigger: the probes keep answering and name kafka.
  proxy.freeze();
  await produce(topic, records(300, 300), direct);
  await frozenProbeOutage(service, 'kafka');
  for (let i = 0; i < 5; i += 1) {
    await probes(service);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  proxy.thaw();
  await caughtUp(service, 600, 'caught up after the freeze', 180_000);

  // Killed: serve retries with backoff instead of exiting, and says so.
  await killThenRestart(service, proxy, 'kafka', () => produce(topic, records(600, 300), direct));
  await caughtUp(service, 900, 'caught up after the broker came back', 180_000);
  await expectOutageEndedThenStop(service, 'kafka', 4_000);
  expect(await landedIds(pipeline, namespace)).toEqual(idsUpTo(900));
}, 900_000);
