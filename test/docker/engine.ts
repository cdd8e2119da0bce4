/**
 * The Docker engine the image scripts talk to: DOCKER_HOST when set (with `docker` on PATH, or
 * THUND_DOCKER_CLI), else the private engine of test/docker/engine.sh (root), started if needed
 * and driven by its own client, /usr/bin/docker.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from '../stack/process.js';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface DockerEngine {
  /** unix://… or tcp://… */
  readonly host: string;
  /** The client binary. */
  readonly cli: string;
}

let engine: DockerEngine | undefined;

export function dockerEngine(): DockerEngine {
  if (engine !== undefined) return engine;
  const given = process.env['DOCKER_HOST'];
  if (given !== undefined && given !== '') {
    engine = { host: given, cli: process.env['THUND_DOCKER_CLI'] ?? 'docker' };
    return engine;
  }
  const started = spawnSync('bash', ['test/docker/engine.sh', 'start'], { cwd: REPO, encoding: 'utf8', timeout: 15 * 60_000 });
  const host = /DOCKER_HOST=(\S+)/.exec(started.stdout ?? '')?.[1];
  if (started.status !== 0 || host === undefined) {
    throw new StackError(`test/docker/engine.sh start failed (exit ${started.status}):\n${tail(started)}`);
  }
  engine = { host, cli: process.env['THUND_DOCKER_CLI'] ?? '/usr/bin/docker' };
  return engine;
}

/** Runs the engine's client to completion (no shell); output captured. */
export function docker(args: readonly string[], timeoutMs = 600_000): SpawnSyncReturns<string> {
  const { host, cli } = dockerEngine();
  return spawnSync(cli, [...args], { cwd: REPO, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, DOCKER_HOST: host } });
}

/** Like docker(), failing with the command's output tail when it exits non-zero. */
export function dockerOk(args: readonly string[], timeoutMs?: number): string {
  const result = docker(args, timeoutMs);
  expectOk(result, `docker ${args.slice(0, 3).join(' ')}`);
  return result.stdout;
}

export function tail(result: SpawnSyncReturns<string>, lines = 40): string {
  return `${result.stdout ?? ''}\n${result.stderr ?? ''}`.trim().split('\n').slice(-lines).join('\n');
}

/** Fails with `what` and the output's tail when the command exited non-zero. */
export function expectOk(result: SpawnSyncReturns<string>, what: string): void {
  if (result.status !== 0) {
    throw new StackError(`${what} failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${tail(result)}`);
  }
}

/** `docker(…)` and any command run with the engine's DOCKER_HOST, each one's time kept for a closing summary. */
export function timedRunner(): { run(command: string, args: readonly string[], options?: { timeout?: number; env?: Record<string, string>; label?: string }): SpawnSyncReturns<string>; docker(args: readonly string[], timeout?: number): SpawnSyncReturns<string>; readonly timings: string[] } {
  const timings: string[] = [];
  const timed = <T>(label: string, call: () => T): T => {
    const started = Date.now();
    try {
      return call();
    } finally {
      timings.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  };
  return {
    timings,
    run: (command, args, options = {}) =>
      timed(options.label ?? [command.split('/').pop(), ...args.slice(0, 2)].join(' '), () =>
        spawnSync(command, [...args], { cwd: REPO, encoding: 'utf8', timeout: options.timeout ?? 1_800_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, DOCKER_HOST: dockerEngine().host, ...options.env } }),
      ),
    docker: (args, timeout) => timed(['docker', ...args.slice(0, 2)].join(' '), () => docker(args, timeout ?? 1_800_000)),
  };
}
