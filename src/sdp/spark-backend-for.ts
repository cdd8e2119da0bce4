/**
 * The SparkBackend for a pipeline definition, as `thund run --backend spark` needs it: Spark from
 * the environment (THUND_SPARK_PIPELINES_PYTHON / _JARS / THUND_SPARK_REMOTE), the pipeline's
 * catalog and storage as Spark settings, and a project folder that stays put between runs: the
 * streaming checkpoints live in it, and a new folder would read every source from the start again
 * and append its rows a second time.
 */
import path from 'node:path';
import type { Environment } from '../pipeline/env-template.js';
import type { PipelineDefinition } from '../pipeline/spec-to-ir.js';
import { sparkCatalogConfig } from './catalog-conf.js';
import { SparkBackend } from './spark-backend.js';
import { sparkRuntimeFromEnv } from './spark-runtime.js';
import { DEFAULT_SPARK_VERSION, parseSparkVersion } from './spark-version.js';

export interface SparkRunOptions {
  /** e.g. "4.1" (default) or "4.2". */
  readonly sparkVersion?: string;
  /** Default: `.thund/spark/<pipeline>` beside the pipeline file. */
  readonly projectDir?: string;
  readonly warehouse?: string;
  readonly catalogName?: string;
  readonly env?: Environment;
  readonly onOutput?: (line: string) => void;
}

export const SPARK_PROJECTS_FOLDER = path.join('.thund', 'spark');

export function defaultSparkProjectDir(definition: PipelineDefinition): string {
  return path.join(path.dirname(definition.specPath), SPARK_PROJECTS_FOLDER, definition.graph.name);
}

/** Throws InvalidInputError when the environment names no Spark, or the version or catalog is invalid. */
export function sparkBackendFor(definition: PipelineDefinition, options: SparkRunOptions = {}): SparkBackend {
  const env = options.env ?? process.env;
  const catalog = sparkCatalogConfig(definition.catalog, definition.storage, definition.specPath, env, {
    ...(options.warehouse === undefined ? {} : { warehouse: options.warehouse }),
    ...(options.catalogName === undefined ? {} : { catalogName: options.catalogName }),
  });
  return new SparkBackend({
    runtime: sparkRuntimeFromEnv(env),
    sparkVersion: parseSparkVersion(options.sparkVersion ?? DEFAULT_SPARK_VERSION),
    catalog,
    projectDir: path.resolve(options.projectDir ?? defaultSparkProjectDir(definition)),
    ...(options.onOutput === undefined ? {} : { onOutput: options.onOutput }),
  });
}
