/** Lowers a YAML definition the way `thund lower` does (DuckDB's parser infers the reads). */
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import type { PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { parsePipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { validate } from '../../../src/pipeline/validate.js';
import { sparkCatalogConfig } from '../../../src/sdp/catalog-conf.js';
import { lowerPipeline, type LoweredProject } from '../../../src/sdp/lower-pipeline.js';
import type { LoweringEntry } from '../../../src/sdp/lowering-report.js';
import { parseSparkVersion } from '../../../src/sdp/spark-version.js';

export interface Lowered extends LoweredProject {
  readonly graph: PipelineGraph;
  file(path: string): string;
  entry(element: LoweringEntry['element'], name: string): LoweringEntry;
  /** Every definition file's text, joined. */
  readonly allText: string;
}

export async function lowerYaml(session: DuckDbSession, yaml: string, sparkVersion = '4.1', sourceName = 'p.yaml'): Promise<Lowered> {
  const parsed = parsePipelineDefinition(yaml, sourceName);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session));
  const problems = [...inferred.problems, ...validate(inferred.graph)];
  if (problems.length > 0) throw new Error(problems.map((p) => p.message).join('\n'));
  const catalog = sparkCatalogConfig(parsed.definition.catalog, parsed.definition.storage, parsed.definition.specPath, {}, { warehouse: '/wh' });
  const project = lowerPipeline(inferred.graph, { sparkVersion: parseSparkVersion(sparkVersion), catalog, storage: 'file:///out/storage', sourceName });
  return {
    ...project,
    graph: inferred.graph,
    file: (path) => {
      const found = project.files.find((file) => file.path === path);
      if (found === undefined) throw new Error(`no file ${path}; files: ${project.files.map((f) => f.path).join(', ')}`);
      return found.text;
    },
    entry: (element, name) => {
      const found = project.report.entries.filter((e) => e.element === element && e.name === name);
      if (found.length !== 1) throw new Error(`${found.length} report entries for ${element} ${name}`);
      return found[0] as LoweringEntry;
    },
    allText: project.files.map((file) => file.text).join('\n'),
  };
}

/** A YAML document from lines. */
export const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

export const PARQUET_SOURCES = [
  'sources:',
  '  orders: { format: parquet, path: /data/orders/*.parquet }',
  '  events:',
  '    format: parquet',
  '    path: /data/events/*.parquet',
  '    schema: { user_id: long, kind: string, event_time: timestamptz }',
];
