/**
 * A pipeline written in TypeScript or JavaScript: a module whose default export is a built
 * pipeline graph (`export default pipeline('name')….build()`), with optional `catalog` and
 * `storage` exports written as a YAML spec's blocks. It gives the same PipelineDefinition as the
 * YAML front end, and problems in the same `file:line:col CODE message` form: a module that fails
 * to compile or throws while loading is a problem at the line at fault; the builder's elements
 * carry the lines that declared them.
 */
import path from 'node:path';
import { z } from 'zod';
import { connectionFromBlocks, parseConnectionBlocks } from './connection-blocks.js';
import type { PipelineGraph } from './ir/graph.js';
import { stackFrames, type Origin } from './ir/origin.js';
import { importModuleFile } from './module-import.js';
import { PROBLEM_CODES, type PipelineProblem } from './problems.js';
import { readSpecFile } from './spec-file.js';
import type { DefinitionResult } from './spec-to-ir.js';
import { formatFieldPath, type FieldPath, type SourcePosition } from './yaml-locator.js';

const OriginShape = z.object({ file: z.string(), line: z.number(), column: z.number() });
/** The graph's outline; its elements come from the builder, which checked them as they were declared. */
const GraphShape = z.object({
  name: z.string(),
  datasets: z.array(z.looseObject({ kind: z.string(), name: z.string(), origin: OriginShape })),
  flows: z.array(z.looseObject({ kind: z.string(), name: z.string(), target: z.string(), origin: OriginShape })),
});

export async function loadPipelineModule(specPath: string): Promise<DefinitionResult> {
  const file = path.resolve(specPath);
  const text = await readSpecFile(specPath);
  const at = (line: number, column = 1): Origin => ({ file, line, column });
  let exports: Readonly<Record<string, unknown>>;
  try {
    exports = await importModuleFile(file);
  } catch (error) {
    return failed([loadProblem(error, file)]);
  }
  const graph = exports['default'];
  if (!GraphShape.safeParse(graph).success) {
    return failed([{ code: PROBLEM_CODES.PIPELINE_MODULE, message: notAGraph(graph), origin: at(exportLine(text, 'default')) }]);
  }
  const locate = (fieldPath: FieldPath): SourcePosition => ({ line: exportLine(text, String(fieldPath[0])), column: 1 });
  const blocks = Object.fromEntries(['catalog', 'storage'].filter((name) => exports[name] !== undefined).map((name) => [name, exports[name]]));
  const parsed = parseConnectionBlocks(blocks);
  if ('problems' in parsed) {
    return failed(
      parsed.problems.map((problem) => ({
        code: PROBLEM_CODES.SPEC,
        message: `export ${formatFieldPath(problem.path)}: ${problem.message}`,
        origin: { file, ...locate(problem.path) },
      })),
    );
  }
  const connection = connectionFromBlocks(parsed.blocks, file, locate);
  return { ok: true, definition: { graph: graph as PipelineGraph, specPath: file, catalog: connection.catalog, storage: connection.storage } };
}

const failed = (problems: readonly PipelineProblem[]): DefinitionResult => ({ ok: false, problems });

function notAGraph(value: unknown): string {
  const built = 'export default pipeline(\'name\')….build()';
  if (value === undefined) return `the module has no default export; export the pipeline graph: ${built}`;
  if (typeof value === 'object' && value !== null && typeof (value as { build?: unknown }).build === 'function') {
    return `the default export is a pipeline builder, not its graph; export what .build() returns: ${built}`;
  }
  return `the default export is not a pipeline graph (got ${value === null ? 'null' : typeof value}); ${built}`;
}

/** The line of `export default` or `export const <name>`, or 1 when it is not written that way. */
function exportLine(text: string, name: string): number {
  const pattern = name === 'default' ? /^\s*export\s+default\b/m : new RegExp(`^\\s*export\\s+(?:const|let|var)\\s+${name}\\b`, 'm');
  const match = pattern.exec(text);
  return match === null ? 1 : text.slice(0, match.index + match[0].length).split('\n').length;
}

/** esbuild's compile error (`file:line:col: ERROR: …`, 0-based column) or a thrown error at its frame in the module. */
function loadProblem(error: unknown, file: string): PipelineProblem {
  const message = error instanceof Error ? error.message : String(error);
  const compile = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (compile !== null) {
    const origin = { file: path.resolve(compile[1]!), line: Number(compile[2]), column: Number(compile[3]) + 1 };
    return { code: PROBLEM_CODES.PIPELINE_MODULE, message: `the module does not compile: ${compile[4]}`, origin };
  }
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? `[${(error as { code: string }).code}] ` : '';
  return { code: PROBLEM_CODES.PIPELINE_MODULE, message: `the module threw while loading: ${code}${message}`, origin: thrownAt(error, file) };
}

/** The innermost stack frame in the module itself (or, failing that, in a file beside it). */
function thrownAt(error: unknown, file: string): Origin {
  const frames = stackFrames(error instanceof Error ? (error.stack ?? '') : '');
  const folder = path.dirname(file) + path.sep;
  return (
    frames.find((frame) => frame.file === file) ??
    frames.find((frame) => frame.file.startsWith(folder) && !frame.file.includes(`${path.sep}node_modules${path.sep}`)) ?? { file, line: 1, column: 1 }
  );
}
