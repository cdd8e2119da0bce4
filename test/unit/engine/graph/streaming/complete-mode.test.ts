/**
 * Complete output mode: every micro-batch replaces the table with the whole result so far. After
 * each run the table equals the aggregation over every file read, computed independently.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { acceptedRowsSql, wordFile } from './stream-data.js';

const SPEC = `pipeline: complete
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.word_counts:
    kind: streaming_table
    output_mode: complete
    properties: { thund.stream.max-files-per-batch: "2" }
    sql: SELECT word, count(*) AS n FROM STREAM(words) GROUP BY word HAVING count(*) > 1
  lake.window_counts:
    kind: streaming_table
    output_mode: complete
    watermark: { column: ts, delay: 2 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT time_bucket(INTERVAL '10 minutes', ts) AS window_start, count(*) AS n FROM STREAM(words) GROUP BY 1
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('replaces the table with the whole result every batch', async () => {
  const oracle = (): Promise<unknown[][]> => pipeline.oracle('SELECT word, count(*)::INTEGER FROM {all} GROUP BY word HAVING count(*) > 1 ORDER BY word');
  const table = (): Promise<unknown[][]> => pipeline.rows('lake.word_counts', 'SELECT word, n::INTEGER FROM {t} ORDER BY word');
  for (let k = 0; k < 3; k++) await pipeline.addFile(wordFile(k, 5));
  const first = await pipeline.run('lake.word_counts');
  expect(first.batches.length).toBe(2);
  expect(await table()).toEqual(await oracle());

  await pipeline.addFile(wordFile(3, 3));
  await pipeline.run('lake.word_counts');
  expect(await table()).toEqual(await oracle());
  const operations = (await pipeline.snapshots('lake.word_counts')).map((s) => s['operation']);
  expect(operations).toEqual(['overwrite', 'overwrite', 'overwrite']);
});

it('keeps finalised windows in the result and counts late rows', async () => {
  for (let k = 0; k < 4; k++) await pipeline.addFile(wordFile(k));
  const run = await pipeline.run('lake.window_counts');
  const accepted = acceptedRowsSql(`read_parquet('${pipeline.work}/data/*.parquet', filename = true)`, '10 minutes', '2 minutes');
  const expected = await pipeline.oracle(`${accepted} SELECT strftime(ws, '%H:%M'), count(*)::INTEGER FROM accepted GROUP BY ALL ORDER BY ALL`);
  const [[late]] = (await pipeline.oracle(`${accepted} SELECT ((SELECT count(*) FROM windowed) - (SELECT count(*) FROM accepted))::INTEGER`)) as [[number]];
  expect(await pipeline.rows('lake.window_counts', "SELECT strftime(window_start, '%H:%M'), n::INTEGER FROM {t} ORDER BY ALL")).toEqual(expected);
  expect(late).toBeGreaterThan(0);
  expect(run.counts.lateRows).toBe(late);
});
