/**
 * Apply-changes flows through the streaming runner with the apply-changes sink: a CDC feed of
 * Parquet files read as a stream over two runs (one file per micro-batch, events out of order
 * across files), and the same feed read without STREAM() (the whole relation as one batch per
 * run, idempotent by sequence). Both land the SCD type 1 table a plain query predicts: per key
 * the event with the highest sequence, absent when that event is a delete.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StreamingPipeline } from './streaming-fixture.js';

const SPEC = `pipeline: cdc
sources:
  changes:
    format: parquet
    path: data/*.parquet
tables:
  lake.customers:
    kind: streaming_table
    properties: { thund.stream.max-files-per-batch: "1" }
  lake.customers_batch:
    kind: streaming_table
flows:
  apply_stream:
    target: lake.customers
    apply_changes: { keys: [id], sequence_by: seq, apply_as_deletes: "op = 'd'", except_column_list: [op] }
    sql: SELECT id, name, op, seq FROM STREAM(changes)
  apply_batch:
    target: lake.customers_batch
    apply_changes: { keys: [id], sequence_by: seq, apply_as_deletes: "op = 'd'", except_column_list: [op] }
    sql: SELECT id, name, op, seq FROM changes
`;

/** File `k`: 15 events over 6 keys; sequences interleave across files, so later files hold older events too. */
const changeFile = (k: number): string =>
  `SELECT (i % 6)::BIGINT AS id, 'name-' || ${k} || '-' || i AS name, CASE WHEN (i + ${k}) % 7 = 0 THEN 'd' ELSE 'u' END AS op,
          ((i * 4 + ${k} * 3) % 50)::BIGINT * 10 + ${k} AS seq
   FROM range(0, 15) t(i)`;

const ORACLE = `SELECT id, name FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY seq DESC) AS r FROM {all}) WHERE r = 1 AND op <> 'd' ORDER BY id`;

let pipeline: StreamingPipeline;
beforeEach(() => {
  pipeline = new StreamingPipeline(SPEC);
});
afterEach(() => pipeline.close());

it('applies a streamed CDC feed batch by batch across runs', async () => {
  for (let k = 0; k < 2; k++) await pipeline.addFile(changeFile(k));
  expect((await pipeline.run('apply_stream')).batches.length).toBe(2);
  for (let k = 2; k < 4; k++) await pipeline.addFile(changeFile(k));
  const second = await pipeline.run('apply_stream');
  expect(second.batches.map((b) => b.rowsRead)).toEqual([15, 15]);
  const expected = await pipeline.oracle(ORACLE);
  expect(expected.length).toBeGreaterThan(0);
  expect(await pipeline.rows('lake.customers', 'SELECT id, name FROM {t} ORDER BY id')).toEqual(expected);
  expect((await pipeline.snapshots('lake.customers')).every((s) => s['thund.checkpoint.apply_stream'] !== undefined)).toBe(true);
});

it('applies a non-streaming read as one batch per run, idempotently', async () => {
  for (let k = 0; k < 2; k++) await pipeline.addFile(changeFile(k));
  expect((await pipeline.run('apply_batch')).batches.length).toBe(1);
  for (let k = 2; k < 4; k++) await pipeline.addFile(changeFile(k));
  await pipeline.run('apply_batch');
  await pipeline.run('apply_batch');
  expect(await pipeline.rows('lake.customers_batch', 'SELECT id, name FROM {t} ORDER BY id')).toEqual(await pipeline.oracle(ORACLE));
});
