/**
 * Two `thund run` processes of one file-streaming pipeline started together, as a scheduler that
 * fires twice would: both plan micro-batches over the same new files and race to commit them.
 * Each commit is fenced on the checkpoint its batch started from, so the loser of every race
 * plans again from the table's positions: every input row lands exactly once (without the fence
 * the table held 10,500 to 11,000 rows of 6,000 ids here).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { inspect, thundAsync } from './cli.js';

const FILES = 12;
const ROWS_PER_FILE = 500;
let work: string;

/** Parquet files `from` … `to - 1` of the input, ROWS_PER_FILE ids each. */
async function writeFiles(from: number, to: number): Promise<void> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    for (let file = from; file < to; file++) {
      const path = join(work, 'data', `part-${String(file).padStart(3, '0')}.parquet`);
      await session.run(`COPY (SELECT (${file * ROWS_PER_FILE} + i)::BIGINT AS id FROM range(${ROWS_PER_FILE}) t(i)) TO ${quoteLiteral(path)} (FORMAT parquet)`);
    }
  } finally {
    session.close();
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-concurrent-runs-'));
  mkdirSync(join(work, 'data'));
  writeFileSync(
    join(work, 'pipeline.yaml'),
    `pipeline: concurrent
sources:
  events: {format: parquet, path: data/*.parquet}
tables:
  lake.events:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
    sql: SELECT id FROM STREAM(events)
`,
  );
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

it('lands every row once when two runs of a streaming pipeline race over new files', async () => {
  await writeFiles(0, 2);
  expect((await thundAsync(['run', 'pipeline.yaml'], work)).status).toBe(0);
  await writeFiles(2, FILES);

  const runs = await Promise.all([thundAsync(['run', 'pipeline.yaml'], work), thundAsync(['run', 'pipeline.yaml'], work)]);

  for (const run of runs) expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  const report = inspect('lake.events', join(work, 'warehouse'));
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const files = report.dataFiles.map((file) => quoteLiteral(new URL(file.path).pathname)).join(', ');
    const [counts] = await session.queryJson(`SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM read_parquet([${files}])`);
    expect(counts).toEqual({ n: FILES * ROWS_PER_FILE, ids: FILES * ROWS_PER_FILE });
  } finally {
    session.close();
  }
  expect(Number(report.rowCount)).toBe(FILES * ROWS_PER_FILE);
});
