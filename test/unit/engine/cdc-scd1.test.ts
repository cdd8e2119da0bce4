import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER, op VARCHAR';
const OPTIONS = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'DELETE'", exceptColumnList: ['op'], storedAsScdType: 1 as const };

describe('SCD type 1', () => {
  it('keeps the latest event per key by sequence; an older event is ignored; a delete removes the key', async () => {
    await createTable(session, 'changes', COLUMNS, [
      [1, 'ann', 'oslo', 1, 'UPSERT'],
      [2, 'bob', 'rome', 2, 'UPSERT'],
      [1, 'ann', 'paris', 4, 'UPSERT'],
      [1, 'ann', 'lima', 3, 'UPSERT'],
      [2, null, null, 5, 'DELETE'],
      [3, 'cy', 'kiev', 6, 'UPSERT'],
    ]);
    const target = await applyChangesOnce(session, 'changes', OPTIONS, 'once');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id`)).toEqual([
      [1, 'ann', 'paris', 4],
      [3, 'cy', 'kiev', 6],
    ]);
  });

  it('produces per batch the keys to delete and the rows to insert, and orders late events against tombstones', async () => {
    const op = new ApplyChanges(session, 'scd1', OPTIONS);
    const batch = async (rows: Cell[][]): Promise<[Cell[][], Cell[][], number]> => {
      await createTable(session, 'changes', COLUMNS, rows);
      const { changeSet, stats } = await op.processBatch('changes');
      return [
        await rowsOf(session, `SELECT * FROM ${changeSet.deletes} ORDER BY ALL`),
        await rowsOf(session, `SELECT * FROM ${changeSet.inserts} ORDER BY ALL`),
        stats.ignoredEvents,
      ];
    };
    expect(
      await batch([
        [1, 'ann', 'oslo', 1, 'UPSERT'],
        [2, 'bob', 'rome', 2, 'UPSERT'],
        [1, 'ann', 'paris', 4, 'UPSERT'],
      ]),
    ).toEqual([
      [],
      [
        [1, 'ann', 'paris', 4],
        [2, 'bob', 'rome', 2],
      ],
      0,
    ]);
    expect(
      await batch([
        [1, 'ann', 'lima', 3, 'UPSERT'],
        [2, null, null, 5, 'DELETE'],
        [3, 'cy', 'kiev', 6, 'UPSERT'],
      ]),
    ).toEqual([[[2]], [[3, 'cy', 'kiev', 6]], 1]);
    // bob at 4 is older than his delete at 5: the tombstone keeps him deleted.
    expect(
      await batch([
        [2, 'bob', 'rome', 4, 'UPSERT'],
        [1, 'ann', 'rio', 7, 'UPSERT'],
      ]),
    ).toEqual([[[1]], [[1, 'ann', 'rio', 7]], 1]);
    expect(await rowsOf(session, `${op.targetQuery()} ORDER BY id`)).toEqual([
      [1, 'ann', 'rio', 7],
      [3, 'cy', 'kiev', 6],
    ]);
    expect(await rowsOf(session, 'SELECT id, seq, __sequence, __deleted FROM scd1__state ORDER BY id')).toEqual([
      [1, 7, 7, false],
      [2, 5, 5, true],
      [3, 6, 6, false],
    ]);
  });

  it('re-inserts a deleted key when a newer event comes', async () => {
    await createTable(session, 'changes', COLUMNS, [
      [1, 'ann', 'oslo', 1, 'UPSERT'],
      [1, null, null, 2, 'DELETE'],
      [1, 'ann', 'bern', 3, 'UPSERT'],
    ]);
    const target = await applyChangesOnce(session, 'changes', OPTIONS, 'once');
    expect(await rowsOf(session, `SELECT * FROM ${target}`)).toEqual([[1, 'ann', 'bern', 3]]);
  });
});
