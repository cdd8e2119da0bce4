/**
 * The stack's per-run folders: a run's service data goes when the run stops, the folders of runs
 * that died without stopping lose their data at the next start, only the newest runs keep logs,
 * and a live run's folder is never touched.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEPT_RUN_LOGS, pruneFinishedRuns, removeRunData } from '../../stack/run-folders.js';

let cache: string;
const savedCache = process.env['THUND_CACHE'];

beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), 'thund-run-folders-'));
  process.env['THUND_CACHE'] = cache;
});

afterEach(() => {
  if (savedCache === undefined) delete process.env['THUND_CACHE'];
  else process.env['THUND_CACHE'] = savedCache;
  rmSync(cache, { recursive: true, force: true });
});

/** A run folder as the stack leaves it: service data, logs and the env file. */
function makeRun(pid: number, ageSeconds = 0): string {
  const folder = join(cache, 'stack-runs', String(pid));
  mkdirSync(join(folder, 'kafka-9092', 'logs'), { recursive: true });
  mkdirSync(join(folder, 'minio-9000', 'data'), { recursive: true });
  mkdirSync(join(folder, 'logs'), { recursive: true });
  writeFileSync(join(folder, 'kafka-9092', 'logs', 'segment'), 'x'.repeat(1000));
  writeFileSync(join(folder, 'logs', 'kafka.log'), 'started');
  writeFileSync(join(folder, 'stack.env'), "export X='1'\n");
  const when = Date.now() / 1000 - ageSeconds;
  utimesSync(join(folder, 'logs'), when, when);
  return folder;
}

/** A pid that no process has: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('stack run folders', () => {
  it('removes a stopped run’s service data and keeps its logs', () => {
    const folder = makeRun(process.pid);
    removeRunData(folder);
    expect(readdirSync(folder)).toEqual(['logs']);
    expect(readdirSync(join(folder, 'logs'))).toEqual(['kafka.log']);
  });

  it('prunes runs that died without stopping, keeps the newest logs, never touches a live run', async () => {
    const live = makeRun(process.pid);
    const dead: string[] = [];
    for (let i = 0; i < KEPT_RUN_LOGS + 2; i++) dead.push(makeRun(await deadPid(), (i + 1) * 60));

    const removed = pruneFinishedRuns(-1);

    expect(readdirSync(live).sort()).toEqual(['kafka-9092', 'logs', 'minio-9000', 'stack.env']);
    expect(removed.sort()).toEqual(dead.slice(KEPT_RUN_LOGS).sort());
    for (const folder of dead.slice(0, KEPT_RUN_LOGS)) expect(readdirSync(folder)).toEqual(['logs']);
    for (const folder of dead.slice(KEPT_RUN_LOGS)) expect(existsSync(folder)).toBe(false);
  });
});
