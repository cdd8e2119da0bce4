import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, windowRows } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

function sessions(): WindowAggregation {
  return new WindowAggregation(session, {
    name: 'sessions',
    eventTime: 'ts',
    window: { kind: 'session', gap: '10 seconds' },
    keys: ['k'],
    aggregates: [
      { name: 'n', sql: 'count(*)::INTEGER' },
      { name: 'total', sql: 'sum(v)::INTEGER' },
    ],
    outputMode: 'complete',
  });
}

describe('session windows', () => {
  it('groups rows of a key closer than the gap into [first event, last event + gap)', async () => {
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [
      ['a', at(14), 4],
      ['a', at(0), 1],
      ['a', at(5), 2],
      ['a', at(30), 8],
      ['a', at(50), 16],
      ['a', at(60), 32], // exactly one gap after 50: a new session
      ['b', at(2), 64],
    ]);
    const { output } = await sessions().processBatch('events');
    expect(await windowRows(session, output, ['k'], ['n', 'total'])).toEqual([
      ['a', 0, 24, 3, 7],
      ['a', 30, 40, 1, 8],
      ['a', 50, 60, 1, 16],
      ['a', 60, 70, 1, 32],
      ['b', 2, 12, 1, 64],
    ]);
  });

  it('merges sessions when a later batch brings a row that bridges them', async () => {
    const op = sessions();
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [['a', at(0), 1]]);
    await op.processBatch('events');
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [['a', at(15), 2]]);
    const second = await op.processBatch('events');
    expect(await windowRows(session, second.output, ['k'], ['n', 'total'])).toEqual([
      ['a', 0, 10, 1, 1],
      ['a', 15, 25, 1, 2],
    ]);
    await createTable(session, 'events', 'k VARCHAR, ts TIMESTAMP, v INTEGER', [['a', at(8), 4]]);
    const third = await op.processBatch('events');
    expect(await windowRows(session, third.output, ['k'], ['n', 'total'])).toEqual([['a', 0, 25, 3, 7]]);
  });
});
