/**
 * `thund plan <pipeline.yaml> [--format text|mermaid|dot]`: the validated pipeline's DAG in
 * run order. An invalid pipeline prints its problems (as `thund validate` does) and exits 1.
 */
import { InvalidInputError } from '../../errors.js';
import { formatProblem } from '../../pipeline/problems.js';
import { PLAN_FORMATS, renderGraph, type PlanFormat } from '../../pipeline/render-graph.js';
import { analysePipelineFile } from './validate.js';

export function parsePlanFormat(text: string | undefined): PlanFormat {
  if (text === undefined) return 'text';
  const format = PLAN_FORMATS.find((candidate) => candidate === text);
  if (format === undefined) throw new InvalidInputError(`--format must be one of ${PLAN_FORMATS.join(', ')}, got "${text}"`, { context: { format: text } });
  return format;
}

export async function planCommand(specPath: string, format: PlanFormat, print: (line: string) => void): Promise<number> {
  const analysed = await analysePipelineFile(specPath);
  if (analysed.problems.length > 0 || analysed.graph === undefined) {
    for (const problem of analysed.problems) print(formatProblem(problem));
    return 1;
  }
  print(renderGraph(analysed.graph, format));
  return 0;
}
