import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, windowRows } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

function tumbling(size: string): WindowAggregation {
  return new WindowAggregation(session, {
    name: 'tumbling',
    eventTime: 'ts',
    window: { kind: 'tumbling', size },
    keys: ['k'],
    aggregates: [
      { name: 'n', sql: 'count(*)::INTEGER' },
      { name: 'total', sql: 'sum(v)::INTEGER' },
    ],
    outputMode: 'complete',
  });
}

describe('tumbling windows', () => {
  it('puts each row into the one window [start, start + size) holding its event time, per key', async () => {
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [
      ['a', at(0), 1],
      ['a', at(9), 2],
      ['a', at(10), 4],
      ['a', at(25), 8],
      ['a', at(-1), 16],
      ['b', at(3), 32],
    ]);
    const { output } = await tumbling('10 seconds').processBatch('events');
    expect(await windowRows(session, output, ['k'], ['n', 'total'])).toEqual([
      ['a', -10, 0, 1, 16],
      ['a', 0, 10, 2, 3],
      ['a', 10, 20, 1, 4],
      ['a', 20, 30, 1, 8],
      ['b', 0, 10, 1, 32],
    ]);
  });

  it('aligns windows to the Unix epoch, not to the first row', async () => {
    // 2024-01-01 00:00:00 is 1704067200 s after the epoch = 243438171 × 7 + 3, so 7-second windows start 3 s before it.
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [
      ['a', at(0), 1],
      ['a', at(4), 2],
    ]);
    const { output } = await tumbling('7 seconds').processBatch('events');
    expect(await windowRows(session, output, ['k'], ['n', 'total'])).toEqual([
      ['a', -3, 4, 1, 1],
      ['a', 4, 11, 1, 2],
    ]);
  });

  it('rejects a size that is not a fixed duration', () => {
    expect(() => tumbling('1 month')).toThrow(/not a duration/);
    expect(() => tumbling('0 seconds')).toThrow(/positive/);
  });
});
