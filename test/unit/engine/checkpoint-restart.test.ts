import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { ApplyChanges } from '../../../src/engine/operators/apply-changes.js';
import { exportState, importState, type StatefulOperator } from '../../../src/engine/operators/state-checkpoint.js';
import { WindowAggregation } from '../../../src/engine/operators/window-aggregation.js';
import { at, createTable, openSession, rowsOf, windowRows, type Cell } from './engine-test-helpers.js';
import { BATCHES, loadBatch, windowedSum } from './output-mode-fixture.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'thund-checkpoint-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

interface Harness<Op extends StatefulOperator> {
  create(session: DuckDbSession): Op;
  /** Loads batch `index` and runs it, returning what the batch emitted. */
  step(session: DuckDbSession, op: Op, index: number): Promise<unknown>;
  batches: number;
}

async function uninterrupted<Op extends StatefulOperator>(h: Harness<Op>): Promise<unknown[]> {
  const session = await openSession();
  try {
    const op = h.create(session);
    const out = [];
    for (let i = 0; i < h.batches; i++) out.push(await h.step(session, op, i));
    return out;
  } finally {
    session.close();
  }
}

/** Runs the first `stopAfter` batches, checkpoints, closes the session, and resumes in a new one. */
async function restarted<Op extends StatefulOperator>(h: Harness<Op>, stopAfter: number, restore = true): Promise<unknown[]> {
  const out = [];
  const first = await openSession();
  try {
    const op = h.create(first);
    for (let i = 0; i < stopAfter; i++) out.push(await h.step(first, op, i));
    await exportState(first, op, directory);
  } finally {
    first.close();
  }
  const second = await openSession();
  try {
    const op = h.create(second);
    if (restore) await importState(second, op, directory);
    for (let i = stopAfter; i < h.batches; i++) out.push(await h.step(second, op, i));
    return out;
  } finally {
    second.close();
  }
}

function windowHarness(mode: 'append' | 'update'): Harness<WindowAggregation> {
  return {
    batches: BATCHES.length,
    create: (session) => windowedSum(session, mode, 'restartable'),
    step: async (session, op, index) => {
      await loadBatch(session, index);
      const result = await op.processBatch('batch');
      return { rows: await windowRows(session, result.output, ['k'], ['n', 'total']), late: result.lateRows, watermark: result.watermark };
    },
  };
}

describe('restart from a checkpoint mid-stream', () => {
  it('windows in append mode: identical output, late counts and watermarks', async () => {
    const expected = await uninterrupted(windowHarness('append'));
    for (const stopAfter of [1, 2, 3]) expect(await restarted(windowHarness('append'), stopAfter)).toEqual(expected);
    // Without the checkpoint the resumed run loses the open windows, so the check above can fail.
    expect(await restarted(windowHarness('append'), 2, false)).not.toEqual(expected);
  });

  it('update mode: identical deltas', async () => {
    const expected = await uninterrupted(windowHarness('update'));
    for (const stopAfter of [1, 2, 3]) expect(await restarted(windowHarness('update'), stopAfter)).toEqual(expected);
    expect(await restarted(windowHarness('update'), 1, false)).not.toEqual(expected);
  });

  it('session windows in update mode: identical deltas and retired sessions', async () => {
    const batches: [string, number][][] = [[['a', 0], ['a', 15]], [['a', 8], ['b', 3]], [['a', 40], ['b', 10]]];
    const harness: Harness<WindowAggregation> = {
      batches: batches.length,
      create: (session) =>
        new WindowAggregation(session, {
          name: 'sessions',
          eventTime: 'ts',
          window: { kind: 'session', gap: '10 seconds' },
          keys: ['k'],
          aggregates: [{ name: 'n', sql: 'count(*)::INTEGER' }],
          outputMode: 'update',
          watermarkDelay: '20 seconds',
        }),
      step: async (session, op, index) => {
        await createTable(session, 'batch', 'k VARCHAR, ts TIMESTAMP', batches[index]!.map(([k, s]) => [k, at(s)]));
        const result = await op.processBatch('batch');
        return [await windowRows(session, result.output, ['k'], ['n']), await rowsOf(session, `SELECT * FROM ${result.retired} ORDER BY ALL`)];
      },
    };
    const expected = await uninterrupted(harness);
    expect(await restarted(harness, 1)).toEqual(expected);
    expect(await restarted(harness, 2)).toEqual(expected);
  });

  it('SCD2 apply-changes: identical change sets and final table', async () => {
    const batches: Cell[][][] = [
      [
        [1, 'a', 10, 'U'],
        [1, 'b', 20, 'U'],
        [2, 'x', 15, 'U'],
      ],
      [
        [1, 'c', 30, 'U'],
        [1, 'late', 15, 'U'],
        [2, null, 25, 'D'],
      ],
      [
        [2, 'y', 40, 'U'],
        [2, 'mid', 20, 'U'],
        [1, null, 12, 'D'],
      ],
    ];
    const harness: Harness<ApplyChanges> = {
      batches: batches.length,
      create: (session) =>
        new ApplyChanges(session, 'scd2', { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 }),
      step: async (session, op, index) => {
        await createTable(session, 'changes', 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR', batches[index]!);
        const { changeSet } = await op.processBatch('changes');
        return [
          await rowsOf(session, `SELECT * FROM ${changeSet.deletes} ORDER BY ALL`),
          await rowsOf(session, `SELECT * FROM ${changeSet.inserts} ORDER BY ALL`),
          await rowsOf(session, `${op.targetQuery()} ORDER BY ALL`),
        ];
      },
    };
    const expected = await uninterrupted(harness);
    expect((expected.at(-1) as Cell[][][])[2]).toEqual([
      [1, 'a', 10, 12],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [1, 'late', 15, 20],
      [2, 'mid', 20, 25],
      [2, 'x', 15, 20],
      [2, 'y', 40, null],
    ]);
    expect(await restarted(harness, 1)).toEqual(expected);
    expect(await restarted(harness, 2)).toEqual(expected);
  });
  it('SCD2 state imported into a session that ran the operator: a late event is ordered against the imported history', async () => {
    const options = { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", exceptColumnList: ['op', 'seq'], storedAsScdType: 2 as const };
    const columns = 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR';
    const other = await openSession();
    try {
      const op = new ApplyChanges(other, 'scd2', options);
      await createTable(other, 'changes', columns, [
        [1, 'a', 10, 'U'],
        [1, null, 20, 'D'],
      ]);
      await op.processBatch('changes');
      await exportState(other, op, directory);
    } finally {
      other.close();
    }
    const session = await openSession();
    try {
      const op = new ApplyChanges(session, 'scd2', options);
      // This session's history ends at 1: what it derived from that must not outlive the import.
      await createTable(session, 'changes', columns, [[2, 'x', 1, 'U']]);
      await op.processBatch('changes');
      await importState(session, op, directory);
      await createTable(session, 'changes', columns, [[1, 'late', 15, 'U']]);
      await op.processBatch('changes');
      expect(await rowsOf(session, `${op.targetQuery()} ORDER BY ALL`)).toEqual([
        [1, 'a', 10, 15],
        [1, 'late', 15, 20],
      ]);
    } finally {
      session.close();
    }
  });
});
