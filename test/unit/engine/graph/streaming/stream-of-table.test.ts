/**
 * STREAM() of a streaming table of the same pipeline: each run the downstream flow reads only the
 * data files the upstream table gained since its last batch. After upstream and downstream run
 * twice (new source files in between), the downstream holds each source row once. When the
 * upstream replaces its rows (full refresh), the downstream stream refuses to go on until it is
 * fully refreshed too, and then holds each row once again.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const SPEC = `pipeline: chain
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.bronze:
    kind: streaming_table
    sql: SELECT word, ts FROM STREAM(words)
  lake.silver:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT upper(word) AS word, ts FROM STREAM(lake.bronze) WHERE word <> 'beta'
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

const SILVER = "SELECT word, strftime(ts, '%H:%M:%S') FROM {t} ORDER BY ALL";
const ORACLE = "SELECT upper(word), strftime(ts, '%H:%M:%S') FROM {all} WHERE word <> 'beta' ORDER BY ALL";

it('reads the rows the upstream table appended since the last batch', async () => {
  for (let k = 0; k < 2; k++) await pipeline.addFile(wordFile(k, 12));
  await pipeline.run('lake.bronze');
  expect((await pipeline.run('lake.silver')).batches.length).toBe(1);
  await pipeline.addFile(wordFile(2, 12));
  await pipeline.run('lake.bronze');
  await pipeline.addFile(wordFile(3, 12));
  await pipeline.run('lake.bronze');
  const second = await pipeline.run('lake.silver');
  expect(second.batches.map((b) => b.rowsRead)).toEqual([12, 12]);
  expect(await pipeline.rows('lake.silver', SILVER)).toEqual(await pipeline.oracle(ORACLE));
});

it('refuses to go on after the upstream replaced its rows, until the downstream is fully refreshed', async () => {
  await pipeline.addFile(wordFile(0, 12));
  await pipeline.run('lake.bronze');
  await pipeline.run('lake.silver');
  await pipeline.addFile(wordFile(1, 12));
  await pipeline.run('lake.bronze', { fullRefresh: true });
  await expect(pipeline.run('lake.silver')).rejects.toThrow(/flow lake\.silver: lake\.bronze no longer holds 1 file\(s\).*--full-refresh/);
  await pipeline.run('lake.silver', { fullRefresh: true });
  expect(await pipeline.rows('lake.silver', SILVER)).toEqual(await pipeline.oracle(ORACLE));
});
