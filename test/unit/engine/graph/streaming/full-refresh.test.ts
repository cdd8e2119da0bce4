/**
 * Full refresh of a streaming flow: the checkpoint is ignored, every file is read again from the
 * start, and the first batch replaces the table's rows, so the table equals one run over all
 * input (not twice the input), computed independently.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { acceptedRowsSql, wordFile } from './stream-data.js';

const SPEC = `pipeline: refresh
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.words:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "2" }
    sql: SELECT word, ts FROM STREAM(words)
  lake.word_windows:
    kind: streaming_table
    watermark: { column: ts, delay: 2 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT time_bucket(INTERVAL '5 minutes', ts) AS window_start, count(*) AS n FROM STREAM(words) GROUP BY 1
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('replaces the rows of an append flow with one pass over all input', async () => {
  for (let k = 0; k < 3; k++) await pipeline.addFile(wordFile(k, 10));
  await pipeline.run('lake.words');
  await pipeline.addFile(wordFile(3, 10));
  const refreshed = await pipeline.run('lake.words', { fullRefresh: true });
  expect(refreshed.batches.map((b) => b.rowsRead)).toEqual([20, 20]);

  const sql = "SELECT word, strftime(ts, '%H:%M:%S') FROM {x} ORDER BY ALL";
  expect(await pipeline.rows('lake.words', sql.replace('{x}', '{t}'))).toEqual(await pipeline.oracle(sql.replace('{x}', '{all}')));
  const operations = (await pipeline.snapshots('lake.words')).map((s) => s['operation']);
  expect(operations).toEqual(['append', 'append', 'overwrite', 'append']);
  // A plain run after the refresh continues from the refresh's checkpoint: nothing new.
  expect((await pipeline.run('lake.words')).batches).toEqual([]);
});

it('restarts a windowed aggregation from empty state: same windows as a first run', async () => {
  for (let k = 0; k < 4; k++) await pipeline.addFile(wordFile(k));
  await pipeline.run('lake.word_windows');
  await pipeline.run('lake.word_windows', { fullRefresh: true });
  const accepted = acceptedRowsSql(`read_parquet('${pipeline.work}/data/*.parquet', filename = true)`, '5 minutes', '2 minutes');
  const expected = await pipeline.oracle(
    `${accepted} SELECT strftime(ws, '%H:%M'), count(*)::INTEGER FROM accepted
     WHERE ws + INTERVAL 5 MINUTE <= (SELECT max(ts) FROM input) - INTERVAL 2 MINUTE GROUP BY ALL ORDER BY ALL`,
  );
  expect(await pipeline.rows('lake.word_windows', "SELECT strftime(window_start, '%H:%M'), n::INTEGER FROM {t} ORDER BY ALL")).toEqual(expected);
});
