import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { openSession } from './engine-test-helpers.js';
import { BATCHES, emittedPerBatch, loadBatch, windowedSum } from './output-mode-fixture.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

describe('append output mode', () => {
  it('emits each window exactly once, in the batch whose watermark reaches its end', async () => {
    const op = windowedSum(session, 'append');
    const emitted = await emittedPerBatch(session, op);
    expect(emitted).toEqual([
      [],
      [
        ['a', 0, 10, 4, 18],
        ['a', 10, 20, 1, 4],
        ['b', 10, 20, 1, 3],
      ],
      [],
      [
        ['a', 30, 40, 2, 15],
        ['b', 40, 50, 1, 8],
      ],
    ]);
  });

  it('keeps only the rows of windows that are not final', async () => {
    const op = windowedSum(session, 'append');
    for (let i = 0; i < BATCHES.length; i++) {
      await loadBatch(session, i);
      await op.processBatch('batch');
    }
    const buffered = await session.queryJson('SELECT k, v FROM sum_append__rows ORDER BY v');
    expect(buffered).toEqual([{ k: 'c', v: 11 }]);
  });

  it('needs a watermark', () => {
    expect(
      () =>
        new WindowAggregation(session, {
          name: 'x',
          eventTime: 'ts',
          window: { kind: 'tumbling', size: '1 minute' },
          keys: [],
          aggregates: [{ name: 'n', sql: 'count(*)' }],
          outputMode: 'append',
        }),
    ).toThrow(/append mode needs a watermark/);
  });
});
