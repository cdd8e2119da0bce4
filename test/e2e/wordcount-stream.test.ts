/**
 * examples/wordcount_stream through `thund run`: three runs with new files of lines before the
 * first two; the third finds nothing new and commits nothing. The table (read back through the
 * CLI's own scan, by DuckDB from `thund inspect`'s data files) equals the counts a plain DuckDB
 * query over all lines predicts under Spark's watermark rule, and each run reports its late rows.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { linesSql } from '../../examples/wordcount_stream/make-data.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { inspect, REPO, thund } from './cli.js';

let work: string;
let session: DuckDbSession;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-wordcount-'));
  mkdirSync(join(work, 'data', 'lines'), { recursive: true });
  copyFileSync(join(REPO, 'examples/wordcount_stream/pipeline.yaml'), join(work, 'pipeline.yaml'));
  session = await DuckDbSession.open({ threads: 1 });
});
afterAll(() => {
  session?.close();
  rmSync(work, { recursive: true, force: true });
});

async function addLines(from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    await session.run(`COPY (${linesSql(n)}) TO ${quoteLiteral(join(work, 'data', 'lines', `part-${String(n).padStart(4, '0')}.parquet`))} (FORMAT parquet)`);
  }
}

function run(): string {
  const result = thund(['run', join(work, 'pipeline.yaml'), '--warehouse', join(work, 'warehouse')]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

const lateOf = (stdout: string): number => Number(/late rows: (\d+)/.exec(stdout)?.[1] ?? 0);

it('counts words per window across runs, exactly once, with late lines left out', async () => {
  await addLines(0, 4);
  const first = run();
  await addLines(4, 7);
  const second = run();
  const third = run();
  expect(third).toMatch(/0 rows read, 0 rows written/);

  const files = `read_parquet(${quoteLiteral(join(work, 'data/lines/*.parquet'))}, filename = true)`;
  const oracle = `
    WITH input AS (SELECT line, event_time, filename AS f FROM ${files}),
    marks AS (SELECT f, max(max(event_time)) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) - INTERVAL 5 MINUTE AS before FROM input GROUP BY f),
    lines AS (SELECT i.*, time_bucket(INTERVAL '10 minutes', event_time) AS ws, m.before FROM input i JOIN marks m USING (f)),
    accepted AS (SELECT * FROM lines WHERE before IS NULL OR ws + INTERVAL 10 MINUTE > before),
    words AS (SELECT unnest(string_split(lower(line), ' ')) AS word, ws FROM accepted)`;
  const expected = await session.queryJson(
    `${oracle} SELECT epoch(ws)::BIGINT AS w, word, count(*)::INTEGER AS n FROM words
     WHERE ws + INTERVAL 10 MINUTE <= (SELECT max(event_time) FROM input) - INTERVAL 5 MINUTE GROUP BY ALL ORDER BY ALL`,
  );
  const [lateRow] = await session.queryJson(`${oracle} SELECT ((SELECT count(*) FROM lines) - (SELECT count(*) FROM accepted))::INTEGER AS late`);

  const report = inspect('lake.word_counts', join(work, 'warehouse'));
  const dataFiles = report.dataFiles.map((file) => quoteLiteral(join(work, 'warehouse', file.path.replace(/^.*?lake\//, 'lake/'))));
  const actual = await session.queryJson(
    `SELECT epoch(window_start)::BIGINT AS w, word, occurrences::INTEGER AS n FROM read_parquet([${dataFiles.join(', ')}]) ORDER BY ALL`,
  );
  expect(expected.length).toBeGreaterThan(10);
  expect(actual).toEqual(expected);
  expect(lateOf(first) + lateOf(second)).toBe(Number(lateRow?.['late']));
  expect(report.snapshots.length).toBe(7);
  expect(report.snapshots.every((s) => s.summary['thund.checkpoint.lake.word_counts'] !== undefined)).toBe(true);
});
