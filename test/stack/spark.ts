/**
 * The Spark reader of the interop tests: PySpark (pinned in requirements-interop.txt, installed
 * into the readers' venv by python-env.sh) plus the jars Spark loads for Iceberg, from Maven
 * Central into the cache. Nothing runs between reads: each read is one local[2] Spark session in
 * read_table_spark.py, so "starting" Spark means having the venv and the jars ready.
 */
import { mavenClasspath, type MavenCoordinate } from './maven.js';
import type { RunningService } from './service.js';
import { pyicebergPython } from '../interop/pyiceberg.js';

export const SPARK_VERSION = '4.0.5';
/** The Iceberg release whose Spark 4.0 runtime and AWS bundle are used (the REST fixture's too). */
export const ICEBERG_SPARK_VERSION = '1.10.1';
export const SQLITE_JDBC_VERSION = '3.54.1.0';

/**
 * All intransitive: the runtime and the AWS bundle are shaded, and sqlite-jdbc's only
 * dependency (slf4j-api) is already on Spark's classpath.
 */
export const SPARK_JARS: readonly MavenCoordinate[] = [
  { groupId: 'org.apache.iceberg', artifactId: 'iceberg-spark-runtime-4.0_2.13', version: ICEBERG_SPARK_VERSION, intransitive: true },
  // S3FileIO and the AWS SDK, for tables on MinIO behind the REST catalog.
  { groupId: 'org.apache.iceberg', artifactId: 'iceberg-aws-bundle', version: ICEBERG_SPARK_VERSION, intransitive: true },
  // The driver of Iceberg's JDBC catalog on the SQLite file Thund's local catalog writes.
  { groupId: 'org.xerial', artifactId: 'sqlite-jdbc', version: SQLITE_JDBC_VERSION, intransitive: true },
];

export interface SparkReaderSetup {
  /** The venv's python, which has pyspark. */
  readonly python: string;
  /** Absolute jar paths for `spark.jars`. */
  readonly jars: readonly string[];
}

export const SPARK_ENV = { python: 'THUND_TEST_SPARK_PYTHON', jars: 'THUND_TEST_SPARK_JARS' } as const;

let setup: Promise<SparkReaderSetup> | undefined;

/**
 * The venv and the jars, installed once into the cache (both steps are idempotent across runs)
 * and resolved once per process. A global setup that already did it passes them in the env.
 */
export function prepareSparkReader(): Promise<SparkReaderSetup> {
  const python = process.env[SPARK_ENV.python];
  const jars = process.env[SPARK_ENV.jars];
  if (python !== undefined && python !== '' && jars !== undefined && jars !== '') {
    return Promise.resolve({ python, jars: jars.split(',') });
  }
  setup ??= Promise.all([pyicebergPython(), mavenClasspath(`spark-iceberg-${ICEBERG_SPARK_VERSION}`, SPARK_JARS)])
    .then(([py, classpath]) => ({ python: py, jars: classpath }))
    .catch((error: unknown) => {
      setup = undefined;
      throw error;
    });
  return setup;
}

/** For the global setup and its summary line: nothing to stop, the env points readers at the install. */
export async function startSparkReader(): Promise<RunningService> {
  const { python, jars } = await prepareSparkReader();
  return {
    name: 'spark',
    version: `${SPARK_VERSION} iceberg ${ICEBERG_SPARK_VERSION}`,
    env: { [SPARK_ENV.python]: python, [SPARK_ENV.jars]: jars.join(',') },
    stop: async () => {},
  };
}
