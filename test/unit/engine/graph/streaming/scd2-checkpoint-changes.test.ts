/**
 * An SCD type 2 flow checkpoints a batch by its changes alone, inside the folder of the whole
 * checkpoint they build on: a checkpoint's files follow the batch, not the history. Runs in pieces
 * (each a fresh DuckDB session replaying the chain) land the history one run lands; once the
 * changes outweigh the whole state, the next checkpoint is whole again and the old chain goes; a
 * crash between a change checkpoint's upload and its commit changes nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { checkpointFolderOf } from '../../../../../src/table/checkpoint-layout.js';
import { SCD2_CHANGES_SPEC as SPEC, scd2ChangeFile as changes, SCD2_CHANGE_FILES as FILES, SCD2_HISTORY_SQL as HISTORY, SCD2_KEYS as KEYS } from './scd2-change-files.js';
import { crashingAtCommit, pipelinesOf, type StreamingPipeline } from './streaming-fixture.js';

const POINTER = 'thund.checkpoint.history';

const pipelineWith = pipelinesOf(SPEC, changes);

async function reference(): Promise<unknown[][]> {
  const pipeline = await pipelineWith(FILES);
  const run = await pipeline.run('history');
  expect(run.batches.length).toBe(FILES);
  return pipeline.rows('lake.customers_history', HISTORY);
}

interface CheckpointFile {
  readonly stateFiles: string[];
  readonly wholeRows?: number;
  readonly changesOn?: { chain: string[]; changedRows: number };
}

async function pointer(pipeline: StreamingPipeline): Promise<{ location: string; checkpoint: CheckpointFile }> {
  const location = (await pipeline.snapshots('lake.customers_history')).at(-1)?.[POINTER] as string;
  return { location, checkpoint: JSON.parse(readFileSync(join(fileURLToPath(location), 'checkpoint.json'), 'utf8')) as CheckpointFile };
}

function flowFolder(pipeline: StreamingPipeline): string {
  return join(pipeline.work, 'warehouse', 'lake', 'customers_history', 'thund-checkpoints', 'history');
}

it('checkpoints a batch by its changes on the whole state, replays them in a new session, and saves whole again once the changes outweigh the state', async () => {
  const expected = await reference();
  expect(expected.length).toBeGreaterThan(KEYS * 3);

  const pipeline = await pipelineWith(3);
  expect((await pipeline.run('history', { stopAfter: 1 })).batches.length).toBe(1);
  const whole = await pointer(pipeline);
  expect(whole.checkpoint.changesOn).toBeUndefined();
  expect(whole.checkpoint.stateFiles.some((file) => file.endsWith('__state.parquet'))).toBe(true);
  expect(whole.checkpoint.wholeRows).toBeGreaterThanOrEqual(KEYS);

  expect((await pipeline.run('history', { stopAfter: 1 })).batches.length).toBe(1);
  expect((await pipeline.run('history')).batches.length).toBe(1);
  const changed = await pointer(pipeline);
  // Inside the whole checkpoint's folder, the two batches' changes and nothing of the history.
  expect(checkpointFolderOf(changed.location)).toBe(whole.location);
  expect(changed.checkpoint.changesOn?.chain).toHaveLength(2);
  expect(changed.checkpoint.changesOn?.chain[0]).toBe(whole.location);
  expect(changed.checkpoint.stateFiles.every((file) => /\.(deletes|inserts|delete_events|rebuilt_from|absorbed_events)\.parquet$/.test(file))).toBe(true);
  expect(changed.checkpoint.changesOn?.changedRows).toBeLessThan((whole.checkpoint.wholeRows ?? 0) / 3);
  expect(readdirSync(flowFolder(pipeline))).toEqual([whole.location.split('/').at(-1)]);

  for (let k = 3; k < FILES; k++) await pipeline.addFile(changes(k));
  expect((await pipeline.run('history', { stopAfter: 2 })).batches.length).toBe(2);
  expect(checkpointFolderOf((await pointer(pipeline)).location)).toBe(whole.location);
  expect((await pipeline.run('history')).batches.length).toBe(FILES - 5);

  // The last batch changed every key twice: more rows than the state held, so it is whole, alone.
  const last = await pointer(pipeline);
  expect(last.checkpoint.changesOn).toBeUndefined();
  expect(last.location).not.toBe(whole.location);
  expect(readdirSync(flowFolder(pipeline))).toEqual([last.location.split('/').at(-1)]);
  expect(await pipeline.rows('lake.customers_history', HISTORY)).toEqual(expected);

  // A new session restores the whole checkpoint and goes on from it.
  await pipeline.addFile(changes(4));
  expect((await pipeline.run('history')).batches.length).toBe(1);
  const after = await pointer(pipeline);
  expect(after.checkpoint.changesOn?.chain).toEqual([last.location]);
});

it('a crash between a change checkpoint upload and its commit leaves the history identical after restart', async () => {
  const expected = await reference();
  const pipeline = await pipelineWith(FILES);
  const crashing = crashingAtCommit(pipeline.catalog, 4);
  await expect(pipeline.run('history', { catalog: crashing })).rejects.toThrow(/killed/);
  const committed = await pointer(pipeline);
  expect(committed.checkpoint.changesOn?.chain).toHaveLength(2);

  const resumed = await pipeline.run('history');
  expect(resumed.batches.length).toBe(FILES - 3);
  expect(await pipeline.rows('lake.customers_history', HISTORY)).toEqual(expected);
  // Nothing of the crashed run's checkpoint is left beside the current one.
  const folder = checkpointFolderOf((await pointer(pipeline)).location);
  expect(readdirSync(flowFolder(pipeline)).map((name) => join(flowFolder(pipeline), name))).toEqual([fileURLToPath(folder)]);
  expect(existsSync(fileURLToPath(committed.location))).toBe(false);
});
