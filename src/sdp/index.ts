/** Lowering pipelines to Spark Declarative Pipelines, and the Spark backend that runs them. */
export { lowerPipeline } from './lower-pipeline.js';
export type { LoweredProject, LoweringOptions, ProjectFile } from './lower-pipeline.js';
export { countByStatus, formatReportJson, formatReportText, LOWERING_STATUSES } from './lowering-report.js';
export type { ElementType, LoweringEntry, LoweringReport, LoweringStatus } from './lowering-report.js';
export { DEFAULT_CATALOG_NAME, pluginCatalogConfig, sparkCatalogConfig } from './catalog-conf.js';
export type { CatalogOverrides, SecretConf, SparkCatalogConfig } from './catalog-conf.js';
export { DEFAULT_SPARK_VERSION, parseSparkVersion, sdpFeatures } from './spark-version.js';
export type { SdpFeatures, SparkVersion } from './spark-version.js';
export { writeProject } from './project-files.js';
export { SparkBackend } from './spark-backend.js';
export { defaultSparkProjectDir, SPARK_PROJECTS_FOLDER, sparkBackendFor } from './spark-backend-for.js';
export type { SparkRunOptions } from './spark-backend-for.js';
export type { SparkBackendOptions } from './spark-backend.js';
export { SPARK_RUNTIME_ENV, sparkRuntimeFromEnv } from './spark-runtime.js';
export type { SparkRuntime } from './spark-runtime.js';
export { startSparkPipelines } from './spark-pipelines-process.js';
export type { PipelinesCommand, PipelinesInvocation, PipelinesProcess } from './spark-pipelines-process.js';
