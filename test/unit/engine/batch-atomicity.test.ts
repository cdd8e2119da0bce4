import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges } from '../../../src/engine/operators/apply-changes.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, rowsOf, windowRows } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

describe('a batch that fails half-way', () => {
  it('leaves window state and watermark as the batch before left them', async () => {
    const op = new WindowAggregation(session, {
      name: 'agg',
      eventTime: 'ts',
      window: { kind: 'tumbling', size: '10 seconds' },
      keys: [],
      aggregates: [{ name: 'total', sql: 'sum(CAST(label AS INTEGER))::INTEGER' }],
      outputMode: 'update',
      watermarkDelay: '5 seconds',
    });
    const load = (rows: [string, number][]): Promise<void> => createTable(session, 'batch', 'label VARCHAR, ts TIMESTAMP', rows.map(([l, s]) => [l, at(s)]));
    await load([['1', 1], ['2', 12]]);
    await op.processBatch('batch');
    // The cast fails only when the aggregates are computed, after the rows joined the buffer.
    await load([['x', 13], ['4', 30]]);
    await expect(op.processBatch('batch')).rejects.toThrow(/Could not convert/);
    expect(await rowsOf(session, 'SELECT label FROM agg__rows ORDER BY label')).toEqual([['1'], ['2']]);
    await load([['3', 13], ['4', 30]]);
    const retried = await op.processBatch('batch');
    expect(await windowRows(session, retried.output, [], ['total'])).toEqual([
      [10, 20, 5],
      [30, 40, 4],
    ]);
    expect(retried.watermark).toBe(at(25));
  });

  it('leaves no apply-changes state behind when the first batch is refused', async () => {
    await session.run(`CREATE TABLE dbz (op VARCHAR, before STRUCT(id INTEGER), after STRUCT(id INTEGER), lsn INTEGER)`);
    await session.run(`INSERT INTO dbz VALUES ('c', NULL, {'id': 1}, 1), ('t', NULL, NULL, 2)`);
    const debezium = new ApplyChanges(session, 'dbz2', { keys: ['id'], sequenceBy: 'lsn', format: { kind: 'debezium' }, storedAsScdType: 2 });
    await expect(debezium.processBatch('dbz')).rejects.toThrow(/only supported with SCD type 1/);
    expect(await rowsOf(session, "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'dbz2%'")).toEqual([]);
  });

  it('gives the session its DuckDB threads back after an apply-changes batch, applied or refused', async () => {
    const threaded = await DuckDbSession.open({ threads: 3 });
    try {
      const threads = async (): Promise<unknown> => (await threaded.queryJson("SELECT current_setting('threads')::INTEGER AS n"))[0]?.['n'];
      const op = new ApplyChanges(threaded, 'scd2', { keys: ['id'], sequenceBy: 'seq', storedAsScdType: 2 });
      await createTable(threaded, 'changes', 'id INTEGER, name VARCHAR, seq INTEGER', [[1, 'a', 1]]);
      await op.processBatch('changes', async () => expect(await threads()).toBe(1));
      expect(await threads()).toBe(3);
      await createTable(threaded, 'changes', 'id INTEGER, name VARCHAR, seq INTEGER', [[null, 'b', 2]]);
      await expect(op.processBatch('changes')).rejects.toThrow(/null key/);
      expect(await threads()).toBe(3);
    } finally {
      threaded.close();
    }
  });
});
