import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges, applyChangesOnce } from '../../../src/engine/operators/apply-changes.js';
import { InvalidInputError } from '../../../src/errors.js';
import { createTable, openSession, rowsOf } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

// The same history in each format: ann moves from oslo to paris at 2; bob arrives at 3 and is deleted at 4.
const HISTORY = [
  [1, 'ann', 'oslo', 1, 2],
  [1, 'ann', 'paris', 2, null],
  [2, 'bob', 'rome', 3, 4],
];

describe('change input formats', () => {
  it('rows with an op column', async () => {
    await createTable(session, 'changes', 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER, op VARCHAR', [
      [1, 'ann', 'oslo', 1, 'INSERT'],
      [1, 'ann', 'paris', 2, 'UPDATE'],
      [2, 'bob', 'rome', 3, 'INSERT'],
      [2, 'bob', 'rome', 4, 'DELETE'],
    ]);
    const options = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'DELETE'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 as const };
    const target = await applyChangesOnce(session, 'changes', options, 'rows');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual(HISTORY);
  });

  it('Flink row kinds: +I/+U upsert, -D deletes, -U is skipped', async () => {
    await createTable(session, 'changes', 'kind VARCHAR, id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER', [
      ['+I', 1, 'ann', 'oslo', 1],
      ['-U', 1, 'ann', 'oslo', 2],
      ['+U', 1, 'ann', 'paris', 2],
      ['+I', 2, 'bob', 'rome', 3],
      ['-D', 2, 'bob', 'rome', 4],
    ]);
    const options = { keys: ['id'], sequenceBy: 'seq', format: { kind: 'row-kind' as const, column: 'kind' }, exceptColumnList: ['seq'], storedAsScdType: 2 as const };
    const target = await applyChangesOnce(session, 'changes', options, 'kinds');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual(HISTORY);

    await createTable(session, 'changes', 'kind VARCHAR, id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER', [['*', 1, 'ann', 'oslo', 1]]);
    await expect(applyChangesOnce(session, 'changes', options, 'bad')).rejects.toThrow(InvalidInputError);
  });

  it('Debezium envelopes: c/r insert after, u replaces with after, d deletes before, sequence from source', async () => {
    await session.run(`CREATE TABLE changes AS SELECT * FROM (VALUES
      ('r', NULL, {'id': 1, 'name': 'ann', 'city': 'oslo'}, {'lsn': 1}),
      ('u', {'id': 1, 'name': 'ann', 'city': 'oslo'}, {'id': 1, 'name': 'ann', 'city': 'paris'}, {'lsn': 2}),
      ('c', NULL, {'id': 2, 'name': 'bob', 'city': 'rome'}, {'lsn': 3}),
      ('d', {'id': 2, 'name': 'bob', 'city': 'rome'}, NULL, {'lsn': 4})
    ) t(op, before, after, source)`);
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'source.lsn', format: { kind: 'debezium' }, storedAsScdType: 2 }, 'dbz');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual(HISTORY);
  });

  it.each(['VARCHAR', 'INTEGER', 'JSON'])('Debezium events that are all creates, with an untyped all-null before (%s)', async (type) => {
    await session.run(`CREATE TABLE changes AS SELECT * FROM (VALUES
      ('c', NULL::${type}, {'id': 1, 'name': 'ann', 'city': 'oslo'}, 1),
      ('c', NULL::${type}, {'id': 2, 'name': 'bob', 'city': 'rome'}, 2),
      ('u', NULL::${type}, {'id': 1, 'name': 'ann', 'city': 'paris'}, 3)
    ) t(op, before, after, ts_ms)`);
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'ts_ms', format: { kind: 'debezium' }, storedAsScdType: 2 }, 'creates');
    expect(await rowsOf(session, `SELECT * FROM ${target} ORDER BY id, __START_AT`)).toEqual([
      [1, 'ann', 'oslo', 1, 3],
      [1, 'ann', 'paris', 3, null],
      [2, 'bob', 'rome', 2, null],
    ]);
  });

  it('Debezium events that are all deletes, with an untyped all-null after; a non-null image that is no struct is rejected', async () => {
    await session.run(`CREATE TABLE changes AS SELECT * FROM (VALUES
      ('c', NULL, {'id': 1, 'name': 'ann'}, 1), ('c', NULL, {'id': 2, 'name': 'bob'}, 2)) t(op, before, after, ts_ms)`);
    const options = { keys: ['id'], sequenceBy: 'ts_ms', format: { kind: 'debezium' as const } };
    const op = new ApplyChanges(session, 'deletes', options);
    await op.processBatch('changes');
    await session.run(`CREATE OR REPLACE TABLE changes AS SELECT * FROM (VALUES ('d', {'id': 1, 'name': 'ann'}, NULL::VARCHAR, 3)) t(op, before, after, ts_ms)`);
    await op.processBatch('changes');
    expect(await rowsOf(session, op.targetQuery())).toEqual([[2, 'bob']]);

    await session.run(`CREATE OR REPLACE TABLE changes AS SELECT * FROM (VALUES ('c', 'x', {'id': 3, 'name': 'cy'}, 4)) t(op, before, after, ts_ms)`);
    await expect(op.processBatch('changes')).rejects.toThrow(InvalidInputError);
    expect(await rowsOf(session, op.targetQuery())).toEqual([[2, 'bob']]);
  });

  it('Debezium truncate (op t) empties an SCD1 target', async () => {
    await session.run('CREATE TABLE changes (op VARCHAR, before STRUCT(id INTEGER, name VARCHAR), after STRUCT(id INTEGER, name VARCHAR), ts_ms BIGINT)');
    await session.run(`INSERT INTO changes VALUES
      ('c', NULL, {'id': 1, 'name': 'ann'}, 1),
      ('c', NULL, {'id': 2, 'name': 'bob'}, 2),
      ('t', NULL, NULL, 3),
      ('c', NULL, {'id': 3, 'name': 'cy'}, 4)`);
    const target = await applyChangesOnce(session, 'changes', { keys: ['id'], sequenceBy: 'ts_ms', format: { kind: 'debezium' } }, 'dbz1');
    expect(await rowsOf(session, `SELECT * FROM ${target}`)).toEqual([[3, 'cy']]);
  });
});
