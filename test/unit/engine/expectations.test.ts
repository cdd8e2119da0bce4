import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { applyExpectations } from '../../../src/engine/operators/expectations.js';
import { ExpectationFailedError } from '../../../src/engine/operators/operator-errors.js';
import { InvalidInputError } from '../../../src/errors.js';
import { createTable, openSession, rowsOf } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
  await createTable(session, 'orders', 'id INTEGER, amount INTEGER', [
    [1, 10],
    [2, -5],
    [3, null],
    [4, 20],
  ]);
});
afterEach(() => session.close());

describe('expectations', () => {
  it('warn: counts the rows that do not meet the condition (NULL counts as not met) and keeps them', async () => {
    const result = await applyExpectations(session, 'orders', [{ name: 'positive_amount', condition: 'amount > 0', action: 'warn' }], 'checked');
    expect(result.counts).toEqual([{ name: 'positive_amount', action: 'warn', failedRows: 2 }]);
    expect(await rowsOf(session, 'SELECT id FROM checked ORDER BY id')).toEqual([[1], [2], [3], [4]]);
  });

  it('drop: counts and removes them', async () => {
    const result = await applyExpectations(session, 'orders', [{ name: 'positive_amount', condition: 'amount > 0', action: 'drop' }], 'checked');
    expect(result.counts).toEqual([{ name: 'positive_amount', action: 'drop', failedRows: 2 }]);
    expect(await rowsOf(session, 'SELECT id, amount FROM checked ORDER BY id')).toEqual([
      [1, 10],
      [4, 20],
    ]);
  });

  it('fail: stops with an error naming the expectation and an offending row, and writes no output', async () => {
    const run = applyExpectations(session, 'orders', [{ name: 'positive_amount', condition: 'amount > 0', action: 'fail' }], 'checked');
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExpectationFailedError);
    const failed = error as ExpectationFailedError;
    expect(failed.code).toBe('EXPECTATION_FAILED');
    expect(failed.expectation).toBe('positive_amount');
    expect(failed.failedRows).toBe(2);
    expect([2, 3]).toContain((JSON.parse(failed.sampleRow) as { id: number }).id);
    expect(failed.message).toContain('positive_amount');
    expect(await rowsOf(session, "SELECT count(*)::INTEGER FROM duckdb_tables() WHERE table_name = 'checked'")).toEqual([[0]]);
  });

  it('fail passes a batch in which every row meets the condition', async () => {
    const result = await applyExpectations(session, 'orders', [{ name: 'has_id', condition: 'id IS NOT NULL', action: 'fail' }], 'checked');
    expect(result.counts).toEqual([{ name: 'has_id', action: 'fail', failedRows: 0 }]);
    expect(await rowsOf(session, 'SELECT count(*)::INTEGER FROM checked')).toEqual([[4]]);
  });

  it('counts each expectation on the whole batch, independent of the others', async () => {
    const result = await applyExpectations(
      session,
      'orders',
      [
        { name: 'small_id', condition: 'id < 4', action: 'warn' },
        { name: 'positive_amount', condition: 'amount > 0', action: 'drop' },
        { name: 'not_two', condition: 'id <> 2', action: 'drop' },
      ],
      'checked',
    );
    expect(result.counts).toEqual([
      { name: 'small_id', action: 'warn', failedRows: 1 },
      { name: 'positive_amount', action: 'drop', failedRows: 2 },
      { name: 'not_two', action: 'drop', failedRows: 1 },
    ]);
    expect(await rowsOf(session, 'SELECT id FROM checked ORDER BY id')).toEqual([[1], [4]]);
  });

  it('rejects a duplicate name and a condition that does not evaluate', async () => {
    await expect(
      applyExpectations(
        session,
        'orders',
        [
          { name: 'x', condition: 'id > 0', action: 'warn' },
          { name: 'x', condition: 'id > 1', action: 'warn' },
        ],
        'checked',
      ),
    ).rejects.toThrow(InvalidInputError);
    await expect(applyExpectations(session, 'orders', [{ name: 'bad', condition: 'no_such_column > 0', action: 'warn' }], 'checked')).rejects.toThrow(
      /cannot be evaluated \(bad\)/,
    );
  });
});
