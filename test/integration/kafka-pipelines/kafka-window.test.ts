/**
 * A tumbling-window count over a Kafka topic with late records, in each output mode, with the
 * engine `thund run` uses: the records of test/unit/…/windowed-append-watermark.test.ts produced
 * in six chunks, one run after each (so each run reads one micro-batch: the records produced
 * since the last). Spark's late-data rule decides, as one DuckDB query over the produced records:
 * a record is dropped (and counted late) only when its window was finalised by the watermark of
 * the batches before it. Append lands each window once final; update and complete hold every
 * window of the accepted records.
 */
import { expect, it } from 'vitest';
import { kafkaOffsetStreams } from '../../../connectors/kafka/kafka-offset-streams.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { FILES } from '../../unit/engine/graph/streaming/watermark-files.js';
import { brokers, createTopic, runSinkSpec, unique } from '../kafka-support/sink-readback.js';
import { produce } from './debezium-topic.js';
import { liveTableRows, warehousePerTest } from './pipeline-tables.js';

const place = warehousePerTest('thund-kafka-window-');

const spec = (pipeline: string, topic: string, mode: string): string => `pipeline: ${pipeline}
sources:
  words:
    format: kafka
    topic: ${topic}
    bootstrap_servers: "${brokers.join(',')}"
    schema: { word: STRING, ts: TIMESTAMP }
tables:
  lake.word_counts:
    kind: streaming_table
    output_mode: ${mode}
    watermark: { column: ts, delay: 10 minutes }
    sql: |
      SELECT time_bucket(INTERVAL '10 minutes', ts) AS window_start, word, count(*) AS n
      FROM STREAM(words)
      GROUP BY ALL
`;

/** Spark's rule over the chunks in order: accepted records, and the watermark after the last chunk. */
async function oracle(select: string): Promise<unknown[][]> {
  const values = FILES.flatMap((rows, chunk) => rows.map(([word, t]) => `('${word}', TIMESTAMP '2026-01-01 00:${t}', ${chunk})`)).join(', ');
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const sql = `
      WITH input AS (SELECT * FROM (VALUES ${values}) v(word, ts, f)),
      marks AS (SELECT f, max(max(ts)) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - INTERVAL 10 MINUTE AS before FROM input GROUP BY f),
      windowed AS (SELECT i.*, time_bucket(INTERVAL '10 minutes', ts) AS ws, m.before FROM input i JOIN marks m USING (f)),
      accepted AS (SELECT * FROM windowed WHERE before IS NULL OR ws + INTERVAL 10 MINUTE > before)
      ${select}`;
    return (await session.queryJson(sql)).map((row) => Object.values(row));
  } finally {
    session.close();
  }
}

it.each(['append', 'update', 'complete'])('counts words per 10-minute window of a topic in %s mode, dropping only records of finalised windows', async (mode) => {
  const topic = await createTopic('thund-kafka-window', 1);
  const pipeline = unique('kafka_window').replace(/-/g, '_');
  let lateRows = 0;
  for (const [chunk, rows] of FILES.entries()) {
    await produce(topic, rows.map(([word, t], i) => ({ key: `${chunk}-${i}`, value: JSON.stringify({ word, ts: `2026-01-01 00:${t}` }) })));
    const ran = await runSinkSpec(place, spec(pipeline, topic, mode), { streams: kafkaOffsetStreams() });
    expect(ran.result.status).toBe('completed');
    lateRows += ran.result.flows.reduce((sum, flow) => sum + flow.counts.lateRows, 0);
  }
  const [[late]] = (await oracle('SELECT ((SELECT count(*) FROM windowed) - (SELECT count(*) FROM accepted))::INTEGER')) as [[number]];
  expect(late).toBe(3);
  expect(lateRows).toBe(late);
  const finalOnly = mode === 'append' ? `WHERE ws + INTERVAL 10 MINUTE <= (SELECT max(ts) FROM input) - INTERVAL 10 MINUTE` : '';
  const expected = await oracle(`SELECT strftime(ws, '%H:%M'), word, count(*)::INTEGER FROM accepted ${finalOnly} GROUP BY ALL ORDER BY ALL`);
  expect(expected.length).toBeGreaterThan(3);
  expect(await liveTableRows(place.opened, { namespace: ['lake'], name: 'word_counts' }, "strftime(window_start, '%H:%M'), word, n::INTEGER", 'ALL')).toEqual(expected);
});
