/**
 * The status page of `thund serve` (the built CLI) seen as an operator sees it: headless Chromium
 * (Debian's package, test/stack/chromium.sh) loads GET / while the service runs a Kafka pipeline
 * that landed a topic, a record that is not JSON among it. Every value the page shows is the
 * value GET /status reports — the flow's commits and rows, each partition's end offset, position
 * and lag, the dead letter and its reason, the table's records, files and snapshots — and the
 * screenshot is a real rendered page.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ServeStatusReport } from '../../src/app/serve/serve-status.js';
import { pageCells, reportValue } from '../support/status-page-cells.js';
import { ServeProcess } from './kafka-eo-support/serve-process.js';
import { produce } from './kafka-pipelines/debezium-topic.js';
import { brokers, createTopic } from './kafka-support/sink-readback.js';

const GOOD = 120;

let work: string;
let running: ServeProcess | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-status-page-'));
});
afterEach(() => {
  running?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Chromium renders the page: its DOM after load, and a PNG screenshot. */
async function render(chromium: string, url: string, screenshot: string): Promise<string> {
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars', `--user-data-dir=${join(work, 'chromium')}`];
  await promisify(execFile)(chromium, [...flags, `--screenshot=${screenshot}`, '--window-size=1400,1000', url], { timeout: 60_000 });
  const { stdout } = await promisify(execFile)(chromium, [...flags, '--dump-dom', url], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function status(service: ServeProcess): Promise<ServeStatusReport> {
  const answer = await service.get('/status');
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as ServeStatusReport;
}

it('shows in headless Chromium the live numbers /status reports: flow, partitions, dead letter, table', async () => {
  const chromium = execFileSync('bash', [join(import.meta.dirname, '../stack/chromium.sh')], { encoding: 'utf8' }).trim();
  const topic = await createTopic('thund-status', 2);
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(
    pipeline,
    `pipeline: status_page
catalog: { type: sql, warehouse: warehouse }
sources:
  orders:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
tables:
  lake.orders:
    kind: streaming_table
    sql: SELECT id, amount FROM STREAM(orders)
`,
  );
  running = await ServeProcess.startPipeline(pipeline, { triggerIntervalMs: 300 });
  await running.waitReady(60_000);
  const records = Array.from({ length: GOOD }, (_, id) => ({ key: String(id), value: JSON.stringify({ id, amount: id * 3 }), partition: id % 2 }));
  await produce(topic, [...records.slice(0, 60), { key: 'bad', value: '{"id": 7, "amount": <oops>', partition: 1 }, ...records.slice(60)]);

  // Caught up: every record read, the dead letter counted, and the table's metadata read after the last commit.
  const deadline = Date.now() + 120_000;
  let before = await status(running);
  const caughtUp = (report: ServeStatusReport): boolean =>
    report.flows[0]!.rowsWritten === GOOD &&
    report.deadLetters.total === 1 &&
    report.sources.length === 2 &&
    report.sources.every((p) => p.lag === 0) &&
    report.tables[0]!.records === GOOD;
  while (!caughtUp(before)) {
    if (Date.now() > deadline) throw new Error(`serve did not catch up: ${JSON.stringify(before)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    before = await status(running);
  }
  const screenshot = join(work, 'status.png');
  const dom = await render(chromium, `http://127.0.0.1:${running.port}/`, screenshot);
  const after = await status(running);

  // What the page shows is what /status reports just before or just after it. Triggers go on, so
  // a flow's state may flip to running and back between the three reads; the numbers of a
  // caught-up service stand still.
  const cells = pageCells(dom);
  const flips = (key: string): boolean => ['now', 'triggers/total'].includes(key) || /^flows\/[^/]+\/state$/.test(key);
  const keys = [...cells.keys()].filter((key) => !flips(key));
  expect(keys.length).toBeGreaterThan(30);
  expect(cells.get('flows/lake.orders/state')).toMatch(/^(idle|running)$/);
  for (const key of keys) expect([reportValue(before, key), reportValue(after, key)], key).toContain(cells.get(key));
  for (const key of keys.filter((k) => /rowsWritten|records|lag|deadLetters|endOffset|position/.test(k))) expect(cells.get(key), key).toBe(reportValue(after, key));
  expect(Number(cells.get('triggers/total'))).toBeGreaterThanOrEqual(before.triggers.total);

  expect(after.ready).toBe(true);
  expect(cells.get('ready')).toBe('ready');
  expect(after.flows).toMatchObject([{ name: 'lake.orders', state: expect.stringMatching(/idle|running/), rowsWritten: GOOD, lastError: null }]);
  expect(after.sources.map((p) => [p.partition, p.endOffset, p.position, p.lag])).toEqual([
    [0, '60', '60', 0],
    [1, '61', '61', 0],
  ]);
  expect(after.deadLetters.recent).toMatchObject([{ topic, partition: 1, offset: '30' }]);
  expect(cells.get('deadLetters/recent/0/reason')).toBe(after.deadLetters.recent[0]!.reason);
  expect(after.deadLetters.recent[0]!.reason).toMatch(/JSON/i);
  expect(after.tables).toMatchObject([{ table: 'lake.orders', records: GOOD, deleteFiles: 0 }]);
  expect(after.tables[0]!.snapshots).toBeGreaterThanOrEqual(1);
  expect(cells.get('tables/lake.orders/dataFiles')).toBe(String(after.tables[0]!.dataFiles));

  // A rendered page: a PNG of the window's size, with more than a blank page's bytes.
  const png = readFileSync(screenshot);
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(png.readUInt32BE(16)).toBe(1400);
  expect(png.length).toBeGreaterThan(20_000);

  running.kill('SIGTERM');
  expect((await running.exited).code).toBe(0);
}, 300_000);
