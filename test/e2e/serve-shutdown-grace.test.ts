/**
 * `thund serve` stops within its shutdown grace time: SIGTERM while a batch is in progress that
 * cannot finish in time (its query runs on for minutes) exits 0 after --shutdown-grace-ms with a
 * line saying the batch was left behind, and nothing of that batch is committed; a batch that
 * finishes in time is committed and the service says it stopped.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { REPO } from './cli.js';
import { openCatalog } from '../../src/app/api/catalog-handle.js';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-serve-grace-'));
  copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'orders.parquet'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

interface Stopped {
  readonly code: number | null;
  readonly logs: Record<string, unknown>[];
  /** From SIGTERM to exit. */
  readonly stopMs: number;
}

/** Serves `sql` over the orders file; SIGTERM once the service has started and `waitMs` passed. */
async function serveAndStop(sql: string, graceMs: number, waitMs: number): Promise<Stopped> {
  const pipeline = join(work, 'pipeline.yaml');
  writeFileSync(
    pipeline,
    `pipeline: grace\ncatalog: { type: sql, warehouse: warehouse }\nsources:\n  orders: { format: parquet, path: orders.parquet }\ntables:\n  lake.orders:\n    kind: streaming_table\n    sql: ${sql}\n`,
  );
  const child = spawn(process.execPath, [join(REPO, 'dist/bin/thund.js'), 'serve', pipeline, '--http-port', '0', '--shutdown-grace-ms', String(graceMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!out.includes('"thund serve started"')) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const signalled = Date.now();
  child.kill('SIGTERM');
  const code = await exited;
  return { code, stopMs: Date.now() - signalled, logs: out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) };
}

async function snapshotsOfOrders(): Promise<number> {
  const lake = await openCatalog({ catalog: { type: 'sql', warehouse: join(work, 'warehouse') } });
  try {
    return (await lake.listTables('lake')).length === 0 ? 0 : (await lake.table('lake.orders').read()).numRows;
  } finally {
    await lake.close();
  }
}

it('leaves a batch that outlasts the grace time behind: exits 0 soon after it, saying so, with nothing committed', async () => {
  // The batch's query runs for minutes: the first trigger is in progress when SIGTERM comes.
  const stopped = await serveAndStop('SELECT id, (SELECT count(*) FROM range(100000000000) a) AS n FROM STREAM(orders)', 1_500, 1_500);
  expect(stopped.code).toBe(0);
  expect(stopped.stopMs).toBeGreaterThanOrEqual(1_400);
  expect(stopped.stopMs).toBeLessThan(6_000);
  const messages = stopped.logs.map((line) => line['msg']);
  expect(messages).toContain('stopping: finishing the batch in progress');
  expect(messages.at(-1)).toBe('stopped without finishing the batch in progress: it took longer than the shutdown grace time');
  expect(stopped.logs.at(-1)).toMatchObject({ level: 'warn', graceMs: 1_500 });
  expect(messages).not.toContain('flow committed');
  expect(await snapshotsOfOrders()).toBe(0);
}, 120_000);

it('commits a batch that finishes within the grace time, then says it stopped', async () => {
  const stopped = await serveAndStop('SELECT * FROM STREAM(orders)', 30_000, 3_000);
  expect(stopped.code).toBe(0);
  const messages = stopped.logs.map((line) => line['msg']);
  expect(messages).toContain('flow committed');
  expect(messages.at(-1)).toBe('thund serve stopped');
  expect(await snapshotsOfOrders()).toBeGreaterThan(0);
}, 120_000);
