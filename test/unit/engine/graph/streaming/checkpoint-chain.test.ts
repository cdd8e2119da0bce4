/**
 * When a batch's checkpoint goes whole: a chain of change checkpoints ends once the changes would
 * outweigh the whole state. A batch that changes as many rows as the one before it would not fit
 * is saved whole at once, without writing its changes first only to drop them; one whose changes
 * turn out not to fit (no batch before to tell) is written whole after them, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalFileIO, toFileUri } from '../../../../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import { CheckpointStore, type SavedCheckpoint } from '../../../../../src/engine/graph/streaming/checkpoint-store.js';
import type { StatefulOperator } from '../../../../../src/engine/operators/state-checkpoint.js';

let work: string;
let session: DuckDbSession;
beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-checkpoint-chain-'));
  session = await DuckDbSession.open({ threads: 1 });
});
afterEach(() => {
  session.close();
  rmSync(work, { recursive: true, force: true });
});

it('saves whole at once when the changes of the batch before would not fit the chain, and after writing them when they turn out not to', async () => {
  await session.run('CREATE TABLE state AS SELECT range AS k FROM range(100)');
  await session.run('CREATE TABLE changed AS SELECT range AS k FROM range(40)');
  const operator: StatefulOperator = { stateTables: () => ['state'], lastChanges: () => new Map([['op.changed', 'changed']]), replayChanges: async () => undefined };
  const copied: string[] = [];
  const queryJson = session.queryJson.bind(session);
  session.queryJson = async (sql) => {
    const table = /^COPY \(SELECT \* FROM "(\w+)"\)/.exec(sql)?.[1];
    if (table !== undefined) copied.push(table);
    return queryJson(sql);
  };
  const store = new CheckpointStore(session, () => new LocalFileIO(), 'flow', join(work, 'tmp'));
  const table = toFileUri(join(work, 'table'));
  const save = (on?: SavedCheckpoint): Promise<SavedCheckpoint> => store.save(table, { batches: 1, positions: {} }, [operator], on);

  let saved = await save();
  expect(copied.splice(0)).toEqual(['state']);
  // 40 and 80 changed rows of a 100-row state: chained.
  saved = await save(saved);
  saved = await save(saved);
  expect(copied.splice(0)).toEqual(['changed', 'changed']);
  expect(saved.chainable?.changedRows).toBe(80);
  // 80 + another 40 would be 120: whole, its changes never written.
  saved = await save(saved);
  expect(copied.splice(0)).toEqual(['state']);
  expect(saved.chainable).toMatchObject({ chain: [saved.location], changedRows: 0 });

  // A batch that changes more than the whole state, after a whole checkpoint: its changes are
  // written, found too many, and the checkpoint is whole.
  await session.run('CREATE OR REPLACE TABLE changed AS SELECT range AS k FROM range(150)');
  saved = await save(saved);
  expect(copied.splice(0)).toEqual(['changed', 'state']);
  expect(saved.chainable?.changedRows).toBe(0);
  // The next batch, as large: whole at once.
  saved = await save(saved);
  expect(copied.splice(0)).toEqual(['state']);
  // A smaller one builds on it again.
  await session.run('CREATE OR REPLACE TABLE changed AS SELECT range AS k FROM range(10)');
  saved = await save(saved);
  expect(copied.splice(0)).toEqual(['changed']);
  expect(saved.chainable?.changedRows).toBe(10);
});
