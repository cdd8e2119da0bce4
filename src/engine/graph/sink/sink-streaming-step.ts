/**
 * A streaming flow into a Kafka sink, exactly once: per micro-batch the flow's rows and its new
 * positions (the checkpoint record) are published in ONE Kafka transaction. A run starts from the
 * last committed checkpoint record, read after the flow's producer fenced any older one, so a
 * crash before a commit leaves neither the batch's rows nor its positions visible and the next
 * run publishes the batch again; a crash after it finds the positions moved. --full-refresh
 * starts the positions over: records already published stay in the topic. The sink's
 * expectations are checked on each micro-batch before its transaction begins: drop leaves rows
 * out, fail publishes nothing of that batch and moves no position (batches before it stay).
 */
import type { FlowCounts } from '../../run-events.js';
import { quoteIdentifier } from '../../../duckdb/session.js';
import { addExpectationCounts } from '../expectation-step.js';
import { StatelessStage } from '../streaming/flow-stage.js';
import { pendingFileBatches, type PendingBatch } from '../streaming/pending-batches.js';
import { KafkaFlowOutput } from './kafka-flow-output.js';
import type { KafkaSinkSettings } from './kafka-sink-settings.js';
import type { StreamPositions } from './sink-checkpoint.js';
import { checkSinkExpectations } from './sink-expectations.js';
import type { SinkFlowContext, SinkFlowOutcome } from './sink-flow-context.js';
import { planSinkStream, type SinkStreamPlan } from './sink-streaming-plan.js';

export async function runSinkStreamingFlow(context: SinkFlowContext, settings: KafkaSinkSettings): Promise<SinkFlowOutcome> {
  const { flow, session, graph } = context;
  const plan = await planSinkStream(context);
  const output = await KafkaFlowOutput.open({
    pipeline: graph.name,
    flowName: flow.name,
    settings,
    checkpointed: true,
    restore: !context.fullRefresh,
    ...(context.producerClient === undefined ? {} : { producerClient: context.producerClient }),
  });
  const prefix = `__thund_sink_stream_${flow.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const relations: string[] = [];
  try {
    const restored = output.restored;
    let batches = restored?.batches ?? 0;
    let positions: StreamPositions = Object.fromEntries(plan.inputs.map(({ input }) => [input.name, restored?.positions[input.name] ?? []]));
    const stage = new StatelessStage(session, flow.name, plan.sql, `${prefix}__out`);
    relations.push(`${prefix}__out`, `${prefix}__checked`);
    let totals: FlowCounts = { rowsRead: 0, rowsWritten: 0, lateRows: 0, expectations: [] };
    for (const batch of await pendingBatches(context, settings, plan, positions)) {
      if (context.signal?.aborted === true) break;
      const inputs = new Map<string, string>();
      let rowsRead = 0;
      for (const [index, { key, input }] of plan.inputs.entries()) {
        const relation = `${prefix}__in_${index}`;
        relations.push(relation);
        rowsRead += await input.stage(relation, batch.get(input.name) ?? []);
        inputs.set(key, relation);
      }
      const staged = await stage.process(inputs);
      const checked = await checkSinkExpectations(context, staged.output, `${prefix}__checked`, 'micro-batch');
      const next: StreamPositions = Object.fromEntries(Object.entries(positions).map(([name, items]) => [name, [...items, ...(batch.get(name) ?? [])]]));
      const records = await output.publish(session, checked.relation, { batches: batches + 1, positions: next });
      positions = next;
      batches += 1;
      const counts: FlowCounts = { rowsRead, rowsWritten: records, lateRows: 0, expectations: checked.counts };
      totals = {
        ...totals,
        rowsRead: totals.rowsRead + rowsRead,
        rowsWritten: totals.rowsWritten + records,
        expectations: addExpectationCounts(totals.expectations, checked.counts),
      };
      context.progress(batches, counts);
    }
    return { counts: totals, published: { sink: context.target.name, topic: output.topic, records: totals.rowsWritten } };
  } finally {
    for (const relation of new Set(relations)) await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(relation)}`).catch(() => undefined);
    await output.close();
  }
}

/** Per batch, the new items of each input (by input name), cut by the sink's batch limits. */
function pendingBatches(context: SinkFlowContext, settings: KafkaSinkSettings, plan: SinkStreamPlan, positions: StreamPositions): Promise<PendingBatch[]> {
  const limits = context.flow.streaming.trigger?.kind === 'once' ? { maxFiles: Number.MAX_SAFE_INTEGER } : settings.batchLimits;
  return pendingFileBatches(context.flow, plan.inputs, (input) => new Set(positions[input] ?? []), limits);
}
