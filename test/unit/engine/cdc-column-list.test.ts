import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { InvalidInputError } from '../../../src/errors.js';
import { createTable, openSession } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
  await createTable(session, 'changes', 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER, op VARCHAR', [
    [1, 'ann', 'oslo', 1, 'U'],
    [1, 'ann', 'rome', 2, 'U'],
  ]);
});
afterEach(() => session.close());

describe('column_list / except_column_list', () => {
  it('column_list keeps the keys and the listed columns, in input order', async () => {
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', columnList: ['city'] }, 'listed');
    expect(await session.queryJson(`SELECT * FROM ${target}`)).toEqual([{ id: 1, city: 'rome' }]);
  });

  it('except_column_list keeps every other column', async () => {
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', exceptColumnList: ['op', 'seq'] }, 'except');
    expect(await session.queryJson(`SELECT * FROM ${target}`)).toEqual([{ id: 1, name: 'ann', city: 'rome' }]);
  });

  it('SCD2 keeps __START_AT/__END_AT even when the sequence column itself is left out', async () => {
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', columnList: ['city'], storedAsScdType: 2 }, 'scd2');
    expect(await session.queryJson(`SELECT * FROM ${target} ORDER BY __START_AT`)).toEqual([
      { id: 1, city: 'oslo', __START_AT: 1, __END_AT: 2 },
      { id: 1, city: 'rome', __START_AT: 2, __END_AT: null },
    ]);
  });

  it('rejects both lists at once, an unknown column and an excepted key', async () => {
    await expect(applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', columnList: ['city'], exceptColumnList: ['op'] }, 'x')).rejects.toThrow(
      /not both/,
    );
    await expect(applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', columnList: ['town'] }, 'x')).rejects.toThrow(
      /column "town" is not in the change rows/,
    );
    await expect(applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'seq', exceptColumnList: ['id'] }, 'x')).rejects.toThrow(InvalidInputError);
  });
});
