/**
 * Restart from a checkpoint mid-stream: a windowed word count in append mode run in several
 * pieces (stopped after some batches, new files arriving in between, each piece in a fresh DuckDB
 * session) lands the same table, late counts and batches as one uninterrupted run; so does a run
 * that "crashes" after uploading a batch's checkpoint and before its commit (the orphan
 * checkpoint is never read, the batch is recomputed from the last committed one).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { FileIO } from '../../../../../src/iceberg/file-io.js';
import { crashingAtCommit, StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const SPEC = `pipeline: restart
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.word_counts:
    kind: streaming_table
    watermark: { column: ts, delay: 2 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: |
      SELECT time_bucket(INTERVAL '5 minutes', ts) AS window_start, word, count(*) AS n, min(ts) AS first_seen
      FROM STREAM(words)
      GROUP BY ALL
`;
const FILES = 7;
const TABLE_SQL = "SELECT strftime(window_start, '%H:%M'), word, n::INTEGER, strftime(first_seen, '%H:%M:%S') FROM {t} ORDER BY ALL";

const pipelines: StreamingPipeline[] = [];
afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.close()));
});

async function pipelineWith(files: number): Promise<StreamingPipeline> {
  const pipeline = new StreamingPipeline(SPEC);
  pipelines.push(pipeline);
  for (let k = 0; k < files; k++) await pipeline.addFile(wordFile(k));
  return pipeline;
}

async function uninterrupted(): Promise<{ rows: unknown[][]; late: number }> {
  const pipeline = await pipelineWith(FILES);
  const run = await pipeline.run('lake.word_counts');
  expect(run.batches.length).toBe(FILES);
  return { rows: await pipeline.rows('lake.word_counts', TABLE_SQL), late: run.counts.lateRows };
}

it('stopping after some batches and continuing in a new session gives the same table as one run', async () => {
  const reference = await uninterrupted();
  expect(reference.late).toBeGreaterThan(0);

  const pipeline = await pipelineWith(3);
  const pieces = [await pipeline.run('lake.word_counts', { stopAfter: 2 })];
  for (let k = 3; k < FILES; k++) await pipeline.addFile(wordFile(k));
  pieces.push(await pipeline.run('lake.word_counts', { stopAfter: 1 }));
  pieces.push(await pipeline.run('lake.word_counts', { stopAfter: 2 }));
  pieces.push(await pipeline.run('lake.word_counts'));
  expect(pieces.map((p) => p.batches.length)).toEqual([2, 1, 2, 2]);
  expect(pieces.reduce((sum, p) => sum + p.counts.lateRows, 0)).toBe(reference.late);
  expect(await pipeline.rows('lake.word_counts', TABLE_SQL)).toEqual(reference.rows);
});

it('a crash between the checkpoint upload and the commit leaves results identical after restart', async () => {
  const reference = await uninterrupted();
  const pipeline = await pipelineWith(FILES);
  // The crashed process: its 4th commit never happens, and it cleans nothing up.
  const crashing = crashingAtCommit(pipeline.catalog, 4);
  const noCleanup: FileIO = { ...bindAll(pipeline.io), delete: async () => undefined };
  await expect(pipeline.run('lake.word_counts', { catalog: crashing, io: noCleanup })).rejects.toThrow(/killed/);

  const root = join(pipeline.work, 'warehouse', 'lake', 'word_counts', 'thund-checkpoints', 'lake.word_counts');
  const uploaded = readdirSync(root).filter((folder) => existsSync(join(root, folder, 'checkpoint.json')));
  expect(uploaded.length).toBe(4); // three committed batches' checkpoints (none deleted) and the orphan
  expect((await pipeline.snapshots('lake.word_counts')).length).toBe(3);

  const resumed = await pipeline.run('lake.word_counts');
  expect(resumed.batches.length).toBe(FILES - 3);
  expect(await pipeline.rows('lake.word_counts', TABLE_SQL)).toEqual(reference.rows);
});

function bindAll(io: FileIO): FileIO {
  return {
    read: io.read.bind(io),
    writeNew: io.writeNew.bind(io),
    exists: io.exists.bind(io),
    length: io.length.bind(io),
    delete: io.delete.bind(io),
    ...(io.localPathFor === undefined ? {} : { localPathFor: io.localPathFor.bind(io) }),
    ...(io.writeNewFromFile === undefined ? {} : { writeNewFromFile: io.writeNewFromFile.bind(io) }),
    ...(io.readRange === undefined ? {} : { readRange: io.readRange.bind(io) }),
  };
}

it.each(['update', 'complete'])('%s mode: stopping and continuing gives the same table as one run', async (mode) => {
  const spec = SPEC.replace('    kind: streaming_table\n', `    kind: streaming_table\n    output_mode: ${mode}\n`);
  const whole = new StreamingPipeline(spec);
  const pieces = new StreamingPipeline(spec);
  pipelines.push(whole, pieces);
  for (let k = 0; k < FILES; k++) {
    await whole.addFile(wordFile(k));
    await pieces.addFile(wordFile(k));
  }
  const reference = await whole.run('lake.word_counts');
  let batches = 0;
  while (batches < FILES) batches += (await pieces.run('lake.word_counts', { stopAfter: 2 })).batches.length;
  const table = (p: StreamingPipeline): Promise<unknown[][]> => p.rows('lake.word_counts', TABLE_SQL);
  const expected = await table(whole);
  expect(expected.length).toBeGreaterThan(10);
  expect(await table(pieces)).toEqual(expected);
  expect(reference.counts.lateRows).toBeGreaterThan(0);
  // The mode took effect: upserts and replacements are overwrite snapshots, appends are not.
  expect((await pieces.snapshots('lake.word_counts')).filter((s) => s['operation'] === 'overwrite').length).toBeGreaterThan(FILES / 2);
});
