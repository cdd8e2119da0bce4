/**
 * `thund validate <pipeline.yaml>`: parse the definition, infer each flow's reads with DuckDB's
 * own parser (its answers cached in the user's cache folder, so an unchanged pipeline is analysed
 * without starting DuckDB), validate the graph; print `ok: N datasets, M flows`, or one line per
 * problem (`file:line:col CODE message`) and exit 1.
 */
import { cachedSqlParser } from '../../duckdb/cached-sql-parser.js';
import { SqlParseCache } from '../../duckdb/sql-parse-cache.js';
import { inferDependencies } from '../../pipeline/infer-dependencies.js';
import type { PipelineGraph } from '../../pipeline/ir/graph.js';
import { formatProblem, sortProblems, type PipelineProblem } from '../../pipeline/problems.js';
import { parsePipelineDefinition, type DefinitionResult, type PipelineDefinition } from '../../pipeline/spec-to-ir.js';
import { loadPipelineDefinition } from '../../pipeline/definition-file.js';
import { validate } from '../../pipeline/validate.js';
import { userCacheDir } from '../user-cache-dir.js';

export interface AnalysedPipeline {
  /** The graph with inferred dependencies, when the spec could be read at all. */
  readonly definition?: PipelineDefinition;
  readonly graph?: PipelineGraph;
  readonly problems: readonly PipelineProblem[];
}

export async function analysePipelineFile(specPath: string): Promise<AnalysedPipeline> {
  return analyseDefinition(await loadPipelineDefinition(specPath));
}

/** The same for a definition given as text (`sourceName` is the file its relative paths and problems refer to). */
export async function analysePipelineText(text: string, sourceName: string): Promise<AnalysedPipeline> {
  return analyseDefinition(parsePipelineDefinition(text, sourceName));
}

async function analyseDefinition(loaded: DefinitionResult): Promise<AnalysedPipeline> {
  if (!loaded.ok) return { problems: loaded.problems };
  return { definition: loaded.definition, ...(await analyseGraph(loaded.definition.graph)) };
}

/** A graph as declared (spec or builder): each flow's reads inferred with DuckDB's parser, then validated. */
export async function analyseGraph(graph: PipelineGraph): Promise<{ graph: PipelineGraph; problems: readonly PipelineProblem[] }> {
  const parser = cachedSqlParser(new SqlParseCache(userCacheDir('sql-parse')));
  try {
    const inferred = await inferDependencies(graph, parser);
    return { graph: inferred.graph, problems: sortProblems([...inferred.problems, ...validate(inferred.graph)]) };
  } finally {
    await parser.close();
  }
}

/** The process exit code: 0 when valid, 1 when there are problems. */
export async function validateCommand(specPath: string, print: (line: string) => void): Promise<number> {
  const analysed = await analysePipelineFile(specPath);
  if (analysed.problems.length > 0 || analysed.graph === undefined) {
    for (const problem of analysed.problems) print(formatProblem(problem));
    return 1;
  }
  print(`ok: ${analysed.graph.datasets.length} datasets, ${analysed.graph.flows.length} flows`);
  return 0;
}
