/**
 * A stateless flow over two streamed sources (UNION ALL of two STREAM() reads): each source keeps
 * its own position, a batch takes the next files of each (or none of one), and over two runs
 * every row of both sources lands once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const SPEC = `pipeline: union
sources:
  east:
    format: parquet
    path: data/left/*.parquet
  west:
    format: parquet
    path: data/right/*.parquet
tables:
  lake.both:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT word, ts, 'left' AS side FROM STREAM(east) UNION ALL SELECT word, ts, 'right' AS side FROM STREAM(west)
  lake.joined:
    kind: streaming_table
    sql: SELECT e.word, e.ts FROM STREAM(east) e JOIN STREAM(west) w ON e.word = w.word
`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('keeps a position per source and lands every row of both once', async () => {
  await pipeline.addFile(wordFile(0, 4), 'data/left');
  await pipeline.addFile(wordFile(1, 5), 'data/left');
  await pipeline.addFile(wordFile(2, 6), 'data/right');
  expect((await pipeline.run('lake.both')).batches.map((b) => b.rowsRead)).toEqual([4 + 6, 5]);
  await pipeline.addFile(wordFile(3, 7), 'data/right');
  expect((await pipeline.run('lake.both')).batches.map((b) => b.rowsRead)).toEqual([7]);

  const sql = (side: string): string => `SELECT word, strftime(ts, '%H:%M:%S'), '${side}' FROM {all}`;
  const left = await pipeline.oracle(`${sql('left')} ORDER BY ALL`, 'data/left');
  const right = await pipeline.oracle(`${sql('right')} ORDER BY ALL`, 'data/right');
  const actual = await pipeline.rows('lake.both', "SELECT word, strftime(ts, '%H:%M:%S'), side FROM {t} ORDER BY side, word, 2");
  expect(actual).toEqual([...left, ...right]);
});

it('refuses to join two streams with each other', async () => {
  await pipeline.addFile(wordFile(0, 4), 'data/left');
  await pipeline.addFile(wordFile(1, 4), 'data/right');
  await expect(pipeline.run('lake.joined')).rejects.toThrow(/flow lake\.joined: it joins two streams/);
});
