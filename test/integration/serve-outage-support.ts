/**
 * For the tests that stage outages under `thund serve` (the built CLI): the records they produce,
 * the pipeline file they serve, probes that must answer within 1 s, waiting for a condition, the
 * rows serve reports written, the log lines it wrote, and the ids the table holds afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { openCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { OUTAGE_STARTED } from '../../src/app/serve/outage.js';
import type { ServeStatusReport } from '../../src/app/serve/serve-status.js';
import type { ServeProcess } from './kafka-eo-support/serve-process.js';
import { liveTableRows } from './kafka-pipelines/pipeline-tables.js';

/** A test's folder, the serve process it started and what else it started (proxies, a broker), all stopped and removed after it. */
export interface OutagePlace {
  work: string;
  running: ServeProcess | undefined;
  /** Run after the test, last added first. */
  cleanups: Array<() => unknown>;
}

export function outagePerTest(prefix: string): OutagePlace {
  const place: OutagePlace = { work: '', running: undefined, cleanups: [] };
  beforeEach(() => {
    place.work = mkdtempSync(join(tmpdir(), prefix));
    place.running = undefined;
    place.cleanups = [];
  });
  afterEach(async () => {
    place.running?.kill('SIGKILL');
    for (const cleanup of place.cleanups.reverse()) await cleanup();
    rmSync(place.work, { recursive: true, force: true });
  });
  return place;
}

/** Records `from` … `from + count - 1`, keyed and spread over `partitions` partitions by id. */
export const outageRecords = (from: number, count: number, partitions = 2) =>
  Array.from({ length: count }, (_, i) => ({ key: String(from + i), value: JSON.stringify({ id: from + i, amount: (from + i) % 97 }), partition: (from + i) % partitions }));

/** A pipeline landing `topic` into `namespace.orders` (id, amount), with these catalog and storage blocks. */
export function writeOutagePipeline(work: string, blocks: { readonly catalog: string; readonly storage: string; readonly topic: string; readonly brokers: string; readonly namespace: string }): string {
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(
    pipeline,
    `pipeline: outage
catalog: ${blocks.catalog}
${blocks.storage}sources:
  orders:
    format: kafka
    topic: ${blocks.topic}
    bootstrap_servers: "${blocks.brokers}"
tables:
  ${blocks.namespace}.orders:
    kind: streaming_table
    sql: SELECT id, amount FROM STREAM(orders)
`,
  );
  return pipeline;
}

/** Every probe answers within 1 s; the /readyz answer. */
export async function probes(service: ServeProcess): Promise<{ ready: number; reasons: string[] }> {
  let ready = { ready: 0, reasons: [] as string[] };
  for (const path of ['/healthz', '/readyz', '/metrics', '/status']) {
    const started = performance.now();
    const answer = await service.get(path);
    expect(performance.now() - started, `${path} answered in`).toBeLessThan(1_000);
    if (path === '/healthz') expect(answer.status, 'liveness').toBe(200);
    if (path === '/readyz') ready = { ready: answer.status, reasons: (JSON.parse(answer.body) as { reasons: string[] }).reasons };
  }
  return ready;
}

export async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The rows serve reports its flow wrote since it started. */
export async function rowsWritten(service: ServeProcess): Promise<number> {
  return (JSON.parse((await service.get('/status')).body) as ServeStatusReport).flows[0]?.rowsWritten ?? 0;
}

/** Waits until serve has written `rows` rows and says it is ready. */
export async function caughtUp(service: ServeProcess, rows: number, what: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(what, timeoutMs, async () => ((await rowsWritten(service)) >= rows && (await probes(service)).ready === 200 ? true : undefined));
}

export const logLines = (service: ServeProcess, msg: string | RegExp): Array<Record<string, unknown>> =>
  service.logs.filter((line) => (typeof msg === 'string' ? line['msg'] === msg : msg.test(String(line['msg']))));

export { OUTAGE_STARTED };

/**
 * Once a probed dependency froze: /readyz turns 503 naming it while the probes keep answering,
 * and the probe that got no answer starts the outage, while the trigger under way may still wait.
 */
export async function frozenProbeOutage(service: ServeProcess, dependency: 'kafka' | 'catalog'): Promise<void> {
  await waitFor(`readyz 503 naming ${dependency}`, 30_000, async () => {
    const state = await probes(service);
    return state.ready === 503 && state.reasons.includes(dependency) ? state : undefined;
  });
  const outage = await waitFor('the freeze logged as an outage', 15_000, async () => logLines(service, OUTAGE_STARTED).at(-1));
  expect(outage).toMatchObject({ level: 'warn', dependency, code: 'PROBE' });
}

/**
 * Kills the service behind `proxy` (connections reset, then refused) and produces meanwhile; once
 * serve logged a new outage of `dependency` and /readyz names it, keeps it down 5 s more, then
 * restarts it.
 */
export async function killThenRestart(service: ServeProcess, proxy: { kill(): Promise<void>; restart(): Promise<void> }, dependency: string, produceMeanwhile: () => Promise<void>): Promise<void> {
  const outagesBefore = logLines(service, OUTAGE_STARTED).length;
  await proxy.kill();
  await produceMeanwhile();
  const outage = await waitFor(`the killed ${dependency} logged`, 120_000, async () => logLines(service, OUTAGE_STARTED)[outagesBefore]);
  expect(outage).toMatchObject({ level: 'warn', dependency });
  expect((await probes(service)).reasons).toContain(dependency);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await proxy.restart();
}

/** The last outage ended on `dependency` after at least `minMs`, serve never failed, and it stops cleanly on SIGTERM. */
export async function expectOutageEndedThenStop(service: ServeProcess, dependency: string, minMs: number): Promise<void> {
  const ended = logLines(service, 'outage ended').at(-1);
  expect(ended).toMatchObject({ level: 'info', dependency });
  expect(Number(ended?.['lastedMs'])).toBeGreaterThanOrEqual(minMs);
  expect(logLines(service, 'thund serve failed')).toHaveLength(0);
  service.kill('SIGTERM');
  expect((await service.exited).code).toBe(0);
}

/** The ids `namespace.orders` holds, in order, read through a catalog opened from the pipeline file. */
export async function landedIds(pipeline: string, namespace: string): Promise<number[]> {
  const opened = await openCatalog(await loadConnectionFile(pipeline));
  try {
    const rows = await liveTableRows(opened, { namespace: [namespace], name: 'orders' }, 'id', 'id');
    return rows.map((row) => Number(row[0]));
  } finally {
    await opened.close();
  }
}

export const idsUpTo = (count: number): number[] => Array.from({ length: count }, (_, id) => id);

/** What a failed test prints: the service's last log lines and its stderr. */
export function lastWords(service: ServeProcess, lines = 40): string {
  return `serve's last log lines:\n${service.logs.slice(-lines).map((line) => JSON.stringify(line)).join('\n')}\nstderr: ${service.stderr.slice(-4_000)}`;
}
