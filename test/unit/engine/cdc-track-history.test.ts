import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { InvalidInputError } from '../../../src/errors.js';
import { createTable, openSession, rowsOf } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
  await createTable(session, 'changes', 'id INTEGER, name VARCHAR, city VARCHAR, visits INTEGER, seq INTEGER', [
    [1, 'ann', 'oslo', 1, 1],
    [1, 'ann', 'oslo', 2, 2],
    [1, 'ann', 'paris', 3, 3],
    [1, 'anne', 'paris', 4, 4],
  ]);
});
afterEach(() => session.close());

const base = { keys: ['id'], sequenceBy: 'seq', exceptColumnList: ['seq'], storedAsScdType: 2 as const };

describe('track history columns (SCD type 2)', () => {
  it('track_history_column_list: only changes to listed columns open a version; others update it in place', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, trackHistoryColumnList: ['city'] }, 'listed');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY __START_AT`)).toEqual([
      [1, 'ann', 'oslo', 2, 1, 3],
      [1, 'anne', 'paris', 4, 3, null],
    ]);
  });

  it('track_history_except_column_list: every column but the excepted ones is tracked', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, trackHistoryExceptColumnList: ['visits'] }, 'except');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY __START_AT`)).toEqual([
      [1, 'ann', 'oslo', 2, 1, 3],
      [1, 'ann', 'paris', 3, 3, 4],
      [1, 'anne', 'paris', 4, 4, null],
    ]);
  });

  it('without either, every change of a non-key column opens a version', async () => {
    const target = await applyChangesOnce(session, 'changes', base, 'all');
    expect(await rowsOf(session, `SELECT visits, __START_AT, __END_AT FROM ${target} ORDER BY __START_AT`)).toEqual([
      [1, 1, 2],
      [2, 2, 3],
      [3, 3, 4],
      [4, 4, null],
    ]);
  });

  it('an in-place update in a later batch replaces the current row under the same __START_AT', async () => {
    const op = new ApplyChanges(session, 'inplace', { ...base, trackHistoryColumnList: ['city'] });
    await session.run('CREATE TABLE first AS SELECT * FROM changes WHERE seq = 1');
    await session.run('CREATE TABLE second AS SELECT * FROM changes WHERE seq = 2');
    await op.processBatch('first');
    const { changeSet } = await op.processBatch('second');
    expect(await rowsOf(session, `SELECT * FROM ${changeSet.deletes}`)).toEqual([[1, 1]]);
    expect(await rowsOf(session, `SELECT * FROM ${changeSet.inserts}`)).toEqual([[1, 'ann', 'oslo', 2, 1, null]]);
  });

  it('is refused with SCD type 1 and for unknown or key columns', async () => {
    expect(() => new ApplyChanges(session, 'x', { ...base, storedAsScdType: 1, trackHistoryColumnList: ['city'] })).toThrow(/need SCD type 2/);
    await expect(applyChangesOnce(session, 'changes', { ...base, trackHistoryColumnList: ['id'] }, 'x')).rejects.toThrow(InvalidInputError);
    await expect(applyChangesOnce(session, 'changes', { ...base, trackHistoryColumnList: ['town'] }, 'y')).rejects.toThrow(/Track-history column "town"/);
  });
});
