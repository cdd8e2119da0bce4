/**
 * Fills in each SQL flow's dependencies by parsing its query with an SqlParser (DuckDB's parser,
 * supplied by the caller: src/pipeline itself opens no database). Flows whose SQL does not parse,
 * or is not exactly one query (INSERT, COPY, ATTACH, SET, two statements, …), come back as
 * SQL_SYNTAX problems, located in the spec where the query is written; DuckDB's parser decides.
 */
import type { Flow, FlowDependencies } from './ir/flow.js';
import { withDependencies, type PipelineGraph } from './ir/graph.js';
import type { Origin } from './ir/origin.js';
import { PROBLEM_CODES, type PipelineProblem } from './problems.js';
import { analyseSerializedSql } from './sql-dependencies.js';

export interface SqlParser {
  /** The parse tree as `json_serialize_sql` returns it (parsed JSON); an error for a statement that is not a query. */
  serialize(sql: string): Promise<unknown>;
  /** How many statements the text holds (0: only comments and semicolons); undefined when it does not parse. */
  statementCount(sql: string): Promise<number | undefined>;
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
    const count = await parser.statementCount(sql);
    if (count === 0) {
      refuse(`its SQL has no query, only comments; ${ONE_QUERY}`);
      continue;
    }
    if (count !== undefined && count > 1) {
      refuse(`its SQL holds ${count} statements; ${ONE_QUERY}`);
      continue;
    }
    const serialized = await parser.serialize(sql);
    // The text parsed as one statement, so serializing fails only because it is no query.
    if (count === 1 && isParseError(serialized)) {
      refuse(`its SQL is a statement that is not a query; ${ONE_QUERY} (INSERT, CREATE, COPY, ATTACH, PRAGMA, SET, … are not run)`);
      continue;
    }
    const analysis = analyseSerializedSql(serialized, aggregates);
    if (analysis.ok) {
      found.set(flow.name, analysis.dependencies);
      continue;
    }
    const where = analysis.position === undefined ? '' : ` (at ${sqlPosition(sql, analysis.position)} of its SQL)`;
    refuse(`${analysis.message}${where}`);
  }
  return { graph: withDependencies(graph, found), problems };
}

const ONE_QUERY = 'a flow is one query (SELECT, WITH … SELECT, VALUES, FROM …, UNION …)';

function isParseError(serialized: unknown): boolean {
  return typeof serialized === 'object' && serialized !== null && (serialized as Record<string, unknown>)['error'] === true;
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
