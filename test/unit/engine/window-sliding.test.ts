import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, windowRows } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

function sliding(size: string, slide: string): WindowAggregation {
  return new WindowAggregation(session, {
    name: 'sliding',
    eventTime: 'ts',
    window: { kind: 'sliding', size, slide },
    keys: ['k'],
    aggregates: [
      { name: 'n', sql: 'count(*)::INTEGER' },
      { name: 'total', sql: 'sum(v)::INTEGER' },
    ],
    outputMode: 'complete',
  });
}

describe('sliding windows', () => {
  it('puts each row into every window [k·slide, k·slide + size) holding its event time', async () => {
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [
      ['a', at(3), 1],
      ['a', at(7), 2],
      ['a', at(12), 4],
      ['b', at(5), 8],
    ]);
    const { output } = await sliding('10 seconds', '5 seconds').processBatch('events');
    expect(await windowRows(session, output, ['k'], ['n', 'total'])).toEqual([
      ['a', -5, 5, 1, 1],
      ['a', 0, 10, 2, 3],
      ['a', 5, 15, 2, 6],
      ['a', 10, 20, 1, 4],
      ['b', 0, 10, 1, 8],
      ['b', 5, 15, 1, 8],
    ]);
  });

  it('handles a slide that does not divide the size', async () => {
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [['a', at(9), 1]]);
    const { output } = await sliding('10 seconds', '4 seconds').processBatch('events');
    expect(await windowRows(session, output, ['k'], ['n'])).toEqual([
      ['a', 0, 10, 1],
      ['a', 4, 14, 1],
      ['a', 8, 18, 1],
    ]);
  });

  it('rejects a slide longer than the window', () => {
    expect(() => sliding('5 seconds', '10 seconds')).toThrow(/longer than its size/);
  });
});
