/**
 * What crashed runs leave behind — staging folders in a table's data folder, checkpoint folders
 * of a streaming flow — is removed by the next run, and only that: a folder whose owner is a live
 * process (a concurrent run), or that is recent and cannot be told apart, stays.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownedName } from '../../src/write/owned-folders.js';
import { REPO, thund } from './cli.js';

const TWO_DAYS_MS = 2 * 24 * 60 * 60 * 1000;

let work: string;
let warehouse: string;
let concurrentRun: ChildProcess;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-leftovers-'));
  warehouse = join(work, 'warehouse');
  mkdirSync(join(work, 'data'));
  copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders-1.parquet'));
  // Stands for a concurrent run on this host: alive for the whole test.
  concurrentRun = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
});

afterEach(() => {
  concurrentRun.kill();
  rmSync(work, { recursive: true, force: true });
});

/** A pid that belonged to a process of this host that has exited (a crashed run). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function folderWithFile(parent: string, name: string, file: string, ageMs = 0): string {
  const folder = join(parent, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, file), 'left behind');
  if (ageMs > 0) setAge(folder, file, ageMs);
  return name;
}

function setAge(folder: string, file: string, ageMs: number): void {
  const then = new Date(Date.now() - ageMs);
  utimesSync(join(folder, file), then, then);
  utimesSync(folder, then, then);
}

function run(spec: string): void {
  const result = thund(['run', spec, '--warehouse', warehouse]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}

function writeSpec(lines: string[]): string {
  const file = join(work, 'pipeline.yaml');
  writeFileSync(file, ['pipeline: leftovers', 'sources:', '  orders: { format: parquet, path: "data/*.parquet" }', ...lines, ''].join('\n'));
  return file;
}

describe('the next run removes what crashed runs left', () => {
  it('removes abandoned staging folders in the data folder and keeps a live run’s', () => {
    const spec = writeSpec(['tables:', '  lake.orders: { mode: append, sql: SELECT * FROM orders }']);
    run(spec);
    const data = join(warehouse, 'lake/orders/data');
    const dataFiles = readdirSync(data).filter((name) => name.endsWith('.parquet'));

    const crashed = folderWithFile(data, `.thund-staging-${ownedName(randomUUID(), deadPid())}`, 'part-0.parquet');
    const live = folderWithFile(data, `.thund-staging-${ownedName(randomUUID(), concurrentRun.pid)}`, 'part-0.parquet');
    const oldUnowned = folderWithFile(data, `.thund-staging-${randomUUID()}`, 'part-0.parquet', TWO_DAYS_MS);
    const recentUnowned = folderWithFile(data, `.thund-staging-${randomUUID()}`, 'part-0.parquet');
    const otherHostOld = folderWithFile(data, `.thund-staging-4242-elsewhere-${randomUUID()}`, 'part-0.parquet', TWO_DAYS_MS);
    const otherHostRecent = folderWithFile(data, `.thund-staging-4242-elsewhere-${randomUUID()}`, 'part-0.parquet');

    // The next run that writes into the data folder clears it.
    copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders-2.parquet'));
    run(spec);
    const left = readdirSync(data).filter((name) => name.startsWith('.thund-staging-'));
    expect(left.sort()).toEqual([live, recentUnowned, otherHostRecent].sort());
    expect(left).not.toContain(crashed);
    expect(left).not.toContain(oldUnowned);
    expect(left).not.toContain(otherHostOld);
    const newDataFiles = readdirSync(data).filter((name) => name.endsWith('.parquet'));
    expect(newDataFiles.length).toBeGreaterThan(dataFiles.length);
    for (const file of dataFiles) expect(newDataFiles).toContain(file);
  });

  it('removes superseded and orphaned checkpoint folders of dead runs and keeps a live run’s', () => {
    const spec = writeSpec(['tables:', '  lake.events:', '    kind: streaming_table', '    sql: SELECT * FROM STREAM(orders)']);
    run(spec);
    const checkpoints = join(warehouse, 'lake/events/thund-checkpoints/lake.events');
    const [committed] = readdirSync(checkpoints);
    expect(committed).toBeDefined();
    const committedAt = statSync(join(checkpoints, committed as string)).mtimeMs;
    const olderThanCommitted = Date.now() - committedAt + 60_000;

    // A crash after a commit, before the folder it replaced was removed.
    const superseded = folderWithFile(checkpoints, ownedName(randomUUID(), deadPid()), 'checkpoint.json', olderThanCommitted);
    // A crash before the commit: a complete folder no snapshot points to.
    const orphan = folderWithFile(checkpoints, ownedName(randomUUID(), deadPid()), 'checkpoint.json');
    // A concurrent run writing its checkpoint right now.
    const live = folderWithFile(checkpoints, ownedName(randomUUID(), concurrentRun.pid), 'checkpoint.json');
    // Without an owner in its name and recent: cannot be told from a live one, so it stays.
    const recentUnowned = folderWithFile(checkpoints, randomUUID(), 'checkpoint.json', olderThanCommitted);

    copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders-2.parquet'));
    run(spec);
    const left = readdirSync(checkpoints);
    const newCommitted = left.filter((name) => ![committed, superseded, orphan, live, recentUnowned].includes(name));
    expect(newCommitted).toHaveLength(1);
    expect(left.sort()).toEqual([...newCommitted, live, recentUnowned].sort());
  });
});
