/**
 * Triggers in thund run: available-now (default) and processing-time take what is there in
 * micro-batches of at most max-files-per-batch files and stop when caught up; once takes all of
 * it as a single batch. Every trigger lands each row once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const table = (name: string, trigger: string): string => `  lake.${name}:
    kind: streaming_table
    ${trigger}
    properties: { thund.stream.max-files-per-batch: "2" }
    sql: SELECT word, ts FROM STREAM(words)
`;

const SPEC = `pipeline: triggers
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
${table('available_now', 'trigger: available_now')}${table('processing_time', 'trigger: { processing_time: 10 seconds }')}${table('once', 'trigger: once')}`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it.each([
  ['available_now', [2, 2, 1]],
  ['processing_time', [2, 2, 1]],
  ['once', [5]],
])('%s: batches of %j files, then stops when caught up', async (name, files) => {
  for (let k = 0; k < 5; k++) await pipeline.addFile(wordFile(k, 3));
  const run = await pipeline.run(`lake.${name}`);
  expect(run.batches.map((b) => b.rowsRead)).toEqual(files.map((n) => n * 3));
  expect((await pipeline.run(`lake.${name}`)).batches).toEqual([]);
  const sql = "SELECT word, strftime(ts, '%H:%M:%S') FROM {x} ORDER BY ALL";
  expect(await pipeline.rows(`lake.${name}`, sql.replace('{x}', '{t}'))).toEqual(await pipeline.oracle(sql.replace('{x}', '{all}')));
});
