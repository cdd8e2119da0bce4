/**
 * The apply-changes sink into real Iceberg tables, SCD type 2: history with out-of-order events
 * and deletes read back through Thund's scan (hand-computed, and against one DuckDB statement
 * over all events so far), merge-on-read and copy-on-write, track-history columns, and a restart
 * from exported operator state into a fresh sink that continues exactly like an unbroken run.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../../src/duckdb/session.js';
import { createApplyChangesSink } from '../../../../src/engine/graph/apply-changes-sink.js';
import { exportState, importState } from '../../../../src/engine/operators/state-checkpoint.js';
import type { ApplyChanges } from '../../../../src/pipeline/ir/flow.js';
import { rowsOf, type Cell } from '../engine-test-helpers.js';
import { cdcContext, changeBatch, identifierOf, openWarehouse, scanTarget, type Warehouse } from './cdc-sink-fixture.js';

let warehouse: Warehouse;
beforeEach(async () => {
  warehouse = await openWarehouse();
});
afterEach(async () => {
  await warehouse.close();
});

const position = (batch: number): Record<string, string> => ({ 'thund.checkpoint.test': `batch-${batch}` });
const ORDER = 'id, __START_AT';
const COLUMNS = 'id INTEGER, name VARCHAR, seq INTEGER, op VARCHAR';
const SCD2: Pick<ApplyChanges, 'keys' | 'sequenceBy'> & Partial<ApplyChanges> = {
  keys: ['id'],
  sequenceBy: 'seq',
  applyAsDeletes: "op = 'D'",
  columns: { except: ['op', 'seq'] },
  storedAsScdType: 2,
};

const MODES: readonly { readonly mode: string; readonly properties: Readonly<Record<string, string>> }[] = [
  { mode: 'merge-on-read', properties: {} },
  { mode: 'copy-on-write', properties: { 'write.update.mode': 'copy-on-write' } },
];

describe.each(MODES)('SCD type 2 history under $mode', ({ properties }) => {
  it('opens and closes versions by sequence, splits an interval for a late event, closes on delete, ignores a redelivery', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'history', changes: SCD2, properties }));
    const write = async (batch: number, rows: Cell[][]): Promise<void> => {
      await sink.write(await changeBatch(session, 'changes', COLUMNS, rows), position(batch));
    };
    await write(0, [[1, 'a', 10, 'U'], [1, 'b', 20, 'U'], [2, 'x', 15, 'U']]);
    expect(await scanTarget(warehouse, 'history', ORDER)).toEqual([
      [1, 'a', 10, 20],
      [1, 'b', 20, null],
      [2, 'x', 15, null],
    ]);
    // c after b; a late 'late' inside [10, 20); 2 deleted at 25; 'early' before the first version.
    await write(1, [[1, 'c', 30, 'U'], [1, 'late', 15, 'U'], [2, null, 25, 'D'], [1, 'early', 5, 'U']]);
    expect(await scanTarget(warehouse, 'history', ORDER)).toEqual([
      [1, 'early', 5, 10],
      [1, 'a', 10, 15],
      [1, 'late', 15, 20],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [2, 'x', 15, 25],
    ]);
    // 2 comes back at 40; 'mid' lands between x and the delete; c is redelivered; a late delete at 12.
    await write(2, [[2, 'y', 40, 'U'], [2, 'mid', 20, 'U'], [1, 'c', 30, 'U'], [1, null, 12, 'D']]);
    expect(await scanTarget(warehouse, 'history', ORDER)).toEqual([
      [1, 'early', 5, 10],
      [1, 'a', 10, 12],
      [1, 'late', 15, 20],
      [1, 'b', 20, 30],
      [1, 'c', 30, null],
      [2, 'x', 15, 20],
      [2, 'mid', 20, 25],
      [2, 'y', 40, null],
    ]);
    const { metadata } = await warehouse.catalog.loadTable(identifierOf('history'));
    expect(metadata.snapshots.map((s) => s.summary['thund.checkpoint.test'])).toEqual(['batch-0', 'batch-1', 'batch-2']);
    expect(metadata.schemas.at(-1)?.fields.map((f) => f.name)).toEqual(['id', 'name', '__START_AT', '__END_AT']);
  });
});

/** SCD2 of all events of batches up to `last`, by one statement: versions open after nothing, a delete or a value change; each ends at the key's next event. */
const floor = (last: number): string => `
  WITH events AS (SELECT id, name, seq, CASE WHEN op = 'D' THEN 'delete' ELSE 'upsert' END AS kind FROM all_events WHERE batch <= ${last}),
  flagged AS (
    SELECT *, CASE WHEN kind = 'upsert' AND (lag(kind) OVER w IS NULL OR lag(kind) OVER w = 'delete' OR name IS DISTINCT FROM lag(name) OVER w)
                   THEN 1 ELSE 0 END AS opens,
           lead(seq) OVER w AS next_seq
    FROM events WINDOW w AS (PARTITION BY id ORDER BY seq)),
  numbered AS (SELECT *, sum(opens) OVER (PARTITION BY id ORDER BY seq ROWS UNBOUNDED PRECEDING) AS version FROM flagged)
  SELECT id, arg_max_null(name, seq) AS name, min(seq) AS __START_AT, arg_max_null(next_seq, seq) AS __END_AT
  FROM numbered WHERE kind = 'upsert' GROUP BY id, version ORDER BY ${ORDER}`;

