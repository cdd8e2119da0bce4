/**
 * How a streaming flow into a sink runs, decided before it connects to Kafka: its streamed reads
 * (Parquet sources by file, streaming tables by appended data file) and what it refuses. A sink
 * receives each micro-batch's rows once and cannot take them back, so only stateless queries may
 * write to it: no aggregation, no windowed aggregation, no window function over the stream, no
 * apply-changes, output mode append only. Each refusal names the flow, the sink and its file:line.
 */
import { duckDbSqlParser } from '../../../duckdb/sql-parser.js';
import { InvalidInputError } from '../../../errors.js';
import type { SinkDataset } from '../../../pipeline/ir/dataset.js';
import type { Flow } from '../../../pipeline/ir/flow.js';
import { findDataset } from '../../../pipeline/ir/graph.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import { flowQuery } from '../flow-query.js';
import { parquetInput, tableInput, type FileInput } from '../streaming/stream-input.js';
import { joinsStreams } from '../streaming/stream-joins.js';
import { streamReadKey } from '../streaming/stream-rewrite.js';
import type { SinkFlowContext } from './sink-flow-context.js';

export interface SinkStreamPlan {
  readonly sql: string;
  /** Per streamed read: streamReadKey of the name the SQL reads, and the input. */
  readonly inputs: readonly { readonly key: string; readonly input: FileInput }[];
}

const STATELESS_ONLY = 'a sink receives each micro-batch once and cannot update what it published, so only stateless queries (filters, projections, joins with tables) may write to it';

export async function planSinkStream(context: SinkFlowContext): Promise<SinkStreamPlan> {
  const { flow, graph, target, session } = context;
  const sql = flowQuery(flow);
  if (flow.dependencies === undefined) throw refused(flow, target, 'its reads are not inferred yet (run inferDependencies first)');
  if (flow.kind === 'apply-changes') throw refused(flow, target, `it applies changes; ${STATELESS_ONLY}`);
  if (flow.dependencies.aggregatesStream) {
    throw refused(flow, target, `it aggregates the stream (GROUP BY, aggregate functions or time windows); ${STATELESS_ONLY}. Aggregate into a streaming table and publish from there`);
  }
  if (flow.outputMode !== 'append') throw refused(flow, target, `output mode ${flow.outputMode}; a sink takes appended rows only (output_mode: append)`);
  const inputs: { key: string; input: FileInput }[] = [];
  for (const read of flow.dependencies.reads.filter((r) => r.streaming)) {
    const key = streamReadKey(read.name);
    if (inputs.some((input) => input.key === key)) continue;
    const dataset = findDataset(graph, read.name);
    if (dataset === undefined) throw refused(flow, target, `STREAM(${read.name}) reads no dataset of the pipeline`);
    if (dataset.kind === 'streaming-table') {
      inputs.push({ key, input: tableInput(session, context.catalog, context.io, flow.name, dataset) });
    } else if (dataset.kind === 'source' && dataset.source.format === 'parquet') {
      inputs.push({ key, input: parquetInput(session, flow.name, dataset) });
    } else if (dataset.kind === 'source') {
      throw refused(flow, target, `STREAM(${read.name}) reads the ${dataset.source.format} source ${dataset.name}; thund run streams Parquet sources and streaming tables`);
    } else {
      throw refused(flow, target, `STREAM(${read.name}) reads the ${dataset.kind.replace('-', ' ')} ${dataset.name}; a stream reads sources and streaming tables`);
    }
  }
  if (await joinsStreams(session, sql)) throw refused(flow, target, 'it joins two streams; stream-stream joins are not supported');
  if (usesWindowFunction(await duckDbSqlParser(session).serialize(sql))) {
    throw refused(flow, target, `it uses a window function (OVER …), which would only see one micro-batch at a time; ${STATELESS_ONLY}`);
  }
  return { sql, inputs };
}

function usesWindowFunction(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(usesWindowFunction);
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  if (node['class'] === 'WINDOW') return true;
  return Object.values(node).some(usesWindowFunction);
}

function refused(flow: Flow, sink: SinkDataset, message: string): InvalidInputError {
  return new InvalidInputError(`${formatOrigin(flow.origin)}: flow ${flow.name} into sink ${sink.name}: ${message}`, { context: { flow: flow.name, sink: sink.name } });
}
