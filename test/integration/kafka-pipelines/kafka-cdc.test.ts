/**
 * A Debezium JSON topic read by a pipeline with `thund run`'s engine (the native backend with the
 * Kafka offset streams): two apply-changes flows read the same topic (each keeps its own offsets)
 * into an SCD1 table and an SCD2 history. The events arrive out of order (by lsn), with deletes,
 * re-creates, tombstones and schema-wrapped envelopes. For several ways of splitting the events
 * across runs (produce, run, produce, run) and across micro-batches, both tables equal one DuckDB
 * reference query over the events produced so far, and a run with nothing new commits nothing.
 */
import { describe, expect, it } from 'vitest';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import { brokers, createTopic, runSinkSpec, unique, type SinkRun } from '../kafka-support/sink-readback.js';
import { liveTableRows, warehousePerTest } from './pipeline-tables.js';
import { changeEvents, produce, referenceRows, scd1Reference, scd2Reference } from './debezium-topic.js';

const place = warehousePerTest('thund-kafka-cdc-');

function cdcSpec(pipeline: string, topic: string, maxRecords: number): string {
  const flow = (scd: 1 | 2): string => `    sql: SELECT op, before, after, source.lsn AS lsn FROM STREAM(customer_changes)
    apply_changes: { keys: [id], sequence_by: lsn, change_format: debezium, stored_as_scd_type: ${scd} }`;
  return `pipeline: ${pipeline}
sources:
  customer_changes:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
    value_format: debezium
tables:
  lake.customers:
    kind: streaming_table
    properties: { thund.stream.max-rows-per-batch: "${maxRecords}" }
${flow(1)}
  lake.customers_history:
    kind: streaming_table
    partitioned_by: ["bucket(4, id)"]
    properties: { write.update.mode: merge-on-read, thund.stream.max-rows-per-batch: "${maxRecords}" }
${flow(2)}
`;
}

async function run(spec: string): Promise<SinkRun> {
  const ran = await runSinkSpec(place, spec, { streams: kafkaOffsetStreams() });
  if (ran.result.status !== 'completed') throw new Error(`run ${ran.result.status}: ${JSON.stringify(ran.result.error)}`);
  return ran;
}

const tableRows = (name: string, columns: string, orderBy: string): Promise<unknown[][]> => liveTableRows(place.opened, { namespace: ['lake'], name }, columns, orderBy);

async function expectTablesMatch(parts: readonly number[]): Promise<void> {
  expect(await tableRows('customers', 'id, name, email, tier', 'id')).toEqual(await referenceRows(scd1Reference(parts)));
  expect(await tableRows('customers_history', 'id, name, email, tier, __START_AT, __END_AT', 'id, __START_AT')).toEqual(await referenceRows(scd2Reference(parts)));
}

const batchesOf = (ran: SinkRun, flow: string): number => ran.events.filter((e) => e.phase === 'flow-progress' && e.flow === flow).length;

describe('a Debezium topic → SCD1 and SCD2 tables with thund run (available-now)', () => {
  it.each([
    { splits: [[0, 1], [2], [3]], maxRecords: 37 },
    { splits: [[0], [1], [2], [3]], maxRecords: 7 },
    { splits: [[0, 1, 2, 3]], maxRecords: 100_000 },
  ])('runs after producing files $splits, at most $maxRecords records per micro-batch', async ({ splits, maxRecords }) => {
    const topic = await createTopic('thund-kafka-cdc', 3);
    const spec = cdcSpec(unique('kafka_cdc').replace(/-/g, '_'), topic, maxRecords);
    const produced: number[] = [];
    let records = 0;
    for (const parts of splits) {
      for (const part of parts) {
        const events = await changeEvents(part);
        records += events.length;
        await produce(topic, events);
        produced.push(part);
      }
      const ran = await run(spec);
      // Each flow reads the records produced since its last run, in batches of at most maxRecords per partition share.
      expect(batchesOf(ran, 'lake.customers')).toBeGreaterThanOrEqual(1);
      await expectTablesMatch(produced);
    }
    expect(records).toBeGreaterThan(200);
    // Nothing new: no batch, no snapshot.
    const before = (await place.opened.catalog.loadTable({ namespace: ['lake'], name: 'customers_history' })).metadata.snapshots.length;
    const idle = await run(spec);
    expect(batchesOf(idle, 'lake.customers') + batchesOf(idle, 'lake.customers_history')).toBe(0);
    expect((await place.opened.catalog.loadTable({ namespace: ['lake'], name: 'customers_history' })).metadata.snapshots).toHaveLength(before);
    await expectTablesMatch(produced);
  });
});
