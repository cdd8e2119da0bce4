import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges } from '../../../src/engine/operators/apply-changes.js';
import { InvalidInputError } from '../../../src/errors.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR';
const OPTIONS = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", applyAsTruncates: "op = 'T'", exceptColumnList: ['op'] };

describe('apply_as_truncates (SCD type 1)', () => {
  it('removes every row older than the truncate; events after it apply, events before it and later stragglers do not', async () => {
    const op = new ApplyChanges(session, 'trunc', OPTIONS);
    const batch = async (rows: Cell[][]): Promise<[Cell[][], Cell[][]]> => {
      await createTable(session, 'changes', COLUMNS, rows);
      const { changeSet } = await op.processBatch('changes');
      return [await rowsOf(session, `SELECT * FROM ${changeSet.deletes} ORDER BY ALL`), await rowsOf(session, `SELECT * FROM ${changeSet.inserts} ORDER BY ALL`)];
    };
    await batch([
      [1, 'ann', 1, 'I'],
      [2, 'bob', 2, 'I'],
      [3, 'cy', 3, 'I'],
    ]);
    // The truncate row has no key: truncates are table-wide.
    expect(
      await batch([
        [null, null, 5, 'T'],
        [4, 'dan', 6, 'I'],
        [1, 'ann2', 4, 'U'],
      ]),
    ).toEqual([[[1], [2], [3]], [[4, 'dan', 6]]]);
    expect(await batch([[2, 'bob2', 4, 'U']])).toEqual([[], []]);
    expect(await rowsOf(session, `${op.targetQuery()} ORDER BY id`)).toEqual([[4, 'dan', 6]]);
  });

  it('is refused for SCD type 2', () => {
    expect(() => new ApplyChanges(session, 'x', { ...OPTIONS, storedAsScdType: 2 })).toThrow(InvalidInputError);
    expect(() => new ApplyChanges(session, 'x', { ...OPTIONS, storedAsScdType: 2 })).toThrow(/only supported with SCD type 1/);
  });
});
