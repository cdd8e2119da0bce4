/**
 * Micro-batch sizes of a streamed Parquet source: at most `thund.stream.max-files-per-batch`
 * files and at most `thund.stream.max-rows-per-batch` rows (from the files' footers); a file with
 * more rows than the limit is a batch of its own. Files are taken in sorted order, each once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const SPEC = `pipeline: limits
sources:
  words:
    format: parquet
    path: data/*.parquet
tables:
  lake.words:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "3", thund.stream.max-rows-per-batch: "7" }
    sql: SELECT word, ts FROM STREAM(words)
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('cuts batches by rows as well as files', async () => {
  const sizes = [3, 3, 3, 10, 1, 1, 1, 1, 2];
  for (const [k, rows] of sizes.entries()) await pipeline.addFile(wordFile(k, rows));
  const run = await pipeline.run('lake.words');
  // [3, 3] (a third file would make 9 > 7), [3] (10 would exceed), [10] alone, [1, 1, 1] (3 files), [1, 2].
  expect(run.batches.map((b) => b.rowsRead)).toEqual([6, 3, 10, 3, 3]);
  const sql = "SELECT word, strftime(ts, '%H:%M:%S') FROM {x} ORDER BY ALL";
  expect(await pipeline.rows('lake.words', sql.replace('{x}', '{t}'))).toEqual(await pipeline.oracle(sql.replace('{x}', '{all}')));
});
