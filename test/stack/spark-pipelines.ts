/**
 * Spark with Declarative Pipelines for the SDP lowering tests: a venv with pyspark[pipelines]
 * 4.1.4 (requirements-sdp.txt, built by python-env.sh) and the jars it loads — the Iceberg runtime
 * for Spark 4.1 (1.12.0, the newest; Maven Central has none for 4.2/4.3), the SQLite JDBC driver
 * of the embedded catalog, and the Kafka connector for Kafka sources. Both installs are cached.
 */
import { execFile, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mavenClasspath, type MavenCoordinate } from './maven.js';
import { SQLITE_JDBC_VERSION } from './spark.js';

export const SDP_SPARK_VERSION = '4.1.4';
export const SDP_ICEBERG_VERSION = '1.12.0';
export const SDP_KAFKA_CONNECTOR_VERSION = '4.1.1';

export const SDP_JARS: readonly MavenCoordinate[] = [
  { groupId: 'org.apache.iceberg', artifactId: 'iceberg-spark-runtime-4.1_2.13', version: SDP_ICEBERG_VERSION, intransitive: true },
  { groupId: 'org.xerial', artifactId: 'sqlite-jdbc', version: SQLITE_JDBC_VERSION, intransitive: true },
  // The Kafka connector, listed jar by jar from its pom: resolving it transitively walks Spark's
  // parent pom, whose extra repository is unreachable here. Maven Central has no 4.1.4 of it
  // (PyPI has pyspark 4.1.4) and, of the token provider, not every 4.1.x: 4.1.1 resolves, same 4.1 line.
  ...(
    [
      ['org.apache.spark', 'spark-sql-kafka-0-10_2.13', SDP_KAFKA_CONNECTOR_VERSION],
      ['org.apache.spark', 'spark-token-provider-kafka-0-10_2.13', SDP_KAFKA_CONNECTOR_VERSION],
      ['org.apache.kafka', 'kafka-clients', '3.9.1'],
      ['org.apache.commons', 'commons-pool2', '2.12.1'],
    ] as const
  ).map(([groupId, artifactId, version]) => ({ groupId, artifactId, version, intransitive: true })),
];

export interface SparkPipelinesSetup {
  /** The venv's python; spark-pipelines is beside it. */
  readonly python: string;
  readonly jars: readonly string[];
}

const run = promisify(execFile);
let setup: Promise<SparkPipelinesSetup> | undefined;

export function prepareSparkPipelines(): Promise<SparkPipelinesSetup> {
  setup ??= sparkPipelinesSetup(`spark-pipelines-${SDP_SPARK_VERSION}`, 'requirements-sdp.txt', SDP_JARS).catch((error: unknown) => {
    setup = undefined;
    throw error;
  });
  return setup;
}

/** A venv built from `requirements` (a file beside this one, cached by python-env.sh) and the jars, resolved into the cache folder `classpathName`. */
export async function sparkPipelinesSetup(classpathName: string, requirements: string, jars: readonly MavenCoordinate[]): Promise<SparkPipelinesSetup> {
  const [python, classpath] = await Promise.all([venvPython(requirements), mavenClasspath(classpathName, jars)]);
  return { python, jars: classpath };
}

async function venvPython(requirements: string): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const { stdout } = await run('bash', [join(here, 'python-env.sh'), join(here, requirements), 'import pyspark.pipelines, yaml'], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 20 * 60 * 1000,
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

export interface ConnectServer {
  /** `sc://127.0.0.1:port` */
  readonly remote: string;
  stop(): Promise<void>;
}

/**
 * A Spark Connect server (the venv's spark-submit, SparkConnectServer) on a free loopback port with
 * the SDP jars, for `spark-pipelines --remote`. Resolves once its port accepts connections.
 */
export async function startConnectServer(sparkSetup: SparkPipelinesSetup, port: number, log: string): Promise<ConnectServer> {
  const jars = sparkSetup.jars.join(',');
  const child = spawn(
    join(dirname(sparkSetup.python), 'spark-submit'),
    [
      '--class', 'org.apache.spark.sql.connect.service.SparkConnectServer',
      '--jars', jars,
      '--driver-class-path', sparkSetup.jars.join(':'),
      '--conf', `spark.connect.grpc.binding.port=${port}`,
      '--conf', 'spark.connect.grpc.binding.address=127.0.0.1',
      '--conf', 'spark.ui.enabled=false',
      '--conf', 'spark.sql.shuffle.partitions=2',
      'spark-internal',
    ],
    { detached: true, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')], env: { ...process.env, PYSPARK_PYTHON: sparkSetup.python, SPARK_LOCAL_IP: '127.0.0.1' } },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 120_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the Spark Connect server did not open port ${port}; log: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { remote: `sc://127.0.0.1:${port}`, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
