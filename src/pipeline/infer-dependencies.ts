/**
 * Fills in each SQL flow's dependencies by parsing its query with an SqlParser (DuckDB's parser,
 * supplied by the caller: src/pipeline itself opens no database). Flows whose SQL does not parse
 * come back as SQL_SYNTAX problems, located in the spec where the query is written.
 */
import type { FlowDependencies } from './ir/flow.js';
import { withDependencies, type PipelineGraph } from './ir/graph.js';
import type { Origin } from './ir/origin.js';
import { PROBLEM_CODES, type PipelineProblem } from './problems.js';
import { analyseSerializedSql } from './sql-dependencies.js';

export interface SqlParser {
  /** The parse tree as `json_serialize_sql` returns it (parsed JSON). */
  serialize(sql: string): Promise<unknown>;
  /** Lower-case names of the aggregate functions the engine knows. */
  aggregateFunctions(): Promise<ReadonlySet<string>>;
}

export interface InferredGraph {
  readonly graph: PipelineGraph;
  readonly problems: readonly PipelineProblem[];
}

export async function inferDependencies(graph: PipelineGraph, parser: SqlParser): Promise<InferredGraph> {
  const aggregates = await parser.aggregateFunctions();
  const found = new Map<string, FlowDependencies>();
  const problems: PipelineProblem[] = [];
  for (const flow of graph.flows) {
    const sql = flow.query.text.replace(/;+\s*$/, '');
    const analysis = analyseSerializedSql(await parser.serialize(sql), aggregates);
    if (analysis.ok) {
      found.set(flow.name, analysis.dependencies);
      continue;
    }
    const where = analysis.position === undefined ? '' : ` (at ${sqlPosition(sql, analysis.position)} of its SQL)`;
    problems.push({
      code: PROBLEM_CODES.SQL_SYNTAX,
      message: `flow "${flow.name}": ${analysis.message}${where}`,
      origin: flow.query.origin satisfies Origin,
    });
  }
  return { graph: withDependencies(graph, found), problems };
}

/** "line 2, column 7" inside the query text for a character offset. */
function sqlPosition(sql: string, offset: number): string {
  const before = sql.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
