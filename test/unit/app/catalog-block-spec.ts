/**
 * A one-table pipeline with the given catalog-block lines appended, written as
 * `<dir>/<name>/pipeline.yaml` (replacing any earlier one) and read through the definition reader.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { loadDefinitionOrThrow } from '../pipeline/definition-or-throw.js';

const BASE = [
  'pipeline: demo',
  'sources: { orders: { format: parquet, path: data/*.parquet } }',
  'tables: { lake.orders: {} }',
  'flows: { load: { target: lake.orders, sql: SELECT 1 AS x } }',
];

export async function definitionWith(dir: string, name: string, ...block: string[]): Promise<PipelineDefinition> {
  const file = path.join(dir, name, 'pipeline.yaml');
  await rm(path.dirname(file), { recursive: true, force: true });
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${[...BASE, ...block].join('\n')}\n`);
  return loadDefinitionOrThrow(file);
}
