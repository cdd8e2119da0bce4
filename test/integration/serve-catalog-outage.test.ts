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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import type { ServeStatusReport } from '../../src/app/serve/serve-status.js';
import { TEST_S3_STORAGE_BLOCK } from '../stack/s3-env.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { liveTableRows } from './kafka-pipelines/pipeline-tables.js';
import { requireServiceEnv } from '../stack/service.js';
import { brokers, createTopic } from './kafka-support/sink-readback.js';
import { TcpFreezeProxy } from './tcp-freeze-proxy.js';

const REST_URI = requireServiceEnv('THUND_TEST_REST_URI');

let work: string;
let proxy: TcpFreezeProxy | undefined;
let running: ServeProcess | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-catalog-outage-'));
});
afterEach(async () => {
  running?.kill('SIGKILL');
  await proxy?.close();
  rmSync(work, { recursive: true, force: true });
});

const records = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ key: String(from + i), value: JSON.stringify({ id: from + i, amount: (from + i) % 97 }), partition: (from + i) % 2 }));

/** Every probe answers within 1 s; the /readyz answer. */
async function probes(service: ServeProcess): Promise<{ ready: number; reasons: string[] }> {
  let ready = { ready: 0, reasons: [] as string[] };
  for (const path of ['/healthz', '/readyz', '/metrics', '/status']) {
    const started = performance.now();
    const answer = await service.get(path);
    expect(performance.now() - started, `${path} answered in`).toBeLessThan(1_000);
    if (path === '/readyz') ready = { ready: answer.status, reasons: (JSON.parse(answer.body) as { reasons: string[] }).reasons };
  }
  return ready;
}

async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

it('answers its probes at once and rides out a frozen and a killed catalog, landing every record once', async () => {
  proxy = await TcpFreezeProxy.start(REST_URI);
  const topic = await createTopic('thund-outage', 2);
  const namespace = `outage_${randomUUID().slice(0, 8)}`;
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(
    pipeline,
    `pipeline: catalog_outage
catalog: { type: rest, uri: "${proxy.url(REST_URI)}" }
${TEST_S3_STORAGE_BLOCK}sources:
  orders:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
tables:
  ${namespace}.orders:
    kind: streaming_table
    sql: SELECT id, amount FROM STREAM(orders)
`,
  );
  const service = (running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 500 }));
  await service.waitReady(90_000);
  const written = async (): Promise<number> => ((JSON.parse((await service.get('/status')).body) as ServeStatusReport).flows[0]?.rowsWritten ?? 0);
  await produce(topic, records(0, 400));
  await waitFor('the first records landed', 60_000, async () => ((await written()) >= 400 ? true : undefined));

  // Frozen: the probes keep answering, and say why the service is not ready.
  proxy.freeze();
  await produce(topic, records(400, 400));
  const frozen = await waitFor('readyz 503 for the catalog', 30_000, async () => {
    const state = await probes(service);
    return state.ready === 503 && state.reasons.includes('catalog') ? state : undefined;
  });
  expect(frozen.reasons).toContain('catalog');
  for (let i = 0; i < 4; i += 1) await probes(service);
  proxy.thaw();
  await waitFor('caught up after the freeze', 120_000, async () => ((await written()) >= 800 && (await probes(service)).ready === 200 ? true : undefined));

  // Killed: the triggers fail fast; serve retries with backoff instead of exiting, and says so.
  await proxy.kill();
  await produce(topic, records(800, 400));
  await waitFor('the outage logged', 60_000, async () => (service.logs.some((line) => line['msg'] === 'outage: a trigger failed on a dependency; retrying with backoff') ? true : undefined));
  expect((await probes(service)).ready).toBe(503);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await proxy.restart();
  await waitFor('caught up after the catalog came back', 120_000, async () => ((await written()) >= 1_200 && (await probes(service)).ready === 200 ? true : undefined));
  const started = service.logs.filter((line) => line['msg'] === 'outage: a trigger failed on a dependency; retrying with backoff');
  const ended = service.logs.filter((line) => line['msg'] === 'outage ended');
  expect(started.length).toBeGreaterThanOrEqual(1);
  expect(started.at(-1)).toMatchObject({ level: 'warn', dependency: 'catalog' });
  expect(ended.at(-1)).toMatchObject({ level: 'info', dependency: 'catalog' });
  expect(Number(ended.at(-1)!['lastedMs'])).toBeGreaterThanOrEqual(4_000);
  expect(service.logs.some((line) => line['msg'] === 'thund serve failed')).toBe(false);

  service.kill('SIGTERM');
  expect((await service.exited).code).toBe(0);
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const rows = await liveTableRows(opened, { namespace: [namespace], name: 'orders' }, 'id', 'id');
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 1_200 }, (_, id) => id));
  } finally {
    await opened.close();
  }
}, 600_000);
