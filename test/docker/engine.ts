/**
 * The Docker engine the image, compose and containers lanes drive: DOCKER_HOST when it is set,
 * otherwise the private engine test/docker/engine.sh starts (root; see DESIGN.md "Docker here"),
 * driven by its own client (the same API version as its dockerd).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENGINE_START_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_TIMEOUT_MS = 30 * 60_000;

export interface DockerEngine {
  readonly host: string;
  /** Whether this process started it (and so stops it). */
  readonly started: boolean;
  readonly cli: string;
}

/** `command args…` in the repository with the engine's DOCKER_HOST, each one's time kept in `timings`. */
export interface Runner {
  run(command: string, args: readonly string[], options?: { timeout?: number; env?: Record<string, string> }): SpawnSyncReturns<string>;
  docker(args: readonly string[], timeout?: number): SpawnSyncReturns<string>;
  readonly timings: string[];
  readonly engine: DockerEngine;
  stopEngine(): void;
}

export function dockerRunner(): Runner {
  const timings: string[] = [];
  let engine: DockerEngine | undefined;
  const run: Runner['run'] = (command, args, options = {}) => {
    const started = Date.now();
    const result = spawnSync(command, [...args], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...(engine === undefined ? {} : { DOCKER_HOST: engine.host }), ...options.env },
    });
    timings.push(`${[command.split('/').pop(), ...args.slice(0, 2)].join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  const startEngine = (): DockerEngine => {
    const host = process.env['DOCKER_HOST'] ?? '';
    if (host !== '') return { host, started: false, cli: process.env['THUND_DOCKER_CLI'] ?? 'docker' };
    const started = run('bash', ['test/docker/engine.sh', 'start'], { timeout: ENGINE_START_TIMEOUT_MS });
    expectOk(started, 'test/docker/engine.sh start');
    const found = /DOCKER_HOST=(\S+)/.exec(started.stdout)?.[1];
    if (found === undefined) throw new Error(`test/docker/engine.sh start printed no DOCKER_HOST:\n${started.stdout}`);
    return { host: found, started: true, cli: process.env['THUND_DOCKER_CLI'] ?? '/usr/bin/docker' };
  };
  return {
    run,
    timings,
    get engine() {
      engine ??= startEngine();
      return engine;
    },
    docker(args, timeout) {
      const { cli } = this.engine;
      return run(cli, args, { timeout: timeout ?? DEFAULT_TIMEOUT_MS });
    },
    stopEngine() {
      if (engine?.started === true) run('bash', ['test/docker/engine.sh', 'stop'], { timeout: 60_000 });
    },
  };
}

export function expectOk(result: SpawnSyncReturns<string>, what: string): void {
  if (result.status !== 0) {
    const tail = `${result.stdout ?? ''}\n${result.stderr ?? ''}`.split('\n').slice(-40).join('\n');
    throw new Error(`${what} failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${tail}`);
  }
}
