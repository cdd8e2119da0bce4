import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges } from '../../../src/engine/operators/apply-changes.js';
import { exportState, importState } from '../../../src/engine/operators/state-checkpoint.js';
import { createTable, openSession, rowsOf, type Cell } from './engine-test-helpers.js';

let session: DuckDbSession;
beforeEach(async () => {
  session = await openSession();
});
afterEach(() => session.close());

const COLUMNS = 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR';
const OPTIONS = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 as const };

async function run(op: ApplyChanges, rows: Cell[][]): Promise<void> {
  await createTable(session, 'changes', COLUMNS, rows);
  await op.processBatch('changes');
}

const history = (op: ApplyChanges): Promise<Cell[][]> => rowsOf(session, `${op.targetQuery()} ORDER BY id, __START_AT`);

describe('SCD type 2: upserts that open no version', () => {
  it('a late delete before an upsert that repeated the current values closes the version, and that upsert opens a new one', async () => {
    const op = new ApplyChanges(session, 'repeat', OPTIONS);
    await run(op, [
      [1, 'a', 10, 'U'],
      [1, 'a', 30, 'U'],
    ]);
    expect(await history(op)).toEqual([[1, 'a', 10, null]]);
    await run(op, [[1, null, 20, 'D']]);
    expect(await history(op)).toEqual([
      [1, 'a', 10, 20],
      [1, 'a', 30, null],
    ]);
    // The upsert at 30 opens a version now, so the table shows it and it is no longer kept apart.
    expect(await rowsOf(session, 'SELECT * FROM repeat__absorbed')).toEqual([]);
  });

  it('keeps an upsert that changed only untracked columns with its own values, so a late split gives each part its values', async () => {
    const op = new ApplyChanges(session, 'inplace', { ...OPTIONS, exceptColumnList: ['op', 'seq'], trackHistoryColumnList: ['city'] });
    const columns = 'id INTEGER, city VARCHAR, visits INTEGER, seq INTEGER, op VARCHAR';
    await createTable(session, 'changes', columns, [
      [1, 'oslo', 1, 10, 'U'],
      [1, 'oslo', 2, 30, 'U'], // in place: only visits changed
    ]);
    await op.processBatch('changes');
    expect(await history(op)).toEqual([[1, 'oslo', 2, 10, null]]);
    await createTable(session, 'changes', columns, [[1, 'rome', 5, 20, 'U']]);
    await op.processBatch('changes');
    expect(await history(op)).toEqual([
      [1, 'oslo', 1, 10, 20],
      [1, 'rome', 5, 20, 30],
      [1, 'oslo', 2, 30, null],
    ]);
  });

  it('checkpoints the absorbed upserts with the other state tables', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'thund-absorbed-'));
    try {
      const op = new ApplyChanges(session, 'ckpt', OPTIONS);
      expect(op.stateTables()).toEqual(['ckpt__state', 'ckpt__tombstones', 'ckpt__absorbed']);
      await run(op, [
        [1, 'a', 10, 'U'],
        [1, 'a', 30, 'U'],
      ]);
      await exportState(session, op, directory);
      session.close();
      session = await openSession();
      const resumed = new ApplyChanges(session, 'ckpt', OPTIONS);
      await importState(session, resumed, directory);
      await run(resumed, [[1, null, 20, 'D']]);
      expect(await history(resumed)).toEqual([
        [1, 'a', 10, 20],
        [1, 'a', 30, null],
      ]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('ApplyChanges.processBatch with a step inside its transaction', () => {
  it('runs the step on the new state and rolls the state back when the step fails', async () => {
    const op = new ApplyChanges(session, 'then', OPTIONS);
    await run(op, [
      [1, 'a', 10, 'U'],
      [1, 'a', 30, 'U'],
      [2, null, 5, 'D'],
    ]);
    const before = await Promise.all(op.stateTables().map((t) => rowsOf(session, `SELECT * FROM ${t} ORDER BY ALL`)));
    await createTable(session, 'changes', COLUMNS, [
      [1, null, 20, 'D'],
      [2, 'q', 7, 'U'],
      [3, 'z', 1, 'U'],
    ]);
    let seen: Cell[][] = [];
    let inserted = -1;
    const failure = new Error('commit failed');
    await expect(
      op.processBatch('changes', async (result) => {
        seen = await history(op);
        inserted = result.stats.insertedRows;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(seen).toEqual([
      [1, 'a', 10, 20],
      [1, 'a', 30, null],
      [2, 'q', 7, null],
      [3, 'z', 1, null],
    ]);
    expect(inserted).toBe(4);
    expect(await Promise.all(op.stateTables().map((t) => rowsOf(session, `SELECT * FROM ${t} ORDER BY ALL`)))).toEqual(before);

    // The same batch again, with a step that succeeds, commits it.
    const result = await op.processBatch('changes', async () => undefined);
    expect(result.stats.insertedRows).toBe(4);
    expect(await history(op)).toEqual(seen);
  });

  it('rolls back the state tables a failed first batch created', async () => {
    const op = new ApplyChanges(session, 'first', OPTIONS);
    await createTable(session, 'changes', COLUMNS, [[1, 'a', 10, 'U']]);
    await expect(op.processBatch('changes', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    const tables = await rowsOf(session, "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'first__%' AND NOT temporary");
    expect(tables).toEqual([]);
  });
});
