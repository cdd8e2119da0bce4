import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, rowsOf, windowRows } from './engine-test-helpers.js';
import { emittedPerBatch, windowedSum } from './output-mode-fixture.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

describe('update output mode', () => {
  it('emits the windows each batch changed, with their new aggregates, as upserts keyed by key + window', async () => {
    const op = windowedSum(session, 'update');
    const emitted = await emittedPerBatch(session, op);
    expect(emitted).toEqual([
      [
        ['a', 0, 10, 2, 3],
        ['b', 10, 20, 1, 3],
      ],
      [
        ['a', 0, 10, 4, 18],
        ['a', 10, 20, 1, 4],
        ['a', 30, 40, 1, 6],
      ],
      [
        ['a', 30, 40, 2, 15],
        ['b', 40, 50, 1, 8],
      ],
      [['c', 60, 70, 1, 11]],
    ]);
  });

  it('lists sessions that merged into another as retired, so an upsert consumer can delete them', async () => {
    const op = new WindowAggregation(session, {
      name: 'sessions',
      eventTime: 'ts',
      window: { kind: 'session', gap: '10 seconds' },
      keys: ['k'],
      aggregates: [{ name: 'n', sql: 'count(*)::INTEGER' }],
      outputMode: 'update',
    });
    const load = (rows: [string, number][]): Promise<void> => createTable(session, 'batch', 'k VARCHAR, ts TIMESTAMP', rows.map(([k, s]) => [k, at(s)]));
    await load([['a', 0], ['a', 15], ['b', 0]]);
    const first = await op.processBatch('batch');
    expect(await rowsOf(session, `SELECT * FROM ${first.retired}`)).toEqual([]);
    await load([['a', 8]]);
    const second = await op.processBatch('batch');
    expect(await windowRows(session, second.output, ['k'], ['n'])).toEqual([['a', 0, 25, 3]]);
    expect(await rowsOf(session, `SELECT k, strftime(window_start, '%H:%M:%S') FROM ${second.retired}`)).toEqual([['a', '00:00:15']]);
  });
});
