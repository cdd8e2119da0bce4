/**
 * Housekeeping of the per-run folders under the cache's `stack-runs/` (one per test run, named by
 * the pid of the process that started the stack): a run's service data (Kafka logs, MinIO objects,
 * hundreds of MB) is removed when the run stops its services, and at the next start the folders
 * of runs that are gone without that (killed, crashed) lose their data too. Logs are kept for the
 * newest runs only, for looking back at a failure. A folder whose process is alive is never touched.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './process.js';

/** How many finished runs keep their logs. */
export const KEPT_RUN_LOGS = 5;

/** Everything in a run's folder but its logs. */
export function removeRunData(folder: string): void {
  for (const entry of safeList(folder)) {
    if (entry !== 'logs') rmSync(join(folder, entry), { recursive: true, force: true });
  }
}

/**
 * Folders of runs whose process is gone: their data is removed, and all but the newest
 * `KEPT_RUN_LOGS` of them are removed whole. Returns the folders removed whole.
 */
export function pruneFinishedRuns(ownPid = process.pid): string[] {
  const root = cacheDir('stack-runs');
  const finished = safeList(root)
    .filter((name) => /^\d+$/.test(name) && Number(name) !== ownPid && !processAlive(Number(name)))
    .map((name) => join(root, name));
  for (const folder of finished) removeRunData(folder);
  const newestFirst = finished.sort((a, b) => modified(b) - modified(a));
  const removed = newestFirst.slice(KEPT_RUN_LOGS);
  for (const folder of removed) rmSync(folder, { recursive: true, force: true });
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function modified(folder: string): number {
  try {
    return statSync(join(folder, 'logs')).mtimeMs;
  } catch {
    return statSync(folder).mtimeMs;
  }
}
