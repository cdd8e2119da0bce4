import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges } from '../../../src/engine/operators/apply-changes.js';
import { ChangeEventError } from '../../../src/engine/operators/operator-errors.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'region VARCHAR, id INTEGER, name VARCHAR, seq INTEGER';

async function failure(op: ApplyChanges, rows: Cell[][]): Promise<ChangeEventError> {
  await createTable(session, 'changes', COLUMNS, rows);
  const error = await op.processBatch('changes').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChangeEventError);
  return error as ChangeEventError;
}

describe('change events that cannot be ordered', () => {
  for (const scdType of [1, 2] as const) {
    it(`SCD${scdType}: a null key names the key column and shows the row; the state stays as it was`, async () => {
      const op = new ApplyChanges(session, `keys${scdType}`, { keys: ['region', 'id'], sequenceBy: 'seq', storedAsScdType: scdType });
      await createTable(session, 'changes', COLUMNS, [['eu', 1, 'ann', 1]]);
      await op.processBatch('changes');
      const error = await failure(op, [
        ['eu', 2, 'bob', 2],
        ['eu', null, 'nobody', 3],
      ]);
      expect(error.code).toBe('CDC_NULL_KEY');
      expect(error.column).toBe('id');
      expect(JSON.parse(error.sampleRow)).toMatchObject({ region: 'eu', id: null, name: 'nobody', seq: 3 });
      expect(error.message).toContain('"id"');
      expect(await rowsOf(session, `SELECT region, id, name FROM (${op.targetQuery()})`)).toEqual([['eu', 1, 'ann']]);
    });
  }

  it('a null sequence value names the sequence', async () => {
    const op = new ApplyChanges(session, 'seq', { keys: ['id'], sequenceBy: 'seq', storedAsScdType: 2 });
    const error = await failure(op, [['eu', 1, 'ann', null]]);
    expect(error.code).toBe('CDC_NULL_SEQUENCE');
    expect(error.column).toBe('seq');
    expect(JSON.parse(error.sampleRow)).toMatchObject({ id: 1, name: 'ann', seq: null });
  });

  for (const scdType of [1, 2] as const) {
    it(`SCD${scdType}: two events of one key at one sequence value are refused, among other events of the key later than the state`, async () => {
      const op = new ApplyChanges(session, `dup${scdType}`, { keys: ['id'], sequenceBy: 'seq', storedAsScdType: scdType });
      await createTable(session, 'changes', COLUMNS, [['eu', 1, 'al', 1]]);
      await op.processBatch('changes');
      const error = await failure(op, [
        ['eu', 1, 'ann', 5],
        ['eu', 1, 'anne', 7],
        ['eu', 1, 'annie', 7],
        ['eu', 1, 'ana', 9],
      ]);
      expect(error.code).toBe('CDC_DUPLICATE_SEQUENCE');
      expect(JSON.parse(error.sampleRow)).toMatchObject({ id: 1, seq: 7 });
      expect(await rowsOf(session, `SELECT id, name FROM (${op.targetQuery()})`)).toEqual([[1, 'al']]);
    });
  }
});
