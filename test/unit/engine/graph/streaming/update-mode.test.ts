/**
 * Update output mode: each micro-batch upserts the aggregates it changed, keyed by the group
 * columns. The table after every run equals the aggregation over all rows read so far (for the
 * windowed flow, the rows not dropped as late), computed by a plain DuckDB query over the files.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { acceptedRowsSql, wordFile } from './stream-data.js';
import { wordsPipeline } from './words-pipeline.js';

const SPEC = wordsPipeline(
  'updates',
  `  lake.word_totals:
    kind: streaming_table
    output_mode: update
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT word, count(*) AS n, max(ts) AS last_seen FROM STREAM(words) GROUP BY word
  lake.totals:
    kind: streaming_table
    output_mode: update
    sql: SELECT count(*) AS n, count(DISTINCT word) AS words FROM STREAM(words)
  lake.word_windows:
    kind: streaming_table
    output_mode: update
    watermark: { column: ts, delay: 2 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: |
      SELECT time_bucket(INTERVAL '5 minutes', ts) AS window_start, word, count(*) AS n
      FROM STREAM(words)
      GROUP BY time_bucket(INTERVAL '5 minutes', ts), word
`,
);

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

const files = (p: StreamingPipeline): string => `read_parquet('${p.work}/data/*.parquet', filename = true)`;

it('a streaming GROUP BY without a window keeps one row per key with its running aggregates', async () => {
  for (let k = 0; k < 3; k++) await pipeline.addFile(wordFile(k, 10 + k));
  const first = await pipeline.run('lake.word_totals');
  await pipeline.addFile(wordFile(3, 1));
  const second = await pipeline.run('lake.word_totals');

  const expected = await pipeline.oracle("SELECT word, count(*)::INTEGER, strftime(max(ts), '%H:%M:%S') FROM {all} GROUP BY word ORDER BY word");
  const actual = await pipeline.rows('lake.word_totals', "SELECT word, n::INTEGER, strftime(last_seen, '%H:%M:%S') FROM {t} ORDER BY word");
  expect(actual).toEqual(expected);
  // The one-row batch changes exactly one key: one row upserted.
  expect(second.batches.map((b) => b.rowsWritten)).toEqual([1]);
  expect(first.batches.length).toBe(3);
  const operations = (await pipeline.snapshots('lake.word_totals')).map((s) => s['operation']);
  expect(operations[0]).toBe('append');
  expect(operations.slice(1).every((operation) => operation === 'overwrite')).toBe(true);
});

it('a windowed aggregation upserts the windows each batch changed; late rows stay out', async () => {
  for (let k = 0; k < 5; k++) await pipeline.addFile(wordFile(k));
  const run = await pipeline.run('lake.word_windows');

  const accepted = acceptedRowsSql(files(pipeline), '5 minutes', '2 minutes');
  const expected = await pipeline.oracle(`${accepted} SELECT strftime(ws, '%H:%M'), word, count(*)::INTEGER FROM accepted GROUP BY ALL ORDER BY ALL`);
  const [[late]] = (await pipeline.oracle(`${accepted} SELECT ((SELECT count(*) FROM windowed) - (SELECT count(*) FROM accepted))::INTEGER`)) as [[number]];
  const actual = await pipeline.rows('lake.word_windows', "SELECT strftime(window_start, '%H:%M'), word, n::INTEGER FROM {t} ORDER BY ALL");
  expect(actual).toEqual(expected);
  expect(late).toBeGreaterThan(0);
  expect(run.counts.lateRows).toBe(late);
});

it('an aggregation without group keys keeps its one row up to date', async () => {
  await pipeline.addFile(wordFile(0, 5));
  await pipeline.run('lake.totals');
  await pipeline.addFile(wordFile(1, 7));
  await pipeline.run('lake.totals');
  const expected = await pipeline.oracle('SELECT count(*)::INTEGER, count(DISTINCT word)::INTEGER FROM {all}');
  expect(await pipeline.rows('lake.totals', 'SELECT n::INTEGER, words::INTEGER FROM {t}')).toEqual(expected);
});
