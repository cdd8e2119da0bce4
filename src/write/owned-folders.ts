/**
 * Folders a run writes and removes itself (staging folders, streaming checkpoints) carry their
 * owner in their name, `<pid>-<host>-<uuid>`, so that what a crashed run left behind can be told
 * from what a live run is using. A later run removes such a folder once its owner is provably
 * gone (same host, process no longer alive) or nothing in it changed for STALE_AFTER_MS (another
 * host, a name from before owners were recorded, or a pid the system has reused).
 */
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Generous: no single write or checkpoint stays untouched this long while its run is alive. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Host names as they appear in folder names: no `-`, so the name splits unambiguously. */
export const LOCAL_HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_') || 'localhost';

const OWNED = /^(\d+)-([A-Za-z0-9._]+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export interface FolderOwner {
  readonly pid: number;
  readonly host: string;
}

/** A folder name owned by this process (or by `pid` on this host). */
export function ownedName(id: string = randomUUID(), pid: number = process.pid): string {
  return `${pid}-${LOCAL_HOST}-${id}`;
}

/** The owner a name records, if it records one. */
export function ownerOf(name: string): FolderOwner | undefined {
  const match = OWNED.exec(name);
  return match === null ? undefined : { pid: Number(match[1]), host: match[2] as string };
}

/** Whether the folder at `path` belongs to no live run. */
export async function isAbandoned(path: string, owner: FolderOwner | undefined, now: number = Date.now()): Promise<boolean> {
  if (owner !== undefined && owner.host === LOCAL_HOST && !processAlive(owner.pid)) return true;
  return now - (await lastModified(path)) > STALE_AFTER_MS;
}

/** The newest modification time of the folder and of the entries directly in it (ms). */
export async function lastModified(path: string): Promise<number> {
  let newest = (await stat(path)).mtimeMs;
  for (const entry of await readdir(path).catch(() => [])) {
    const modified = await stat(join(path, entry)).then((s) => s.mtimeMs, () => 0);
    newest = Math.max(newest, modified);
  }
  return newest;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
