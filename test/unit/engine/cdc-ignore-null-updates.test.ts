import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { createTable, openSession, rowsOf } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
  await createTable(session, 'changes', 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER, op VARCHAR', [
    [1, 'ann', 'oslo', 1, 'U'],
    [1, null, 'paris', 2, 'U'],
    [1, null, null, 3, 'U'],
    [2, 'bob', 'rome', 1, 'U'],
    [2, null, null, 2, 'D'],
    [2, null, 'kiev', 3, 'U'],
  ]);
});
afterEach(() => session.close());

const base = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op'] };

describe('ignore_null_updates', () => {
  it('SCD1: a null keeps the value the key had; after a delete there is nothing to keep', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, ignoreNullUpdates: true }, 'on');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id`)).toEqual([
      [1, 'ann', 'paris', 3],
      [2, null, 'kiev', 3],
    ]);
  });

  it('SCD1 without it: nulls overwrite', async () => {
    const target = await applyChangesOnce(session, 'changes', base, 'off');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id`)).toEqual([
      [1, null, null, 3],
      [2, null, 'kiev', 3],
    ]);
  });

  it('SCD1: keeps values from the state when the update comes in a later batch', async () => {
    const op = new ApplyChanges(session, 'later', { ...base, ignoreNullUpdates: true });
    await session.run('CREATE TABLE first AS SELECT * FROM changes WHERE seq = 1');
    await session.run('CREATE TABLE rest AS SELECT * FROM changes WHERE seq > 1');
    await op.processBatch('first');
    const { changeSet } = await op.processBatch('rest');
    expect(await rowsOf(session, `SELECT * FROM ${changeSet.inserts} ORDER BY id`)).toEqual([
      [1, 'ann', 'paris', 3],
      [2, null, 'kiev', 3],
    ]);
  });

  it('SCD2: each new version takes the values of the one before for its nulls', async () => {
    const target = await applyChangesOnce(session, 'changes', { ...base, ignoreNullUpdates: true, storedAsScdType: 2 }, 'scd2');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual([
      [1, 'ann', 'oslo', 1, 1, 2],
      [1, 'ann', 'paris', 2, 2, 3],
      [1, 'ann', 'paris', 3, 3, null],
      [2, 'bob', 'rome', 1, 1, 2],
      [2, null, 'kiev', 3, 3, null],
    ]);
  });
});
