/**
 * Spark 4.2 with Declarative Pipelines for the AUTO CDC test: a venv with pyspark[pipelines] 4.2.0
 * (requirements-sdp-cdc.txt, built by python-env.sh) and the spark-catalyst test jar of the same
 * release, whose SharedTablesInMemoryRowLevelOperationTableCatalog is a catalog with row-level
 * operations (AUTO CDC merges into its target) that keeps its tables across the sessions of one
 * Spark Connect server, so a second session can read what a pipeline run landed. Both cached.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mavenClasspath } from './maven.js';
import type { SparkPipelinesSetup } from './spark-pipelines.js';

export const SDP_CDC_SPARK_VERSION = '4.2.0';
export const ROW_LEVEL_CATALOG_CLASS = 'org.apache.spark.sql.connector.catalog.SharedTablesInMemoryRowLevelOperationTableCatalog';

const run = promisify(execFile);
let setup: Promise<SparkPipelinesSetup> | undefined;

export function prepareSparkPipelinesCdc(): Promise<SparkPipelinesSetup> {
  setup ??= Promise.all([
    venvPython(),
    mavenClasspath(`spark-pipelines-cdc-${SDP_CDC_SPARK_VERSION}`, [
      { groupId: 'org.apache.spark', artifactId: 'spark-catalyst_2.13', version: SDP_CDC_SPARK_VERSION, classifier: 'tests', intransitive: true },
    ]),
  ])
    .then(([python, jars]) => ({ python, jars }))
    .catch((error: unknown) => {
      setup = undefined;
      throw error;
    });
  return setup;
}

async function venvPython(): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const { stdout } = await run('bash', [join(here, 'python-env.sh'), join(here, 'requirements-sdp-cdc.txt'), 'import pyspark.pipelines, yaml'], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 20 * 60 * 1000,
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
