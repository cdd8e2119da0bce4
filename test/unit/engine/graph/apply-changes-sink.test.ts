/**
 * The apply-changes sink into real Iceberg tables (SQLite catalog, local files), SCD type 1:
 * each batch lands as one snapshot carrying the batch's summary, the table read back through
 * Thund's scan equals what the events mean (computed by one DuckDB statement over all events so
 * far, or by hand for the small cases), under merge-on-read and copy-on-write.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../../src/duckdb/session.js';
import { createApplyChangesSink } from '../../../../src/engine/graph/apply-changes-sink.js';
import { ChangeEventError } from '../../../../src/engine/operators/operator-errors.js';
import { DataFileContent } from '../../../../src/iceberg/data-file.js';
import { snapshotForRef } from '../../../../src/iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH } from '../../../../src/iceberg/table-metadata.js';
import { openTableRows } from '../../../../src/table/table-rows.js';
import { rowsOf } from '../engine-test-helpers.js';
import { cdcContext, changeBatch, identifierOf, openWarehouse, scanTarget, type Warehouse } from './cdc-sink-fixture.js';

let warehouse: Warehouse;
beforeEach(async () => {
  warehouse = await openWarehouse();
});
afterEach(async () => {
  await warehouse.close();
});

const position = (batch: number): Record<string, string> => ({ 'thund.checkpoint.test': `batch-${batch}` });

async function snapshots(name: string) {
  const { metadata } = await warehouse.catalog.loadTable(identifierOf(name));
  return metadata.snapshots;
}

const MODES = [
  { mode: 'merge-on-read', properties: {}, partitionedBy: [] },
  { mode: 'copy-on-write', properties: { 'write.update.mode': 'copy-on-write' }, partitionedBy: ['bucket(4, id)'] },
] as const;

describe.each(MODES)('SCD type 1 under $mode', ({ mode, properties, partitionedBy }) => {
  it('lands out-of-order updates and deletes over four batches, one snapshot each, equal to the latest event of each key', async () => {
    const { session } = warehouse;
    // 600 events over 50 keys; the sequence is a permutation of 0..599 spread over the batches,
    // so every batch holds events older than ones already applied; one event in eight deletes.
    await session.run(`CREATE TABLE all_events AS SELECT (hash(i) % 50)::INTEGER AS id, 'v' || i AS val, ((i * 7919) % 600)::INTEGER AS seq,
                       CASE WHEN hash(i * 3) % 8 = 0 THEN 'D' ELSE 'U' END AS op, (i % 4)::INTEGER AS batch FROM range(600) t(i)`);
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, {
        name: 'scd1',
        changes: { keys: ['id'], sequenceBy: 'seq', applyAsDeletes: "op = 'D'", columns: { except: ['op', 'seq'] } },
        properties,
        partitionedBy,
      }),
    );
    for (let batch = 0; batch < 4; batch += 1) {
      await session.run(`CREATE OR REPLACE TABLE changes AS SELECT id, val, seq, op FROM all_events WHERE batch = ${batch}`);
      const written = await sink.write('changes', position(batch));
      const expected = await rowsOf(
        session,
        `SELECT id, val FROM (SELECT * FROM all_events WHERE batch <= ${batch} QUALIFY row_number() OVER (PARTITION BY id ORDER BY seq DESC) = 1)
         WHERE op <> 'D' ORDER BY id`,
      );
      expect(await scanTarget(warehouse, 'scd1', 'id')).toEqual(expected);
      const all = await snapshots('scd1');
      expect(all).toHaveLength(batch + 1);
      expect(all.at(-1)?.snapshotId).toBe(written.snapshotId);
      expect(all.at(-1)?.summary).toMatchObject({ ...position(batch), 'thund.flow': 'cdc_scd1' });
    }
    const { metadata } = await warehouse.catalog.loadTable(identifierOf('scd1'));
    const deleteFiles = Number(snapshotForRef(metadata, MAIN_BRANCH)?.summary['total-delete-files'] ?? '0');
    if (mode === 'merge-on-read') expect(deleteFiles).toBeGreaterThan(0);
    else expect(deleteFiles).toBe(0);
    expect(metadata.partitionSpecs.find((spec) => spec.specId === metadata.defaultSpecId)?.fields.map((f) => f.transform)).toEqual(
      partitionedBy.length === 0 ? [] : ['bucket[4]'],
    );
  });
});

describe('SCD type 1 options, each against a hand-computed table', () => {
  const COLUMNS = 'id INTEGER, name VARCHAR, city VARCHAR, seq INTEGER, op VARCHAR';

  it('ignore_null_updates keeps the current value where an update carries null', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, { name: 'nulls', changes: { keys: ['id'], sequenceBy: 'seq', ignoreNullUpdates: true, columns: { except: ['op', 'seq'] } } }),
    );
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 'oslo', 10, 'U'], [2, 'bob', 'rome', 11, 'U']]), position(0));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, null, 'paris', 20, 'U'], [2, 'bobby', null, 21, 'U'], [3, null, 'lima', 22, 'U']]), position(1));
    expect(await scanTarget(warehouse, 'nulls', 'id')).toEqual([
      [1, 'ann', 'paris'],
      [2, 'bobby', 'rome'],
      [3, null, 'lima'],
    ]);
  });

  it('column_list lands only the keys and the listed columns', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, { name: 'listed', changes: { keys: ['id'], sequenceBy: 'seq', columns: { include: ['city'] } } }),
    );
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 'oslo', 10, 'U'], [1, 'ann', 'paris', 5, 'U']]), position(0));
    expect(await scanTarget(warehouse, 'listed')).toEqual([[1, 'oslo']]);
    const { metadata } = await warehouse.catalog.loadTable(identifierOf('listed'));
    expect(metadata.schemas.at(-1)?.fields.map((f) => f.name)).toEqual(['id', 'city']);
  });

  it('apply_as_truncates empties the table at the truncate and ignores older events arriving after it', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, {
        name: 'trunc',
        changes: { keys: ['id'], sequenceBy: 'seq', applyAsTruncates: "op = 'T'", columns: { except: ['op', 'seq'] } },
      }),
    );
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 'oslo', 1, 'U'], [2, 'bob', 'rome', 2, 'U'], [3, 'cy', 'lima', 3, 'U']]), position(0));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[null, null, null, 10, 'T'], [4, 'dan', 'bonn', 12, 'U'], [1, 'late', 'oslo', 5, 'U']]), position(1));
    expect(await scanTarget(warehouse, 'trunc')).toEqual([[4, 'dan', 'bonn']]);
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[2, 'old', 'rome', 7, 'U'], [2, 'new', 'rome', 15, 'U']]), position(2));
    expect(await scanTarget(warehouse, 'trunc')).toEqual([
      [2, 'new', 'rome'],
      [4, 'dan', 'bonn'],
    ]);
  });

  it('row kinds: +I and +U upsert, -D deletes, -U is skipped', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, {
        name: 'kinds',
        changes: { keys: ['id'], sequenceBy: 'seq', changeFormat: { kind: 'row-kind', column: 'kind' }, columns: { except: ['seq'] } },
      }),
    );
    const columns = 'kind VARCHAR, id INTEGER, name VARCHAR, seq INTEGER';
    await sink.write(await changeBatch(session, 'changes', columns, [['+I', 1, 'ann', 1], ['+I', 2, 'bob', 2]]), position(0));
    await sink.write(await changeBatch(session, 'changes', columns, [['-U', 1, 'ann', 3], ['+U', 1, 'anna', 3], ['-D', 2, 'bob', 4]]), position(1));
    expect(await scanTarget(warehouse, 'kinds')).toEqual([[1, 'anna']]);
  });

  it('Debezium envelopes are recognised by their columns; deletes take the before image', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'dbz', changes: { keys: ['id'], sequenceBy: 'source.lsn' } }));
    const envelope = 'op VARCHAR, before STRUCT(id INTEGER, name VARCHAR), after STRUCT(id INTEGER, name VARCHAR), source STRUCT(lsn BIGINT)';
    await session.run(`CREATE OR REPLACE TABLE changes (${envelope})`);
    await session.run(`INSERT INTO changes VALUES ('r', NULL, {'id': 1, 'name': 'ann'}, {'lsn': 1}), ('c', NULL, {'id': 2, 'name': 'bob'}, {'lsn': 2})`);
    await sink.write('changes', position(0));
    await session.run(`CREATE OR REPLACE TABLE changes (${envelope})`);
    await session.run(`INSERT INTO changes VALUES ('u', {'id': 1, 'name': 'ann'}, {'id': 1, 'name': 'anna'}, {'lsn': 3}), ('d', {'id': 2, 'name': 'bob'}, NULL, {'lsn': 4})`);
    await sink.write('changes', position(1));
    expect(await scanTarget(warehouse, 'dbz')).toEqual([[1, 'anna']]);
  });
});

describe('commits and failures', () => {
  const COLUMNS = 'id INTEGER, name VARCHAR, seq INTEGER';
  const CHANGES = { keys: ['id'], sequenceBy: 'seq', columns: { except: ['seq'] } };

  it('commits a snapshot carrying the positions when a batch changes nothing', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'quiet', changes: CHANGES }));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5]]), position(0));
    const redelivered = await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5], [1, 'older', 3]]), position(1));
    const empty = await sink.write(await changeBatch(session, 'changes', COLUMNS, []), position(2));
    const all = await snapshots('quiet');
    expect(all.map((s) => s.summary['thund.checkpoint.test'])).toEqual(['batch-0', 'batch-1', 'batch-2']);
    expect([redelivered.snapshotId, empty.snapshotId]).toEqual(all.slice(1).map((s) => s.snapshotId));
    expect(all.slice(1).map((s) => s.summary['added-records'] ?? '0')).toEqual(['0', '0']);
    expect(await scanTarget(warehouse, 'quiet')).toEqual([[1, 'ann']]);
  });

  it('rejects a null key or a null sequence naming the column, commits nothing, and goes on from the state before', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'bad', changes: CHANGES }));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5]]), position(0));
    const nullKey = sink.write(await changeBatch(session, 'changes', COLUMNS, [[2, 'bob', 6], [null, 'nobody', 7]]), position(1));
    await expect(nullKey).rejects.toThrow(ChangeEventError);
    await expect(nullKey).rejects.toMatchObject({ code: 'CDC_NULL_KEY', message: expect.stringContaining('"id"') });
    const nullSequence = sink.write(await changeBatch(session, 'changes', COLUMNS, [[2, 'bob', null]]), position(1));
    await expect(nullSequence).rejects.toMatchObject({ code: 'CDC_NULL_SEQUENCE', message: expect.stringContaining('(seq)') });
    expect(await snapshots('bad')).toHaveLength(1);
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[2, 'bob', 6], [1, 'older', 4]]), position(1));
    expect(await scanTarget(warehouse, 'bad')).toEqual([
      [1, 'ann'],
      [2, 'bob'],
    ]);
  });

  it('puts the operator state back when the table commit fails, so the retried batch lands exactly once', async () => {
    const { session, catalog } = warehouse;
    let refuse = false;
    const failing = new Proxy(catalog, {
      get(target, property, receiver) {
        if (property === 'commitTable' && refuse) {
          return () => Promise.reject(new Error('injected commit failure'));
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'retry', changes: CHANGES, catalog: failing }));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5], [2, 'bob', 6]]), position(0));
    const state = async (): Promise<unknown> => rowsOf(session, `SELECT * FROM ${sink.stateTables().map((t) => `"${t}"`).join(', ')} ORDER BY ALL`);
    const before = await state();
    refuse = true;
    await changeBatch(session, 'changes', COLUMNS, [[1, 'anna', 7], [3, 'cy', 8]]);
    await expect(sink.write('changes', position(1))).rejects.toThrow('injected commit failure');
    expect(await state()).toEqual(before);
    expect(await snapshots('retry')).toHaveLength(1);
    refuse = false;
    await sink.write('changes', position(1));
    expect(await scanTarget(warehouse, 'retry')).toEqual([
      [1, 'anna'],
      [2, 'bob'],
      [3, 'cy'],
    ]);
  });

  it('a failing beforeCommit (the checkpoint) commits nothing and leaves the state as before', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(cdcContext(warehouse, { name: 'hook', changes: CHANGES }));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5]]), position(0), async () => ({ pointer: 'first' }));
    const state = async (): Promise<unknown> => rowsOf(session, `SELECT * FROM "${sink.stateTables()[0]}" ORDER BY ALL`);
    const before = await state();
    await changeBatch(session, 'changes', COLUMNS, [[1, 'anna', 6]]);
    let seen: unknown;
    const failing = sink.write('changes', position(1), async () => {
      seen = await state();
      throw new Error('checkpoint upload failed');
    });
    await expect(failing).rejects.toThrow('checkpoint upload failed');
    expect(seen).not.toEqual(before);
    expect(await state()).toEqual(before);
    const all = await snapshots('hook');
    expect(all.map((s) => s.summary['pointer'])).toEqual(['first']);
    expect(await scanTarget(warehouse, 'hook')).toEqual([[1, 'ann']]);
  });

  it('under a full refresh the first batch replaces the rows an earlier run left', async () => {
    const { session } = warehouse;
    const first = await createApplyChangesSink(cdcContext(warehouse, { name: 'refresh', changes: CHANGES }));
    await first.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 5], [2, 'bob', 6]]), position(0));
    // The next run has its own session: no operator state, and it ignores its checkpoint.
    const next = await DuckDbSession.open({ threads: 1 });
    try {
      const refreshed = await createApplyChangesSink(cdcContext(warehouse, { name: 'refresh', changes: CHANGES, fullRefresh: true, session: next }));
      await refreshed.write(await changeBatch(next, 'changes', COLUMNS, [[3, 'cy', 1]]), position(0));
      expect(await scanTarget(warehouse, 'refresh')).toEqual([[3, 'cy']]);
      await refreshed.write(await changeBatch(next, 'changes', COLUMNS, [[4, 'dan', 2]]), position(1));
    } finally {
      next.close();
    }
    expect(await scanTarget(warehouse, 'refresh')).toEqual([
      [3, 'cy'],
      [4, 'dan'],
    ]);
    const all = await snapshots('refresh');
    expect(all.map((s) => s.summary.operation)).toEqual(['append', 'overwrite', 'append']);
  });

  it('creates the table with the dataset properties and reads back with deletes through position delete files', async () => {
    const { session } = warehouse;
    const sink = await createApplyChangesSink(
      cdcContext(warehouse, { name: 'props', changes: CHANGES, properties: { 'write.parquet.compression-codec': 'zstd', owner: 'cdc' } }),
    );
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[1, 'ann', 1], [2, 'bob', 2], [3, 'cy', 3]]), position(0));
    await sink.write(await changeBatch(session, 'changes', COLUMNS, [[2, 'bobby', 4]]), position(1));
    const { metadata } = await warehouse.catalog.loadTable(identifierOf('props'));
    expect(metadata.properties).toMatchObject({ owner: 'cdc', 'write.parquet.compression-codec': 'zstd' });
    const rows = await openTableRows({ session, io: warehouse.io, metadata });
    try {
      expect(rows.plan.tasks.flatMap((task) => task.deletes.map((d) => d.file.content))).toEqual([DataFileContent.PositionDeletes]);
    } finally {
      await rows.release();
    }
    expect(await scanTarget(warehouse, 'props')).toEqual([
      [1, 'ann'],
      [2, 'bobby'],
      [3, 'cy'],
    ]);
  });
});
