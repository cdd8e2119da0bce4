/**
 * One `spark-pipelines run|dry-run` process on a lowered project, its output delivered line by
 * line. Secret settings are written to a private properties file for the run (never to the
 * command line, the project or a log) and removed when it ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { InvalidInputError } from '../errors.js';
import { substituteEnv, type Environment } from '../pipeline/env-template.js';
import type { SecretConf } from './catalog-conf.js';
import { SPEC_FILE } from './pipeline-spec-file.js';
import { sparkPipelinesExecutable, type SparkRuntime } from './spark-runtime.js';

export type PipelinesCommand = 'run' | 'dry-run';

export interface PipelinesInvocation {
  readonly runtime: SparkRuntime;
  readonly command: PipelinesCommand;
  readonly projectDir: string;
  /** e.g. ['--full-refresh-all'] or ['--refresh', 'a,b'] (run only). */
  readonly args?: readonly string[];
  readonly secretConfs?: readonly SecretConf[];
  readonly env?: Environment;
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
}

export interface PipelinesProcess {
  readonly exit: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** Ends the process group this call started. */
  kill(): void;
}

/**
 * Settings for a local run: no UI or progress bars, loopback only (the driver, and the local Spark
 * Connect server spark-pipelines starts, which otherwise listens on every interface), UTC, few
 * shuffle partitions (2 cores).
 */
const LOCAL_CONF: Readonly<Record<string, string>> = {
  'spark.ui.enabled': 'false',
  'spark.ui.showConsoleProgress': 'false',
  'spark.sql.shuffle.partitions': '2',
  'spark.driver.bindAddress': '127.0.0.1',
  'spark.driver.host': '127.0.0.1',
  'spark.connect.grpc.binding.address': '127.0.0.1',
  'spark.sql.session.timeZone': 'UTC',
};

export function startSparkPipelines(invocation: PipelinesInvocation): PipelinesProcess {
  const env = invocation.env ?? process.env;
  const secrets = secretProperties(invocation.secretConfs ?? [], env);
  const defaults = invocation.runtime.remote === undefined ? localDefaults() : undefined;
  const args: string[] = [];
  if (invocation.runtime.remote !== undefined) args.push('--remote', invocation.runtime.remote);
  if (invocation.runtime.jars.length > 0) {
    // Also on the driver's class path: with --jars alone, the local Connect server's isolated
    // session class loader does not find data sources such as kafka (measured with 4.1.4).
    args.push('--jars', invocation.runtime.jars.join(','), '--driver-class-path', invocation.runtime.jars.join(path.delimiter));
  }
  if (invocation.runtime.remote === undefined) for (const [key, value] of Object.entries(LOCAL_CONF)) args.push('--conf', `${key}=${value}`);
  if (secrets !== undefined) args.push('--properties-file', secrets.file);
  args.push(invocation.command, '--spec', path.join(invocation.projectDir, SPEC_FILE), ...(invocation.args ?? []));
  const child = spawn(sparkPipelinesExecutable(invocation.runtime), args, {
    cwd: invocation.projectDir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PYSPARK_PYTHON: invocation.runtime.python,
      PATH: `${path.dirname(invocation.runtime.python)}${path.delimiter}${process.env['PATH'] ?? ''}`,
      SPARK_LOCAL_IP: '127.0.0.1',
      ...(defaults === undefined ? {} : { SPARK_CONF_DIR: defaults.dir }),
    },
  });
  for (const stream of ['stdout', 'stderr'] as const) {
    createInterface({ input: child[stream] }).on('line', (line) => invocation.onLine(line, stream));
  }
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', (error) => {
      invocation.onLine(`cannot start ${sparkPipelinesExecutable(invocation.runtime)}: ${error.message}`, 'stderr');
      resolve({ code: 127, signal: null });
    });
    child.on('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    secrets?.remove();
    defaults?.remove();
  });
  return {
    exit,
    kill: () => {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          child.kill('SIGTERM');
        }
      }
    },
  };
}

/**
 * LOCAL_CONF as the spark-defaults.conf of a Spark configuration folder for the run, unless
 * SPARK_CONF_DIR names one already. The --conf settings alone do not reach the local Spark
 * Connect server: spark-pipelines hands them on in chunks (PYSPARK_REMOTE_INIT_CONF_<i>) and
 * pyspark 4.1.4 starts the server with the last chunk only, so the others (the gRPC binding
 * address among them: the server then listened on every interface) were dropped (measured).
 * The server's own spark-submit reads spark-defaults.conf.
 */
function localDefaults(): { dir: string; remove: () => void } | undefined {
  if (process.env['SPARK_CONF_DIR'] !== undefined && process.env['SPARK_CONF_DIR'] !== '') return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'thund-spark-conf-'));
  writeFileSync(path.join(dir, 'spark-defaults.conf'), `${Object.entries(LOCAL_CONF).map(([key, value]) => `${key} ${value}`).join('\n')}\n`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function secretProperties(confs: readonly SecretConf[], env: Environment): { file: string; remove: () => void } | undefined {
  if (confs.length === 0) return undefined;
  const lines = confs.map((conf) => {
    const value = substituteEnv(conf.template, env);
    if ('missing' in value) throw new InvalidInputError(`${conf.key} needs environment variable ${value.missing}, which is not set`, { context: { variable: value.missing } });
    return `${conf.key}=${value.value.replaceAll('\\', '\\\\')}`;
  });
  const folder = mkdtempSync(path.join(tmpdir(), 'thund-spark-'));
  const file = path.join(folder, 'secrets.properties');
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return { file, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
