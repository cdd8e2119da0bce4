/**
 * A Kafka read that ends where it stood — the end offsets promise records, but none arrive within
 * the wait (a consumer still joining its group after the broker came back) — has nothing to run
 * or commit. The run completes, commits nothing, and the next run reads the records. Before, the
 * empty batch ran the flow's SQL over a relation with no value columns in the run's new session,
 * and the run failed on the binder ("column id not found"), which ended `thund serve`.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OffsetStream, OffsetStreamConnector, PartitionOffsets } from '../../../../../connectors/source.js';
import type { PositionRange, SourceRecord } from '../../../../../connectors/streaming-source.js';
import { createParquetSourceConnector } from '../../../../../connectors/parquet/parquet-source.js';
import { analyseGraph } from '../../../../../src/app/commands/validate.js';
import { NativeBackend } from '../../../../../src/backend/native/native-backend.js';
import { kafka, pipeline } from '../../../../../src/pipeline/builder.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../../local-warehouse.js';

let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'empty-kafka-read' });
});
afterEach(() => warehouse.close());

/** Partition 0 holds offsets 0..2; reads return them only once `arrived`. */
function topic(state: { arrived: boolean }): OffsetStreamConnector {
  const bounds: PartitionOffsets[] = [{ topic: 'orders', partition: 0, low: 0n, high: 3n }];
  const record = (offset: number): SourceRecord<Record<string, unknown>> =>
    ({ topic: 'orders', partition: 0, offset: BigInt(offset), timestampMs: 0, key: null, headers: [], value: { id: offset, amount: offset * 10 } }) as unknown as SourceRecord<Record<string, unknown>>;
  const stream: OffsetStream = {
    bounds: () => Promise.resolve(bounds),
    read: (ranges: readonly PositionRange[]) =>
      Promise.resolve(
        state.arrived
          ? { records: [0, 1, 2].map(record), deadLetters: [], skipped: 0, reached: ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: r.nextOffset })) }
          : { records: [], deadLetters: [], skipped: 0, reached: ranges.map((r) => ({ topic: r.topic, partition: r.partition, nextOffset: r.firstOffset })) },
      ),
    close: () => Promise.resolve(),
  };
  return { open: () => Promise.resolve(stream) };
}

it('completes a run whose read got nothing of what the end offsets promised, committing nothing; the next run lands the records', async () => {
  const { graph, problems } = await analyseGraph(
    pipeline('orders').source('orders', kafka({ topic: 'orders', bootstrapServers: '127.0.0.1:9' })).streamingTable('lake.orders', { sql: 'SELECT id, amount FROM STREAM(orders)' }).build(),
  );
  expect(problems).toEqual([]);
  const state = { arrived: false };
  const backend = () => new NativeBackend({ catalog: warehouse.catalog, io: warehouse.io, sources: createParquetSourceConnector(), streams: topic(state) });

  const empty = await backend().run(graph).result;
  expect(empty.error).toBeUndefined();
  expect(empty.status).toBe('completed');
  expect(empty.flows.map((flow) => flow.counts.rowsWritten)).toEqual([0]);

  state.arrived = true;
  const landed = await backend().run(graph).result;
  expect(landed.status).toBe('completed');
  expect(landed.flows.map((flow) => flow.counts.rowsWritten)).toEqual([3]);
  const table = await warehouse.catalog.loadTable({ namespace: ['lake'], name: 'orders' });
  expect(table.metadata.snapshots).toHaveLength(1);
});