/**
 * 800 events over 40 keys in 4 batches; the sequence is a permutation of 0..799 spread across
 * batches; one event in seven deletes. Every upsert changes the name: an upsert that repeats
 * the current values is absorbed into its version and leaves no trace in the table, so a later
 * late delete before it cannot be ordered against it (see the report on the operator).
 */
async function createEvents(session: DuckDbSession): Promise<void> {
  await session.run(`CREATE OR REPLACE TABLE all_events AS SELECT (hash(i) % 40)::INTEGER AS id, 'n' || i AS name,
                     ((i * 7919) % 800)::INTEGER AS seq, CASE WHEN hash(i * 3) % 7 = 0 THEN 'D' ELSE 'U' END AS op, (i % 4)::INTEGER AS batch
                     FROM range(800) t(i)`);
}

const batchOf = (batch: number): string => `CREATE OR REPLACE TABLE changes AS SELECT id, name, seq, op FROM all_events WHERE batch = ${batch}`;

describe('SCD type 2 against one DuckDB statement over all events', () => {
  it('equals the statement after every batch', async () => {
    const { session } = warehouse;
    await createEvents(session);
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'floor', changes: SCD2, partitionedBy: ['bucket(3, id)'] }));
    for (let batch = 0; batch < 4; batch += 1) {
      await session.run(batchOf(batch));
      await sink.write('changes', position(batch));
      const expected = await rowsOf(session, floor(batch));
      expect(expected.length).toBeGreaterThan(0);
      expect(await scanTarget(warehouse, 'floor', ORDER)).toEqual(expected);
    }
  });

  it('continues identically from the checkpoint taken in beforeCommit, imported into a fresh sink in a new session', async () => {
    const { session } = warehouse;
    await createEvents(session);
    const context = { name: 'restarted', changes: SCD2 };
    const first = await createApplyChangesSink(cdcContext(warehouse, context));
    let checkpoint = '';
    for (const batch of [0, 1]) {
      await session.run(batchOf(batch));
      // As the streaming runner does: export the state between the operator and the commit.
      await first.write('changes', position(batch), async () => {
        checkpoint = mkdtempSync(join(warehouse.work, `checkpoint-${batch}-`));
        await exportState(session, first, checkpoint);
        return { 'thund.checkpoint.cdc_restarted': checkpoint };
      });
    }
    const { metadata } = await warehouse.catalog.loadTable(identifierOf('restarted'));
    expect(metadata.snapshots.at(-1)?.summary).toMatchObject({ 'thund.checkpoint.cdc_restarted': checkpoint, ...position(1) });
    // Nothing of the first sink's state is left behind in this session either.
    for (const table of first.stateTables()) await session.run(`DROP TABLE "${table}"`);

    // A new process: its own session with the same (deterministic) events, no state until imported.
    const next = await DuckDbSession.open({ threads: 1 });
    try {
      await createEvents(next);
      const second = await createApplyChangesSink(cdcContext(warehouse, { ...context, session: next }));
      await importState(next, second, checkpoint);
      for (const batch of [2, 3]) {
        await next.run(batchOf(batch));
        await second.write('changes', position(batch));
      }
    } finally {
      next.close();
    }
    expect(await scanTarget(warehouse, 'restarted', ORDER)).toEqual(await rowsOf(session, floor(3)));
  });
});

describe('SCD type 2 track history', () => {
  it('updates the current version in place when only an untracked column changes', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, {
        name: 'tracked',
        changes: { keys: ['id'], sequenceBy: 'seq', columns: { except: ['seq'] }, storedAsScdType: 2, trackHistory: { include: ['city'] } },
      }),
    );
    const columns = 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER';
    await sink.write(await changeBatch(session, 'changes', columns, [[1, 'ann', 'oslo', 1]]), position(0));
    await sink.write(await changeBatch(session, 'changes', columns, [[1, 'anna', 'oslo', 2]]), position(1));
    expect(await scanTarget(warehouse, 'tracked', ORDER)).toEqual([[1, 'anna', 'oslo', 1, null]]);
    await sink.write(await changeBatch(session, 'changes', columns, [[1, 'anna', 'paris', 3]]), position(2));
    expect(await scanTarget(warehouse, 'tracked', ORDER)).toEqual([
      [1, 'anna', 'oslo', 1, 3],
      [1, 'anna', 'paris', 3, null],
    ]);
  });
});
