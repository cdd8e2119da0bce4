/**
 * A pipeline definition file, by its kind: a YAML spec (spec-to-ir.ts), or a TypeScript /
 * JavaScript module whose default export is a built graph (pipeline-module.ts, loaded only for one).
 */
import type { Environment } from './env-template.js';
import { readSpecFile } from './spec-file.js';
import { parsePipelineDefinition, type DefinitionResult } from './spec-to-ir.js';

/** .ts .mts .cts .js .mjs .cjs: a module, not a YAML spec. */
export function isPipelineModule(specPath: string): boolean {
  return /\.[cm]?[jt]s$/.test(specPath);
}

/** `env` fills the `${NAME}` references of a spec's source and sink settings (spec-env.ts); a module reads its environment itself. */
export async function loadPipelineDefinition(specPath: string, env: Environment = process.env): Promise<DefinitionResult> {
  if (isPipelineModule(specPath)) return (await import('./pipeline-module.js')).loadPipelineModule(specPath);
  return parsePipelineDefinition(await readSpecFile(specPath), specPath, env);
}
