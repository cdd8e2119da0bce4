/**
 * Fills in each SQL flow's dependencies by parsing its query with an SqlParser (DuckDB's parser,
 * supplied by the caller: src/pipeline itself opens no database). Flows whose SQL does not parse,
 * or is not exactly one query (INSERT, COPY, ATTACH, SET, two statements, …), come back as
 * SQL_SYNTAX problems, located in the spec where the query is written; DuckDB's parser decides.
 */
import type { Flow, FlowDependencies } from './ir/flow.js';
import { withDependencies, type PipelineGraph } from './ir/graph.js';
import type { Origin } from './ir/origin.js';
import { ONE_QUERY, parseOneQuery, type QueryParser } from './one-query.js';
import { PROBLEM_CODES, type PipelineProblem } from './problems.js';
import { analyseSerializedSql } from './sql-dependencies.js';

export interface SqlParser extends QueryParser {
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
    const sql = flow.query.text;
    const refuse = (message: string): void => void problems.push({ code: PROBLEM_CODES.SQL_SYNTAX, message: `${flowTitle(graph, flow)}: ${message}`, origin: flow.query.origin satisfies Origin });
    const parsed = await parseOneQuery(parser, sql);
    if ('problem' in parsed) {
      refuse(`its SQL ${parsed.problem}; a flow is ${ONE_QUERY}`);
      continue;
    }
    const analysis = analyseSerializedSql(parsed.serialized, aggregates);
    if (analysis.ok) {
      found.set(flow.name, analysis.dependencies);
      continue;
    }
    const where = analysis.position === undefined ? '' : ` (at ${sqlPosition(sql, analysis.position)} of its SQL)`;
    refuse(`${analysis.message}${where}`);
  }
  return { graph: withDependencies(graph, found), problems };
}

/** `flow "x"`, or `view "x"` / `table "x"` for the flow a dataset's own `sql` defines. */
function flowTitle(graph: PipelineGraph, flow: Flow): string {
  const dataset = flow.implicit ? graph.datasets.find((candidate) => candidate.name === flow.target) : undefined;
  if (dataset === undefined) return `flow "${flow.name}"`;
  const kind = dataset.kind === 'view' || dataset.kind === 'temporary-view' ? 'view' : 'table';
  return `${kind} "${flow.name}"`;
}

/** "line 2, column 7" inside the query text for a character offset. */
function sqlPosition(sql: string, offset: number): string {
  const before = sql.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
