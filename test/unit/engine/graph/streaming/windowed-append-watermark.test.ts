/**
 * A tumbling-window word count in append mode with a 10-minute watermark, one file per
 * micro-batch. Spark's late-data rule: a row is dropped only when its window was already
 * finalised by the watermark of the batches before it (watermark = max event time − delay,
 * advanced after each batch); a row behind the watermark whose window is still open counts.
 * The expected table and late count come from one DuckDB query over all files that applies that
 * rule by file order; windows are emitted once the final watermark passes their end.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { FILES } from './watermark-files.js';

const SPEC = `pipeline: wordcount
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.word_counts:
    kind: streaming_table
    watermark: { column: ts, delay: 10 minutes }
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: |
      SELECT time_bucket(INTERVAL '10 minutes', ts) AS window_start, word, count(*) AS n
      FROM STREAM(words)
      GROUP BY ALL
`;

/** Rows as (word, minutes:seconds after 2026-01-01 00:00). */
const file = (rows: [string, string][]): string =>
  `SELECT * FROM (VALUES ${rows.map(([w, t]) => `('${w}', TIMESTAMP '2026-01-01 00:${t}')`).join(', ')}) v(word, ts)`;


/** Spark's rule over all files in file order, as one query. */
const ORACLE = `
  WITH input AS (SELECT word, ts, filename AS f FROM {all}),
  marks AS (SELECT f, max(max(ts)) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - INTERVAL 10 MINUTE AS before FROM input GROUP BY f),
  windowed AS (SELECT i.*, time_bucket(INTERVAL '10 minutes', ts) AS ws, m.before FROM input i JOIN marks m USING (f)),
  accepted AS (SELECT * FROM windowed WHERE before IS NULL OR ws + INTERVAL 10 MINUTE > before)`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC.replace('{all}', ''));
});
afterEach(() => pipeline.close());

it('emits each window once the watermark passes its end and drops only rows of finalised windows', async () => {
  for (const rows of FILES) await pipeline.addFile(file(rows));
  const run = await pipeline.run('lake.word_counts');

  const all = "read_parquet('{dir}/*.parquet', filename = true)";
  const oracle = (select: string): Promise<unknown[][]> => pipeline.oracle(`${ORACLE.replace('{all}', all.replace('{dir}', `${pipeline.work}/data`))} ${select}`);
  const [[late]] = (await oracle('SELECT ((SELECT count(*) FROM windowed) - (SELECT count(*) FROM accepted))::INTEGER')) as [[number]];
  const expected = await oracle(
    `SELECT strftime(ws, '%H:%M'), word, count(*)::INTEGER FROM accepted
     WHERE ws + INTERVAL 10 MINUTE <= (SELECT max(ts) FROM input) - INTERVAL 10 MINUTE GROUP BY ALL ORDER BY ALL`,
  );

  expect(late).toBe(3);
  expect(run.counts.lateRows).toBe(late);
  expect(run.batches.map((b) => b.lateRows)).toEqual([0, 0, 2, 0, 1, 0]);
  const actual = await pipeline.rows('lake.word_counts', "SELECT strftime(window_start, '%H:%M'), word, n::INTEGER FROM {t} ORDER BY ALL");
  expect(actual).toEqual(expected);
  // [0, 10) holds a@01, a@03 (kept: the watermark before it was 00:02) and b@05; b@09 came too late.
  expect(actual).toContainEqual(['00:00', 'a', 2]);
  expect(actual).toContainEqual(['00:20', 'b', 1]);
  // Emitted windows: [0,10) and [10,20) in batch 2 (4 rows), [20,30) in batch 4, [30,40) in batch 6.
  expect(run.batches.map((b) => b.rowsWritten)).toEqual([0, 4, 0, 2, 0, 1]);
});
