import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { createTable, openSession, rowsOf } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
  await createTable(session, 'changes', 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR, gone BOOLEAN', [
    [1, 'ann', 1, 'I', false],
    [2, 'bob', 2, 'I', false],
    [3, 'cy', 3, 'I', false],
    [1, null, 4, 'D', false],
    [2, 'bob', 5, 'U', true],
    [3, 'cyd', 6, 'U', null],
  ]);
});
afterEach(() => session.close());

describe('apply_as_deletes', () => {
  const base = { keys: ['id'], sequenceBy: 'seq', exceptColumnList: ['op', 'gone'], applyAsDeletes: "op = 'D' OR gone" };

  it('SCD1: rows meeting the condition delete their key; a NULL condition is not a delete', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, storedAsScdType: 1 }, 'scd1');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id`)).toEqual([[3, 'cyd', 6]]);
  });

  it('SCD2: a delete closes the current version and opens none', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, storedAsScdType: 2 }, 'scd2');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual([
      [1, 'ann', 1, 1, 4],
      [2, 'bob', 2, 2, 5],
      [3, 'cy', 3, 3, 6],
      [3, 'cyd', 6, 6, null],
    ]);
  });

  it('without the option every event is an upsert', async () => {
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', exceptColumnList: ['op', 'gone'] }, 'none');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id`)).toEqual([
      [1, null, 4],
      [2, 'bob', 5],
      [3, 'cyd', 6],
    ]);
  });
});
