/**
 * A validated graph lowered to a Spark Declarative Pipelines project for the catalog its
 * connection names, as `thund lower` and the package API's lowerPipeline both do it.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PipelineGraph } from '../pipeline/ir/graph.js';
import type { ConnectionSource } from '../pipeline/resolve-connection.js';
import { sparkCatalogConfig, type SparkCatalogConfig } from '../sdp/catalog-conf.js';
import { lowerPipeline, type LoweredProject } from '../sdp/lower-pipeline.js';
import { DEFAULT_SPARK_VERSION, parseSparkVersion } from '../sdp/spark-version.js';

export interface LowerGraphOptions {
  /** The project folder: the SDP run's checkpoints go to its `storage` folder. */
  readonly out: string;
  /** Default 4.1. */
  readonly sparkVersion?: string;
  readonly warehouse?: string;
  readonly catalogName?: string;
  /** Where the definition came from, for the generated files' headers. */
  readonly sourceName: string;
}

export interface LoweredGraph {
  readonly project: LoweredProject;
  readonly catalog: SparkCatalogConfig;
}

export function lowerGraph(graph: PipelineGraph, connection: ConnectionSource, options: LowerGraphOptions, env: NodeJS.ProcessEnv = process.env): LoweredGraph {
  const sparkVersion = parseSparkVersion(options.sparkVersion ?? DEFAULT_SPARK_VERSION);
  const catalog = sparkCatalogConfig(connection.catalog, connection.storage, connection.specPath, env, {
    ...(options.warehouse === undefined ? {} : { warehouse: options.warehouse }),
    ...(options.catalogName === undefined ? {} : { catalogName: options.catalogName }),
  });
  const out = path.resolve(options.out);
  const project = lowerPipeline(graph, { sparkVersion, catalog, storage: pathToFileURL(path.join(out, 'storage')).href, sourceName: options.sourceName });
  return { project, catalog };
}
