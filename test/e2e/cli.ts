/**
 * Runs the built `thund` CLI (dist/) as a user would, and small readers for what it wrote.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { parseJson } from '../../src/iceberg/json.js';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(REPO, 'dist/bin/thund.js');

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function thund(args: readonly string[], cwd = REPO, env: Readonly<Record<string, string>> = {}): CliResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, THUND_DEBUG: '', ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As thund(), without blocking this process: for tests whose servers run in it. */
export function thundAsync(args: readonly string[], cwd = REPO, env: Readonly<Record<string, string>> = {}): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, THUND_DEBUG: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface InspectReport {
  readonly rowCount: bigint | number;
  readonly currentSnapshotId: bigint | number | null;
  readonly metadataLocation: string;
  readonly snapshots: { snapshotId: bigint | number; parentSnapshotId: bigint | number | null; sequenceNumber: bigint | number; summary: Record<string, string> }[];
  readonly dataFiles: { path: string; recordCount: bigint | number; fileSizeInBytes: bigint | number }[];
}

export function inspect(table: string, warehouse: string): InspectReport {
  const result = thund(['inspect', table, '--warehouse', warehouse, '--json']);
  if (result.status !== 0) throw new Error(`thund inspect failed (${result.status}): ${result.stderr}`);
  return parseJson(result.stdout, 'thund inspect --json') as InspectReport;
}

/** Every regular file under a folder (relative paths), for "nothing was left behind" checks. */
export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(full.slice(root.length + 1));
    }
  };
  walk(root);
  return out.sort();
}

/**
 * A temporary folder holding the quickstart's input as `data/orders.parquet`, made before the
 * calling file's tests and removed after them; call at the top level of a test file.
 */
export function ordersWorkdir(prefix: string): () => string {
  let work: string | undefined;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), prefix));
    mkdirSync(join(work, 'data'));
    copyFileSync(join(REPO, 'examples/quickstart/data/orders.parquet'), join(work, 'data/orders.parquet'));
  });
  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });
  return () => {
    if (work === undefined) throw new Error('ordersWorkdir: used outside a test');
    return work;
  };
}
