/**
 * How a streaming flow runs, decided from the graph before any batch: which streamed reads it has
 * (Parquet sources read by files, streaming tables read by their appended data files, Kafka
 * topics read by offsets), whether it
 * is a stateful aggregation (and its window, watermark and update keys), and what it refuses
 * (stream-stream joins, …), each refusal naming the flow and its file:line.
 */
import { InvalidInputError } from '../../../errors.js';
import { findDataset } from '../../../pipeline/ir/graph.js';
import { formatOrigin } from '../../../pipeline/ir/origin.js';
import type { Watermark } from '../../../pipeline/ir/streaming.js';
import type { Flow } from '../../../pipeline/ir/flow.js';
import type { FlowContext } from '../flow-context.js';
import { isProjectionOnly } from './projection-only.js';
import { aggregationShape, type AggregationShape } from './aggregation-shape.js';
import { fileStreamInput, type StreamInput } from './input-round.js';
import { kafkaInput } from './kafka-input.js';
import { parquetInput, tableInput } from './stream-input.js';
import { joinsStreams } from './stream-joins.js';
import { streamReadKey } from './stream-rewrite.js';
import { flowQuery } from '../flow-query.js';

export interface StreamedInput {
  /** streamReadKey of the name the SQL reads. */
  readonly key: string;
  readonly input: StreamInput;
  /** The source's own watermark, for every streaming read of it. */
  readonly watermark?: Watermark;
}

export interface StreamingPlan {
  readonly sql: string;
  readonly inputs: readonly StreamedInput[];
  /** A stateless or apply-changes flow whose SQL only picks columns of its stream (projection-only.ts): its output is a view of the batch. */
  readonly projectionOnly?: boolean;
  /** Set for a stateful aggregation over the (single) streamed input. */
  readonly aggregation?: AggregationShape & { readonly watermark?: Watermark };
}

export async function planStreamingFlow(context: FlowContext): Promise<StreamingPlan> {
  const { flow, graph } = context;
  const sql = flowQuery(flow);
  if (flow.dependencies === undefined) throw refused(flow, 'its reads are not inferred yet (run inferDependencies first)');
  const inputs: StreamedInput[] = [];
  for (const read of flow.dependencies.reads.filter((r) => r.streaming)) {
    const key = streamReadKey(read.name);
    if (inputs.some((input) => input.key === key)) continue;
    const dataset = findDataset(graph, read.name);
    if (dataset === undefined) throw refused(flow, `STREAM(${read.name}) reads no dataset of the pipeline`);
    if (dataset.kind === 'streaming-table') {
      inputs.push({ key, input: fileStreamInput(flow, tableInput(context.session, context.catalog, context.io, flow.name, dataset)) });
      continue;
    }
    if (dataset.kind !== 'source') {
      throw refused(flow, `STREAM(${read.name}) reads the ${dataset.kind.replace('-', ' ')} ${dataset.name}; a stream reads sources and streaming tables`);
    }
    const watermark = dataset.watermark === undefined ? {} : { watermark: dataset.watermark };
    if (dataset.source.format === 'kafka') {
      if (context.streams === undefined) throw refused(flow, `STREAM(${read.name}) reads the Kafka topic ${dataset.source.topics.join(', ')}, and this run has no Kafka reader`);
      inputs.push({ key, input: kafkaInput(context, dataset, context.streams), ...watermark });
      continue;
    }
    inputs.push({ key, input: fileStreamInput(flow, parquetInput(context.session, flow.name, dataset)), ...watermark });
  }
  if (inputs.length > 0 && (await joinsStreams(context.session, sql))) {
    throw refused(flow, 'it joins two streams; stream-stream joins are not supported (join a stream with a table, or UNION ALL streams)');
  }
  const grouped = sharedGroupSource(context, inputs);
  if (grouped !== undefined && (flow.kind === 'apply-changes' || flow.dependencies.aggregatesStream)) {
    throw refused(flow, `it keeps state (${flow.kind === 'apply-changes' ? 'apply_changes' : 'an aggregation'}), which one process must own, and its Kafka source ${grouped} shares partitions between processes (option consumer_group); drop the option for this source`);
  }
  const projectionOnly = async (): Promise<boolean> => inputs.length === 1 && (await isProjectionOnly(context.session, sql));
  // The operator reads a projection of the batch where it lies: the view costs nothing, a copy about what staging did.
  if (flow.kind === 'apply-changes') return { sql, inputs, projectionOnly: await projectionOnly() };
  if (!flow.dependencies.aggregatesStream) {
    if (flow.outputMode !== 'append') {
      throw refused(flow, `output mode ${flow.outputMode} needs an aggregation; a flow without one appends its rows (output_mode: append)`);
    }
    return { sql, inputs, projectionOnly: await projectionOnly() };
  }
  const [input] = inputs;
  if (input === undefined || inputs.length > 1) throw refused(flow, 'a streaming aggregation reads exactly one STREAM() input');
  const shape = await aggregationShape(context.session, flow.name, sql);
  const watermark = flow.streaming.watermark ?? input.watermark;
  if (watermark !== undefined && shape.window !== undefined && watermark.column.toLowerCase() !== shape.window.column.toLowerCase()) {
    throw refused(flow, `the watermark is on ${watermark.column} but the window on ${shape.window.column}; they must be the same column`);
  }
  if (flow.outputMode === 'append' && (shape.window === undefined || watermark === undefined)) {
    throw refused(flow, 'an aggregation in append mode needs a time_bucket() window and a watermark on its column (a result is final only once the watermark passes its window)');
  }
  if (flow.outputMode === 'update' && shape.keyPositions === undefined) {
    throw refused(flow, 'an aggregation in update mode names its output columns (no SELECT *), so the group keys are known');
  }
  return { sql, inputs, aggregation: { ...shape, ...(watermark === undefined ? {} : { watermark }) } };
}

/** The name of a streamed Kafka source whose partitions a consumer group shares between processes. */
function sharedGroupSource(context: FlowContext, inputs: readonly StreamedInput[]): string | undefined {
  return inputs.find(({ input }) => {
    const dataset = findDataset(context.graph, input.name);
    return dataset?.kind === 'source' && dataset.source.format === 'kafka' && dataset.source.options['consumer_group'] !== undefined;
  })?.input.name;
}

function refused(flow: Flow, message: string): InvalidInputError {
  return new InvalidInputError(`${formatOrigin(flow.origin)}: flow ${flow.name}: ${message}`, { context: { flow: flow.name } });
}
