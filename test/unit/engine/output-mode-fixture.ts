/**
 * The stream the output-mode tests share: tumbling 10 s windows per key `k`, sum of `v`, a
 * watermark 5 s behind the largest event time. Watermarks after each batch: 7, 25, 35, 55.
 * Late rows (Spark's rule: every window of the row already finalised by the watermark of the batches
 * before): a@8 in batch 3 (its window [0, 10) ended before the watermark 25). a@2 in batch 2 is
 * behind the watermark 7 too, but its window [0, 10) is still open then, so it counts.
 */
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation, type OutputMode } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, windowRows } from './engine-test-helpers.js';

export const BATCHES: readonly (readonly [string, number, number])[][] = [
  [['a', 1, 1], ['a', 4, 2], ['b', 12, 3]],
  [['a', 13, 4], ['a', 2, 5], ['a', 30, 6], ['a', 9, 10]],
  [['a', 8, 7], ['b', 40, 8], ['a', 31, 9]],
  [['c', 60, 11]],
];

export function windowedSum(session: DuckDbSession, outputMode: OutputMode, name = `sum_${outputMode}`): WindowAggregation {
  return new WindowAggregation(session, {
    name,
    eventTime: 'ts',
    window: { kind: 'tumbling', size: '10 seconds' },
    keys: ['k'],
    aggregates: [
      { name: 'n', sql: 'count(*)::INTEGER' },
      { name: 'total', sql: 'sum(v)::INTEGER' },
    ],
    outputMode,
    watermarkDelay: '5 seconds',
  });
}

export async function loadBatch(session: DuckDbSession, index: number, table = 'batch'): Promise<void> {
  await createTable(session, table, 'k VARCHAR, ts TIMESTAMP, v INTEGER', BATCHES[index]!.map(([k, s, v]) => [k, at(s), v]));
}

/** Feeds every batch to the operator; per batch, the emitted rows as [k, start, end, n, total]. */
export async function emittedPerBatch(session: DuckDbSession, op: WindowAggregation): Promise<unknown[][]> {
  const emitted: unknown[][] = [];
  for (let i = 0; i < BATCHES.length; i++) {
    await loadBatch(session, i);
    const result = await op.processBatch('batch');
    emitted.push(await windowRows(session, result.output, ['k'], ['n', 'total']));
  }
  return emitted;
}
