/**
 * vitest global setup of the `services` project (see vitest.config.ts): starts every test service
 * once per run, publishes their THUND_TEST_* variables through process.env (the forks pool starts
 * its workers after this and inherits it), prints one summary line per service, and stops them all
 * at teardown. If any service fails, the ones that did start are stopped and the run fails.
 *
 * THUND_STACK picks where the services come from, in this one place:
 *   none        start nothing (`npm run test:unit`); tests then take THUND_TEST_* from the
 *               environment (e.g. `source` the file `npm run stack:up` writes) or fail
 *   containers  testcontainers (needs a Docker engine; test/stack/containers.ts)
 *   local       (default) local processes on loopback (test/stack/*.ts)
 * The default is deliberately not "containers when a Docker engine answers": the same machine
 * then always runs the same thing, and a half-working Docker socket cannot change a CI result.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKafka } from './kafka.js';
import { startMinio, type RunningMinio } from './minio.js';
import { startMoto } from './moto.js';
import { startNessie } from './nessie.js';
import { runDir, StackError } from './process.js';
import { startRestCatalog, type RunningRestCatalog } from './rest-catalog.js';
import { pruneFinishedRuns, removeRunData } from './run-folders.js';
import { summaryLine, type RunningService } from './service.js';

export type StackMode = 'none' | 'local' | 'containers';

export function stackMode(value = process.env['THUND_STACK']): StackMode {
  if (value === undefined || value === '' || value === 'local') return 'local';
  if (value === 'none' || value === 'containers') return value;
  throw new StackError(`THUND_STACK=${value} is not one of none, local, containers`);
}

interface Starters {
  startMinio(): Promise<RunningMinio>;
  startRestCatalog(minio: RunningMinio): Promise<RunningRestCatalog>;
  startNessie(minio: RunningMinio): Promise<RunningService>;
  startKafka(): Promise<RunningService>;
  startMoto(): Promise<RunningService>;
  close(): Promise<void>;
}

async function starters(mode: 'local' | 'containers'): Promise<Starters> {
  // Loaded only when asked for, so a local run never loads the Docker client.
  if (mode === 'containers') return (await import('./containers.js')).containerStack();
  return { startMinio, startRestCatalog, startNessie, startKafka, startMoto, close: async () => {} };
}

/** Starts all services (independent ones in parallel); on any failure stops the rest and throws. */
export async function startStack(mode: 'local' | 'containers'): Promise<{ services: RunningService[]; stop: () => Promise<void> }> {
  const from = await starters(mode);
  const services: RunningService[] = [];
  const track = async <T extends RunningService>(starting: Promise<T>): Promise<T> => {
    const service = await starting;
    services.push(service);
    return service;
  };
  const stop = async (): Promise<void> => {
    await Promise.allSettled(services.map((service) => service.stop()));
    await from.close();
  };

  const results = await Promise.allSettled([
    track(from.startMinio()).then(async (minio) => {
      // Both settle before a failure is reported, so `stop` sees every catalog that came up.
      const catalogs = await Promise.allSettled([track(from.startRestCatalog(minio)), track(from.startNessie(minio))]);
      for (const catalog of catalogs) if (catalog.status === 'rejected') throw catalog.reason;
    }),
    track(from.startKafka()),
    track(from.startMoto()),
  ]);
  const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failures.length > 0) {
    await stop();
    const reasons = failures.map((failure) => (failure.reason instanceof Error ? failure.reason.message : String(failure.reason)));
    throw new StackError(`test stack (${mode}) did not come up; stopped ${services.length} service(s) that had started:\n${reasons.join('\n\n')}`);
  }
  return { services, stop };
}

/** Where a service answers, for its summary line: the values of its non-secret address variables. */
export function serviceAddress(service: RunningService): string {
  return Object.entries(service.env)
    .filter(([name]) => /(ENDPOINT|URI|URL|BROKERS|HOST|PORT)$/.test(name))
    .map(([, value]) => value)
    .join(' ');
}

export default async function setup(): Promise<() => Promise<void>> {
  const mode = stackMode();
  if (mode === 'none') {
    console.log('test stack: THUND_STACK=none, no services started');
    return async () => {};
  }
  const started = Date.now();
  pruneFinishedRuns();
  console.log(`test stack (${mode}): starting minio, rest-catalog, nessie, kafka, moto (a first run installs them: the MinIO build takes minutes)`);
  const { services, stop } = await startStack(mode);
  const stopReaper = mode === 'local' ? startReaper() : () => {};
  for (const service of services) {
    Object.assign(process.env, service.env);
    console.log(summaryLine(service, serviceAddress(service)));
  }
  console.log(`test stack (${mode}) up in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${runDir('logs')}`);
  return async () => {
    stopReaper();
    await stop();
    removeRunData(runDir());
  };
}

/**
 * Services run in their own process groups (startProcess detaches them), so a test run that is
 * killed before its teardown would leave them running. A small bash (its kill takes process groups) outlives this process, and
 * when this process is gone without having stopped it, stops those groups.
 */
function startReaper(): () => void {
  const groups = execFileSync('ps', ['-o', 'pid=,pgid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, pgid]) => pid !== undefined && pid !== '' && pid === pgid)
    .map(([pid]) => pid!);
  if (groups.length === 0) return () => {};
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done
for g in ${groups.join(' ')}; do kill -TERM -- -$g 2>/dev/null; done
sleep 10
for g in ${groups.join(' ')}; do kill -KILL -- -$g 2>/dev/null; done`;
  const reaper = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  reaper.unref();
  return () => {
    if (reaper.pid !== undefined && reaper.exitCode === null) process.kill(reaper.pid, 'SIGTERM');
  };
}

// `npm run stack:up`: the same stack for hands-on work, until Ctrl-C. The variables (with the
// per-run MinIO keys) go to a file readable only by the owner, never to the terminal.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mode = stackMode() === 'containers' ? 'containers' : 'local';
  pruneFinishedRuns();
  const { services, stop } = await startStack(mode);
  const stopReaper = mode === 'local' ? startReaper() : () => {};
  for (const service of services) console.log(summaryLine(service, serviceAddress(service)));
  const envFile = join(runDir(), 'stack.env');
  const exports = services.flatMap((service) => Object.entries(service.env).map(([name, value]) => `export ${name}='${value}'\n`));
  writeFileSync(envFile, exports.join(''), { mode: 0o600 });
  console.log(`stack up; \`source ${envFile}\` for its variables; Ctrl-C stops it`);
  const keepAlive = setInterval(() => {}, 1 << 30);
  const shutdown = (): void => {
    clearInterval(keepAlive);
    stopReaper();
    void stop().then(() => {
      removeRunData(runDir());
      process.exit(0);
    });
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
