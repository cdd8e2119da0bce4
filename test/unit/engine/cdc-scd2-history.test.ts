import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce, computeChanges } from '../../../src/engine/operators/apply-changes.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR';
const OPTIONS = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 as const };

const BATCH_1: Cell[][] = [
  [1, 'a', 10, 'U'],
  [1, 'b', 20, 'U'],
  [2, 'x', 15, 'U'],
];
const BATCH_2: Cell[][] = [
  [1, 'c', 30, 'U'],
  [1, 'late', 15, 'U'], // inside [10, 20): splits it
  [2, null, 25, 'D'], // closes x
  [1, 'early', 5, 'U'], // before the first version
];
const BATCH_3: Cell[][] = [
  [2, 'y', 40, 'U'], // after the delete: a new current version
  [2, 'mid', 20, 'U'], // between x (15) and the delete (25)
  [1, 'c', 30, 'U'], // redelivered: already in the history
  [1, null, 12, 'D'], // a late delete inside [10, 15)
];

describe('SCD type 2 history', () => {
  it('builds versions [__START_AT, __END_AT) from sequence values, places late events into history and closes rows on delete', async () => {
    const op = new ApplyChanges(session, 'scd2', OPTIONS);
    const batch = async (rows: Cell[][]): Promise<[Cell[][], Cell[][], number]> => {
      await createTable(session, 'changes', COLUMNS, rows);
      const { changeSet, stats } = await op.processBatch('changes');
      return [
        await rowsOf(session, `SELECT * FROM ${changeSet.deletes} ORDER BY ALL`),
        await rowsOf(session, `SELECT * FROM ${changeSet.inserts} ORDER BY ALL`),
        stats.ignoredEvents,
      ];
    };
    const target = async (): Promise<Cell[][]> => rowsOf(session, `${op.targetQuery()} ORDER BY id, __START_AT`);

    expect(await batch(BATCH_1)).toEqual([
      [],
      [
        [1, 'a', 10, 20],
        [1, 'b', 20, null],
        [2, 'x', 15, null],
      ],
      0,
    ]);

    const afterSecond = [
      [1, 'early', 5, 10],
      [1, 'a', 10, 15],
      [1, 'late', 15, 20],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [2, 'x', 15, 25],
    ];
    expect(await batch(BATCH_2)).toEqual([
      [
        [1, 10],
        [1, 20],
        [2, 15],
      ],
      [
        [1, 'a', 10, 15],
        [1, 'b', 20, 30],
        [1, 'c', 30, null],
        [1, 'early', 5, 10],
        [1, 'late', 15, 20],
        [2, 'x', 15, 25],
      ],
      0,
    ]);
    expect(await target()).toEqual(afterSecond);

    expect(await batch(BATCH_3)).toEqual([
      [
        [1, 10],
        [2, 15],
      ],
      [
        [1, 'a', 10, 12],
        [2, 'mid', 20, 25],
        [2, 'x', 15, 20],
        [2, 'y', 40, null],
      ],
      1,
    ]);
    expect(await target()).toEqual([
      [1, 'early', 5, 10],
      [1, 'a', 10, 12],
      [1, 'late', 15, 20],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [2, 'x', 15, 20],
      [2, 'mid', 20, 25],
      [2, 'y', 40, null],
    ]);
  });

  it('orders a late event against every earlier delete, also a delete following a delete or preceding the first version', async () => {
    const op = new ApplyChanges(session, 'tomb', OPTIONS);
    await createTable(session, 'changes', COLUMNS, [
      [1, 'a', 10, 'U'],
      [1, null, 20, 'D'],
      [1, null, 30, 'D'], // the table cannot show this one: nothing is open at 30
      [1, 'z', 40, 'U'],
      [2, null, 5, 'D'],
      [2, 'q', 8, 'U'],
    ]);
    await op.processBatch('changes');
    expect(await rowsOf(session, `${op.targetQuery()} ORDER BY id, __START_AT`)).toEqual([
      [1, 'a', 10, 20],
      [1, 'z', 40, null],
      [2, 'q', 8, null],
    ]);
    await createTable(session, 'changes', COLUMNS, [
      [1, 'm', 25, 'U'],
      [2, 'p', 3, 'U'],
    ]);
    await op.processBatch('changes');
    expect(await rowsOf(session, `${op.targetQuery()} ORDER BY id, __START_AT`)).toEqual([
      [1, 'a', 10, 20],
      [1, 'm', 25, 30],
      [1, 'z', 40, null],
      [2, 'p', 3, 5],
      [2, 'q', 8, null],
    ]);
    expect(await rowsOf(session, 'SELECT * FROM tomb__tombstones ORDER BY ALL')).toEqual([
      [1, 20],
      [1, 30],
      [2, 5],
    ]);
  });

  it('gives the same table when all events come at once', async () => {
    await createTable(session, 'changes', COLUMNS, [...BATCH_1, ...BATCH_2, ...BATCH_3.filter((r) => r[1] !== 'c')]);
    const once = await applyChangesOnce(session, 'changes', OPTIONS, 'once');
    expect(await rowsOf(session, `SELECT * FROM ${once} ORDER BY id, __START_AT`)).toEqual([
      [1, 'early', 5, 10],
      [1, 'a', 10, 12],
      [1, 'late', 15, 20],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [2, 'x', 15, 20],
      [2, 'mid', 20, 25],
      [2, 'y', 40, null],
    ]);
  });

  it('computes a change set against any state relation and returns the new state beside it', async () => {
    await createTable(session, 'target', 'id INTEGER, name VARCHAR, __START_AT INTEGER, __END_AT INTEGER', [
      [1, 'a', 10, null],
      [2, 'x', 15, null],
    ]);
    await createTable(session, 'changes', COLUMNS, [
      [1, 'b', 20, 'U'],
      [3, 'n', 21, 'U'],
    ]);
    const result = await computeChanges(session, { state: 'target', changes: 'changes', options: OPTIONS, prefix: 'step' });
    expect(result.changeSet.deleteKeyColumns).toEqual(['id', '__START_AT']);
    expect(await rowsOf(session, `SELECT * FROM ${result.changeSet.deletes}`)).toEqual([[1, 10]]);
    expect(await rowsOf(session, `SELECT * FROM ${result.newState} ORDER BY id, __START_AT`)).toEqual([
      [1, 'a', 10, 20],
      [1, 'b', 20, null],
      [2, 'x', 15, null],
      [3, 'n', 21, null],
    ]);
    expect(await rowsOf(session, 'SELECT * FROM target ORDER BY id')).toEqual([
      [1, 'a', 10, null],
      [2, 'x', 15, null],
    ]);
  });
});
