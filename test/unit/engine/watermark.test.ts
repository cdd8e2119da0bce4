import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { EventTimeWatermark } from '../../../src/engine/operators/watermark.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, rowsOf, windowRows, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

async function batch(rows: (number | null)[]): Promise<void> {
  await createTable(session, 'batch', 'id INTEGER, ts TIMESTAMP', rows.map((s, i): Cell[] => [i + 1, s === null ? null : at(s)]));
}

describe('event-time watermark = max event time seen − delay', () => {
  it('keeps every row of the first batch, then drops rows earlier than the watermark of the batches before', async () => {
    const watermark = new EventTimeWatermark(session, { name: 'wm', eventTime: 'ts', delay: '10 seconds' });
    await watermark.init();
    expect(await watermark.current()).toBeNull();

    await batch([5, 20, 12, 1]);
    expect((await watermark.splitLate('batch', 'ok')).late).toBe(0);
    await watermark.advance('ok');
    expect(await watermark.current()).toBe(at(10));

    // 9 is before the watermark (10), 10 is not; a row without event time cannot be placed.
    await batch([9, 10, 15, null]);
    const split = await watermark.splitLate('batch', 'ok');
    expect(split.late).toBe(2);
    expect(await rowsOf(session, 'SELECT id FROM ok ORDER BY id')).toEqual([[2], [3]]);
    await watermark.advance('ok');
    expect(await watermark.current()).toBe(at(10));

    await batch([50]);
    await watermark.splitLate('batch', 'ok');
    await watermark.advance('ok');
    expect(await watermark.current()).toBe(at(40));

    // Never moves back: the largest event time seen (50) still holds after a batch of older rows.
    await batch([45, 30]);
    expect((await watermark.splitLate('batch', 'ok')).late).toBe(1);
    await watermark.advance('ok');
    expect(await watermark.current()).toBe(at(40));

    await batch([]);
    await watermark.splitLate('batch', 'ok');
    await watermark.advance('ok');
    expect(await watermark.current()).toBe(at(40));
  });

  it('leaves out of a windowed aggregation only rows whose window is final, and counts them per batch', async () => {
    const op = new WindowAggregation(session, {
      name: 'agg',
      eventTime: 'ts',
      window: { kind: 'tumbling', size: '10 seconds' },
      keys: [],
      aggregates: [{ name: 'ids', sql: 'list(id ORDER BY id)::VARCHAR' }],
      outputMode: 'complete',
      watermarkDelay: '5 seconds',
    });
    await batch([3, 27]); // ids 1, 2; watermark 22
    expect((await op.processBatch('batch')).lateRows).toBe(0);
    // ids 1..4: 4 is late (its window [0, 10) ended before the watermark 22); 21 is behind the
    // watermark but its window [20, 30) is still open, so it counts (Spark's rule).
    await batch([4, 21, 22, 29]);
    const result = await op.processBatch('batch');
    expect(result.lateRows).toBe(1);
    expect(result.watermark).toBe(at(24));
    expect(await windowRows(session, result.output, [], ['ids'])).toEqual([
      [0, 10, '[1]'],
      [20, 30, '[2, 2, 3, 4]'],
    ]);
  });
});
