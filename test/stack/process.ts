/**
 * The one mechanism every test service uses: a cache folder outside the repo, free loopback
 * ports, a child process whose output goes to a kept log file, health waits with timeouts that
 * print the log tail on failure, and a stop that kills the whole process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

export class StackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StackError';
  }
}

/** Installed artifacts (binaries, jars, venvs) live here and are reused across runs. */
export function cacheDir(...parts: string[]): string {
  const dir = join(process.env['THUND_CACHE'] ?? join(homedir(), '.cache', 'thund'), ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Where this run's service logs and data go (kept after the run for inspection). */
export function runDir(...parts: string[]): string {
  const dir = join(process.env['THUND_STACK_DIR'] ?? cacheDir('stack-runs', String(process.pid)), ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Two different free loopback ports (two calls to freePort may return the same one). */
export async function twoFreePorts(): Promise<[number, number]> {
  const first = await freePort();
  let second = await freePort();
  while (second === first) second = await freePort();
  return [first, second];
}

export interface ServiceProcess {
  readonly name: string;
  readonly logFile: string;
  readonly child: ChildProcess;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export function startProcess(options: StartOptions): ServiceProcess {
  const logFile = join(runDir('logs'), `${options.name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  const logTail = (lines = 40): string => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child.pid, 'SIGTERM');
    const killed = await Promise.race([exited.then(() => true), delay(10_000).then(() => false)]);
    if (!killed) {
      signalGroup(child.pid, 'SIGKILL');
      await exited;
    }
  };
  return { name: options.name, logFile, child, logTail, stop };
}

/** Polls `ready` until it returns true; on timeout or early exit, fails with the log's tail. */
export async function waitUntilReady(service: ServiceProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) {
      throw new StackError(`${service.name} exited with code ${service.child.exitCode} before it was ready. Log ${service.logFile}:\n${service.logTail()}`);
    }
    if (await ready().catch(() => false)) return;
    await delay(250);
  }
  await service.stop();
  throw new StackError(`${service.name} was not ready after ${timeoutMs / 1000} s. Log ${service.logFile}:\n${service.logTail()}`);
}

/** Runs an install step to completion, its output in a log; fails with the log's tail. */
export async function runStep(name: string, command: string, args: readonly string[], options: { cwd?: string; env?: Readonly<Record<string, string>> } = {}): Promise<void> {
  const step = startProcess({ name: `install-${name}`, command, args, ...options });
  const code = await new Promise<number | null>((resolve) => step.child.once('exit', (exitCode) => resolve(exitCode)));
  if (code !== 0) throw new StackError(`${name} failed with code ${code}. Log ${step.logFile}:\n${step.logTail(60)}`);
}

export async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
