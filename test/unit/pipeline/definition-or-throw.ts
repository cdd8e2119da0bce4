/**
 * The definition reader for tests written against a throwing parser: a definition, or an
 * InvalidInputError with one `file:line:col: message` line per problem (file order).
 */
import { InvalidInputError } from '../../../src/errors.js';
import { formatOrigin } from '../../../src/pipeline/ir/origin.js';
import { parsePipelineDefinition, type DefinitionResult, type PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { loadPipelineDefinition } from '../../../src/pipeline/definition-file.js';

export function parseDefinitionOrThrow(text: string, sourceName: string): PipelineDefinition {
  return orThrow(parsePipelineDefinition(text, sourceName), sourceName);
}

export async function loadDefinitionOrThrow(specPath: string): Promise<PipelineDefinition> {
  return orThrow(await loadPipelineDefinition(specPath), specPath);
}

function orThrow(result: DefinitionResult, file: string): PipelineDefinition {
  if (result.ok) return result.definition;
  const problems = [...result.problems].sort((a, b) => a.origin.line - b.origin.line || a.origin.column - b.origin.column);
  const first = problems[0];
  throw new InvalidInputError(problems.map((problem) => `${formatOrigin(problem.origin)}: ${problem.message}`).join('\n'), {
    context: { file, line: first?.origin.line, column: first?.origin.column },
  });
}
