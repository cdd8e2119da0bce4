/**
 * examples/wordcount_stream as shipped: its pipeline.yaml and its generator's files, run in two
 * pieces (new files in between), land the word counts a plain DuckDB query over all lines
 * predicts under Spark's watermark rule, with the same number of late lines.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { linesSql } from '../../../../../examples/wordcount_stream/make-data.js';
import { StreamingPipeline } from './streaming-fixture.js';

const SPEC = readFileSync(new URL('../../../../../examples/wordcount_stream/pipeline.yaml', import.meta.url), 'utf8');
const FILES = 6;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('counts words per 10-minute window once the watermark passes, leaving out late lines', async () => {
  for (let n = 0; n < 3; n++) await pipeline.addFile(linesSql(n), 'data/lines');
  const first = await pipeline.run('lake.word_counts');
  for (let n = 3; n < FILES; n++) await pipeline.addFile(linesSql(n), 'data/lines');
  const second = await pipeline.run('lake.word_counts');
  expect(first.batches.length + second.batches.length).toBe(FILES);

  const oracle = `
    WITH input AS (SELECT line, event_time, filename AS f FROM read_parquet('${pipeline.work}/data/lines/*.parquet', filename = true)),
    marks AS (SELECT f, max(max(event_time)) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - INTERVAL 5 MINUTE AS before FROM input GROUP BY f),
    lines AS (SELECT i.*, time_bucket(INTERVAL '10 minutes', event_time) AS ws, m.before FROM input i JOIN marks m USING (f)),
    accepted AS (SELECT * FROM lines WHERE before IS NULL OR ws + INTERVAL 10 MINUTE > before),
    words AS (SELECT unnest(string_split(lower(line), ' ')) AS word, ws FROM accepted)`;
  const expected = await pipeline.oracle(
    `${oracle} SELECT epoch(ws)::BIGINT, word, count(*)::INTEGER FROM words
     WHERE ws + INTERVAL 10 MINUTE <= (SELECT max(event_time) FROM input) - INTERVAL 5 MINUTE GROUP BY ALL ORDER BY ALL`,
  );
  const [[late]] = (await pipeline.oracle(`${oracle} SELECT ((SELECT count(*) FROM lines) - (SELECT count(*) FROM accepted))::INTEGER`)) as [[number]];
  const actual = await pipeline.rows('lake.word_counts', 'SELECT epoch(window_start)::BIGINT, word, occurrences::INTEGER FROM {t} ORDER BY ALL');
  expect(actual.length).toBeGreaterThan(10);
  expect(actual).toEqual(expected);
  expect(late).toBeGreaterThan(0);
  expect(first.counts.lateRows + second.counts.lateRows).toBe(late);
});
