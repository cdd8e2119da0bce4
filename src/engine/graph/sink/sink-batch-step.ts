/**
 * A batch flow (or a once flow) into a Kafka sink: the query's result is published in one Kafka
 * transaction, so read_committed consumers see all of its rows or none. Every run publishes the
 * whole result again (a sink is not read back, so there is nothing to compare with), except a
 * once flow: it writes a checkpoint record in the same transaction and is skipped while that
 * record exists (--full-refresh runs it again). The sink's expectations are checked first: drop
 * leaves rows out, fail publishes nothing of the flow (and a once flow stays to do).
 */
import { emptyCounts } from '../../run-events.js';
import { duckDbMessage, quoteIdentifier } from '../../../duckdb/session.js';
import { FlowError } from '../../../errors.js';
import { countRows } from '../../operators/sql.js';
import { flowQuery } from '../flow-query.js';
import { KafkaFlowOutput } from './kafka-flow-output.js';
import type { KafkaSinkSettings } from './kafka-sink-settings.js';
import { checkSinkExpectations } from './sink-expectations.js';
import type { SinkFlowContext, SinkFlowOutcome } from './sink-flow-context.js';

export async function runSinkBatchFlow(context: SinkFlowContext, settings: KafkaSinkSettings): Promise<SinkFlowOutcome> {
  const { session, flow, graph, target } = context;
  const once = flow.kind === 'once';
  const output = await KafkaFlowOutput.open({
    pipeline: graph.name,
    flowName: flow.name,
    settings,
    checkpointed: once,
    restore: !context.fullRefresh,
    ...(context.producerClient === undefined ? {} : { producerClient: context.producerClient }),
  });
  const published = (records: number) => ({ sink: target.name, topic: output.topic, records });
  const relation = `__thund_sink_batch_${flow.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const checkedRelation = `${relation}__checked`;
  try {
    if (once && output.restored !== undefined) return { counts: emptyCounts(), published: published(0), skipped: 'once-done' };
    try {
      await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(relation)} AS ${flowQuery(flow)}`);
    } catch (error) {
      throw new FlowError(`Flow "${flow.name}": SQL error: ${duckDbMessage(error)}`, { cause: error, context: { flow: flow.name } });
    }
    const rowsRead = await countRows(session, quoteIdentifier(relation));
    const checked = await checkSinkExpectations(context, relation, checkedRelation, 'flow');
    const records = await output.publish(session, checked.relation, once ? { batches: (output.restored?.batches ?? 0) + 1, positions: {} } : undefined);
    return { counts: { ...emptyCounts(), rowsRead, rowsWritten: records, expectations: checked.counts }, published: published(records) };
  } finally {
    for (const name of [relation, checkedRelation]) await session.run(`DROP TABLE IF EXISTS ${quoteIdentifier(name)}`).catch(() => undefined);
    await output.close();
  }
}
