/**
 * Spark 4.2 with Declarative Pipelines for the AUTO CDC test: a venv with pyspark[pipelines] 4.2.0
 * (requirements-sdp-cdc.txt, built by python-env.sh) and the spark-catalyst test jar of the same
 * release, whose SharedTablesInMemoryRowLevelOperationTableCatalog is a catalog with row-level
 * operations (AUTO CDC merges into its target) that keeps its tables across the sessions of one
 * Spark Connect server, so a second session can read what a pipeline run landed. Both cached.
 */
import { sparkPipelinesSetup, type SparkPipelinesSetup } from './spark-pipelines.js';

export const SDP_CDC_SPARK_VERSION = '4.2.0';
export const ROW_LEVEL_CATALOG_CLASS = 'org.apache.spark.sql.connector.catalog.SharedTablesInMemoryRowLevelOperationTableCatalog';

let setup: Promise<SparkPipelinesSetup> | undefined;

export function prepareSparkPipelinesCdc(): Promise<SparkPipelinesSetup> {
  setup ??= sparkPipelinesSetup(`spark-pipelines-cdc-${SDP_CDC_SPARK_VERSION}`, 'requirements-sdp-cdc.txt', [
    { groupId: 'org.apache.spark', artifactId: 'spark-catalyst_2.13', version: SDP_CDC_SPARK_VERSION, classifier: 'tests', intransitive: true },
  ]).catch((error: unknown) => {
    setup = undefined;
    throw error;
  });
  return setup;
}
