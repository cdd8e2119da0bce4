/**
 * What a streaming flow refuses before any batch (each error names the flow), and a target's
 * expectations applied to every micro-batch: dropped rows stay out, and each snapshot's summary
 * counts the rows of its batch that passed and failed.
 */
import { afterEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';
import { wordFile } from './stream-data.js';

const pipelines: StreamingPipeline[] = [];
afterEach(async () => {
  await Promise.all(pipelines.splice(0).map((p) => p.close()));
});

async function pipelineFor(tables: string, sources = ''): Promise<StreamingPipeline> {
  const pipeline = new StreamingPipeline(`pipeline: refusals
sources:
  words:
    format: parquet
    path: data/*.parquet
${sources}
tables:
${tables}`);
  pipelines.push(pipeline);
  await pipeline.addFile(wordFile(0, 10));
  await pipeline.addFile(wordFile(1, 10));
  return pipeline;
}

it('refuses a Kafka stream when the run has no Kafka reader, naming the flow and the topic', async () => {
  const pipeline = await pipelineFor(
    `  lake.clicks:
    kind: streaming_table
    sql: SELECT * FROM STREAM(clicks)`,
    `  clicks:
    format: kafka
    topic: clicks
    bootstrap_servers: 127.0.0.1:9092`,
  );
  await expect(pipeline.run('lake.clicks')).rejects.toThrow(/pipeline\.yaml:\d+:\d+: flow lake\.clicks: STREAM\(clicks\) reads the Kafka topic clicks, and this run has no Kafka reader/);
});

it('refuses update mode without an aggregation, and an update aggregation over SELECT *', async () => {
  const pipeline = await pipelineFor(`  lake.plain:
    kind: streaming_table
    output_mode: update
    sql: SELECT word FROM STREAM(words)
  lake.starry:
    kind: streaming_table
    output_mode: update
    sql: SELECT * FROM (SELECT word, count(*) AS n FROM STREAM(words) GROUP BY word)`);
  await expect(pipeline.run('lake.plain')).rejects.toThrow(/flow lake\.plain: output mode update needs an aggregation/);
  await expect(pipeline.run('lake.starry')).rejects.toThrow(/flow lake\.starry: an aggregation in update mode names its output columns/);
});

it('refuses a window width that time_bucket would not align with the epoch', async () => {
  const pipeline = await pipelineFor(`  lake.odd:
    kind: streaming_table
    output_mode: complete
    sql: SELECT time_bucket(INTERVAL '7 minutes', ts) AS w, count(*) AS n FROM STREAM(words) GROUP BY 1`);
  await expect(pipeline.run('lake.odd')).rejects.toThrow(/flow lake\.odd: the window width 00:07:00 must divide a day/);
});

it("applies the target's expectations to every batch and records the counts in its snapshot", async () => {
  const pipeline = await pipelineFor(`  lake.checked:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
    expectations:
      not_delta: { condition: "word <> 'delta'", action: drop }
      early: "ts < TIMESTAMP '2026-01-01 00:05:00'"
    sql: SELECT word, ts FROM STREAM(words)`);
  const run = await pipeline.run('lake.checked');
  const perFile = await pipeline.oracle(
    `SELECT count(*) FILTER (word = 'delta')::INTEGER, count(*) FILTER (NOT (ts < TIMESTAMP '2026-01-01 00:05:00'))::INTEGER FROM read_parquet('${pipeline.work}/data/*.parquet', filename = true) GROUP BY filename ORDER BY filename`,
  );
  const summaries = await pipeline.snapshots('lake.checked');
  expect(summaries.map((s) => [Number(s['thund.expectation.not_delta.failed']), Number(s['thund.expectation.early.failed'])])).toEqual(perFile);
  expect(run.batches.map((b) => b.expectations.map((e) => e.failed))).toEqual(perFile);
  expect(summaries.map((s) => s['thund.expectation.not_delta.action'])).toEqual(['drop', 'drop']);
  expect(await pipeline.rows('lake.checked', "SELECT word, strftime(ts, '%H:%M:%S') FROM {t} ORDER BY ALL")).toEqual(
    await pipeline.oracle("SELECT word, strftime(ts, '%H:%M:%S') FROM {all} WHERE word <> 'delta' ORDER BY ALL"),
  );
});
