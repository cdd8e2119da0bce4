/**
 * A stateless streaming flow over a streamed Parquet source: three runs, new files before each,
 * micro-batches of at most two files. The table ends with every input row exactly once (the
 * oracle is a plain DuckDB query over all the files), each run commits only the new files.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';

const SPEC = `pipeline: stateless
sources:
  events:
    format: parquet
    path: data/*.parquet
tables:
  lake.events_clean:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "2" }
    sql: SELECT id, upper(kind) AS kind FROM STREAM(events) WHERE id % 7 <> 0
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

const file = (from: number, to: number): string =>
  `SELECT i::BIGINT AS id, ['a', 'b', 'c'][i % 3 + 1] AS kind FROM range(${from}, ${to}) t(i)`;

it('lands each new row once over three runs, in micro-batches of at most two files', async () => {
  for (const [from, to] of [[0, 40], [40, 90], [90, 100]] as const) await pipeline.addFile(file(from, to));
  const first = await pipeline.run('lake.events_clean');
  expect(first.batches.length).toBe(2);
  expect(first.batches.map((b) => b.rowsRead)).toEqual([90, 10]);

  const second = await pipeline.run('lake.events_clean');
  expect(second.batches).toEqual([]);

  await pipeline.addFile(file(100, 130));
  await pipeline.addFile(file(130, 131));
  const third = await pipeline.run('lake.events_clean');
  expect(third.batches.map((b) => b.rowsRead)).toEqual([31]);

  const expected = await pipeline.oracle('SELECT id, upper(kind) FROM {all} WHERE id % 7 <> 0 ORDER BY id');
  const actual = await pipeline.rows('lake.events_clean', 'SELECT id, kind FROM {t} ORDER BY id');
  expect(actual).toEqual(expected);
  expect(actual.length).toBe(131 - Math.ceil(131 / 7));

  const summaries = await pipeline.snapshots('lake.events_clean');
  expect(summaries.map((s) => s['operation'])).toEqual(['append', 'append', 'append']);
  expect(summaries.every((s) => s['thund.checkpoint.lake.events_clean']?.includes('/thund-checkpoints/'))).toBe(true);
  expect(third.counts.rowsWritten).toBe(31 - 4);
  // Only the checkpoint of the last commit is left; earlier ones were deleted after their successors
  // landed (their files: a local folder stays behind empty, object storage has no folders).
  const root = join(pipeline.work, 'warehouse', 'lake', 'events_clean', 'thund-checkpoints', 'lake.events_clean');
  const folders = readdirSync(root).filter((folder) => existsSync(join(root, folder, 'checkpoint.json')));
  expect(folders.length).toBe(1);
  expect(summaries.at(-1)?.['thund.checkpoint.lake.events_clean']).toContain(folders[0]);
});
