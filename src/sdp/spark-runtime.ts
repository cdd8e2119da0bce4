/**
 * Where Spark comes from: a Python environment with `pyspark[pipelines]` (its bin/ holds
 * spark-pipelines) and the jars Spark loads (Iceberg runtime, JDBC driver, connectors).
 */
import path from 'node:path';
import { InvalidInputError } from '../errors.js';
import type { Environment } from '../pipeline/env-template.js';

export interface SparkRuntime {
  /** The venv's python (pyspark installed); spark-pipelines is beside it. */
  readonly python: string;
  readonly jars: readonly string[];
  /** `sc://host:port` of a running Spark Connect server; default: a local in-process server. */
  readonly remote?: string;
}

export const SPARK_RUNTIME_ENV = {
  python: 'THUND_SPARK_PIPELINES_PYTHON',
  jars: 'THUND_SPARK_PIPELINES_JARS',
  remote: 'THUND_SPARK_REMOTE',
} as const;

export function sparkPipelinesExecutable(runtime: SparkRuntime): string {
  return path.join(path.dirname(runtime.python), 'spark-pipelines');
}

/** The runtime named by THUND_SPARK_PIPELINES_PYTHON / _JARS (comma-separated) / THUND_SPARK_REMOTE. */
export function sparkRuntimeFromEnv(env: Environment): SparkRuntime {
  const python = env[SPARK_RUNTIME_ENV.python];
  if (python === undefined || python === '') {
    throw new InvalidInputError(
      `${SPARK_RUNTIME_ENV.python} must name the python of an environment with pyspark[pipelines] (4.1+) to run spark-pipelines; ${SPARK_RUNTIME_ENV.jars} lists the jars Spark needs (comma-separated)`,
    );
  }
  const jars = (env[SPARK_RUNTIME_ENV.jars] ?? '').split(',').filter((jar) => jar !== '');
  const remote = env[SPARK_RUNTIME_ENV.remote];
  return { python, jars, ...(remote === undefined || remote === '' ? {} : { remote }) };
}
