/**
 * Expectations on a `format: kafka` sink, run by the native backend against the test stack's
 * broker and read back by an independent kafkajs consumer (read_committed unless said otherwise),
 * with a plain DuckDB query over the input files as the oracle:
 *  - a batch flow: drop publishes exactly the passing rows, warn publishes all, and the flow's
 *    completion event counts both;
 *  - a batch (once) flow with a failing `fail` expectation publishes nothing, the run fails naming
 *    expectation, flow and sink, and the once flow is not marked done;
 *  - a streaming flow whose second micro-batch fails: the first stays published, the second sends
 *    nothing at all and its checkpoint is not committed;
 *  - a streaming flow with a drop expectation over two runs publishes each passing row once.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCatalog, type OpenedCatalog } from '../../src/app/open-catalog.js';
import type { ExpectationCounts, FlowCounts, RunEvent } from '../../src/backend/run-event.js';
import {
  brokers,
  byKeyOnce,
  checkpointValue,
  createTopic,
  oracle as oracleOver,
  readTopic,
  runSinkSpec,
  unique,
  writeParquet,
  type SinkRun,
} from './kafka-support/sink-readback.js';

let work: string;
let opened: OpenedCatalog;
let fileCount = 0;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-sink-expectations-'));
  fileCount = 0;
  mkdirSync(join(work, 'data'));
  opened = await openCatalog(undefined, { warehouse: join(work, 'warehouse') });
});
afterEach(async () => {
  await opened.close();
  rmSync(work, { recursive: true, force: true });
});

const runSpec = (spec: string): Promise<SinkRun> => runSinkSpec({ work, opened }, spec);
const addFile = (from: number, to: number): Promise<void> =>
  writeParquet(
    join(work, 'data', `part-${String(fileCount++).padStart(4, '0')}.parquet`),
    `SELECT i::BIGINT AS id, ['a', 'b', 'c'][i % 3 + 1] AS kind FROM range(${from}, ${to}) t(i)`,
  );
const oracle = (select: string): Promise<Record<string, unknown>[]> => oracleOver(join(work, 'data', '*.parquet'), select);

/** One number from the oracle: `SELECT <expression> AS n FROM {all} WHERE <where>`. */
async function count(expression: string, where: string): Promise<number> {
  const [row] = await oracle(`SELECT ${expression} AS n FROM {all} WHERE ${where}`);
  return Number(row?.['n']);
}

function spec(pipeline: string, topic: string, checkpoints: string, expectations: readonly string[], flow: readonly string[], maxFiles = 1): string {
  return [
    `pipeline: ${pipeline}`,
    'sources:',
    '  events:',
    '    format: parquet',
    `    path: ${join(work, 'data', '*.parquet')}`,
    'sinks:',
    '  alerts:',
    '    format: kafka',
    '    options:',
    `      topic: ${topic}`,
    `      bootstrap_servers: "${brokers.join(',')}"`,
    '      key_columns: id',
    `      checkpoint_topic: ${checkpoints}`,
    `      thund.stream.max-files-per-batch: "${maxFiles}"`,
    '    expectations:',
    ...expectations.map((line) => `      ${line}`),
    'flows:',
    ...flow.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

const completed = (events: readonly RunEvent[]): FlowCounts | undefined => {
  const event = events.find((e) => e.phase === 'flow-completed');
  return event?.phase === 'flow-completed' ? event.counts : undefined;
};
const progress = (events: readonly RunEvent[]): FlowCounts[] => events.flatMap((e) => (e.phase === 'flow-progress' ? [e.counts] : []));
const expectation = (name: string, action: ExpectationCounts['action'], total: number, failed: number): ExpectationCounts => ({
  dataset: 'alerts',
  expectation: name,
  action,
  passed: total - failed,
  failed,
});

describe('expectations on a Kafka sink (native engine, test stack broker)', () => {
  it('a batch flow: drop publishes exactly the passing rows, warn publishes all, and both are counted', async () => {
    const topic = await createTopic('thund-sink-expect', 2);
    await addFile(0, 100);
    const where = 'id < 90';
    const ran = await runSpec(
      spec(unique('drop'), topic, unique('thund-it-checkpoints'), ['not_fourth: { condition: id % 4 <> 0, action: drop }', "not_c: kind <> 'c'"], [
        `to_alerts: { target: alerts, sql: "SELECT id, kind FROM events WHERE ${where}" }`,
      ]),
    );
    expect(ran.result.error).toBeUndefined();
    expect(ran.result.status).toBe('completed');

    const total = await count('count(*)', where);
    const dropped = await count('count(*)', `${where} AND id % 4 = 0`);
    const warned = await count('count(*)', `${where} AND kind = 'c'`);
    expect(dropped).toBeGreaterThan(0);
    expect(completed(ran.events)).toEqual({
      rowsRead: total,
      rowsWritten: total - dropped,
      lateRows: 0,
      expectations: [expectation('not_fourth', 'drop', total, dropped), expectation('not_c', 'warn', total, warned)],
    });
    expect(ran.published).toEqual([{ sink: 'alerts', topic, records: total - dropped }]);

    const expected = await oracle(`SELECT id, kind FROM {all} WHERE ${where} AND id % 4 <> 0 ORDER BY id`);
    const read = await readTopic(topic, expected.length);
    expect(read.length).toBe(expected.length);
    expect(byKeyOnce(read)).toEqual(new Map(expected.map((row) => [String(row['id']), { id: Number(row['id']), kind: row['kind'] }])));
    // warn kept its failing rows
    expect(read.filter((r) => r.value['kind'] === 'c').length).toBe(await count('count(*)', `${where} AND id % 4 <> 0 AND kind = 'c'`));
  });

  it('a once flow with a failing fail expectation publishes nothing, names expectation, flow and sink, and stays to do', async () => {
    const topic = await createTopic('thund-sink-expect', 1);
    const checkpoints = unique('thund-it-checkpoints');
    const pipeline = unique('fail');
    await addFile(0, 50);
    const flow = ['backfill: { target: alerts, once: true, sql: "SELECT id, kind FROM events" }'];
    const failing = await runSpec(spec(pipeline, topic, checkpoints, ['small: { condition: id < 40, action: fail }'], flow));
    expect(failing.result.status).toBe('failed');
    expect(failing.result.error?.code).toBe('EXPECTATION_FAILED');
    const failedRows = await count('count(*)', 'NOT (id < 40)');
    expect(failing.result.error?.message).toContain(`Flow "backfill" into sink "alerts": Expectation "small" failed for ${failedRows} row(s)`);
    expect(failing.result.error?.message).toContain('nothing of this flow was published');
    expect(failing.published).toEqual([]);
    // Nothing was even sent: a read_uncommitted consumer sees no record either.
    expect(await readTopic(topic, 0, { readUncommitted: true, quietMs: 1_500 })).toEqual([]);

    // Not marked done: with the expectation met, the once flow publishes every row.
    const passing = await runSpec(spec(pipeline, topic, checkpoints, ['small: { condition: id < 1000, action: fail }'], flow));
    expect(passing.result.error).toBeUndefined();
    const all = await count('count(*)', 'true');
    expect(passing.published).toEqual([{ sink: 'alerts', topic, records: all }]);
    expect(completed(passing.events)?.expectations).toEqual([expectation('small', 'fail', all, 0)]);
    expect((await readTopic(topic, all)).length).toBe(all);
  });

  it('a streaming flow whose second micro-batch fails keeps the first published and commits no checkpoint for the second', async () => {
    const topic = await createTopic('thund-sink-expect', 1);
    const checkpoints = unique('thund-it-checkpoints');
    const pipeline = unique('stream-fail');
    await addFile(0, 20);
    await addFile(20, 40);
    const ran = await runSpec(
      spec(pipeline, topic, checkpoints, ['not_27: { condition: id <> 27, action: fail }'], ['export_events: { target: alerts, sql: "SELECT id, kind FROM STREAM(events)" }']),
    );
    expect(ran.result.status).toBe('failed');
    expect(ran.result.error?.code).toBe('EXPECTATION_FAILED');
    expect(ran.result.error?.message).toContain('Flow "export_events" into sink "alerts": Expectation "not_27" failed for 1 row(s)');
    expect(ran.result.error?.message).toContain('nothing of this micro-batch was published and its checkpoint was not committed');
    const first = await count('count(*)', 'id < 20');
    expect(progress(ran.events)).toEqual([{ rowsRead: first, rowsWritten: first, lateRows: 0, expectations: [expectation('not_27', 'fail', first, 0)] }]);

    const uncommitted = await readTopic(topic, first, { readUncommitted: true });
    expect(uncommitted.map((r) => Number(r.value['id'])).sort((a, b) => a - b)).toEqual((await oracle('SELECT id FROM {all} WHERE id < 20 ORDER BY id')).map((row) => Number(row['id'])));
    const checkpoint = await checkpointValue(checkpoints, `${pipeline}/export_events`);
    expect(checkpoint?.['batches']).toBe(1);
    const positions = (checkpoint?.['positions'] as Record<string, string[]>)['events'] ?? [];
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatch(/part-0000\.parquet$/);
  });

  it('a streaming flow with a drop expectation, run twice with new files between, publishes each passing row once', async () => {
    const topic = await createTopic('thund-sink-expect', 2);
    const checkpoints = unique('thund-it-checkpoints');
    const text = spec(
      unique('stream-drop'),
      topic,
      checkpoints,
      ['not_third: { condition: id % 3 <> 0, action: drop }'],
      ['export_events: { target: alerts, sql: "SELECT id, upper(kind) AS kind FROM STREAM(events) WHERE id % 5 <> 0" }'],
    );
    const selected = 'id % 5 <> 0';
    await addFile(0, 40);
    await addFile(40, 70);
    const first = await runSpec(text);
    expect(first.result.error).toBeUndefined();
    await addFile(70, 100);
    const second = await runSpec(text);
    expect(second.result.error).toBeUndefined();

    for (const [ran, range] of [[first, 'id < 70'], [second, 'id >= 70']] as const) {
      const total = await count('count(*)', `${selected} AND ${range}`);
      const dropped = await count('count(*)', `${selected} AND ${range} AND id % 3 = 0`);
      expect(dropped).toBeGreaterThan(0);
      expect(completed(ran.events)).toEqual({ rowsRead: await count('count(*)', range), rowsWritten: total - dropped, lateRows: 0, expectations: [expectation('not_third', 'drop', total, dropped)] });
      expect(ran.published).toEqual([{ sink: 'alerts', topic, records: total - dropped }]);
    }
    // One micro-batch per file: the first run's two batches are counted apart.
    expect(progress(first.events).map((counts) => counts.expectations[0]?.failed)).toEqual([
      await count('count(*)', `${selected} AND id < 40 AND id % 3 = 0`),
      await count('count(*)', `${selected} AND id >= 40 AND id < 70 AND id % 3 = 0`),
    ]);

    const expected = await oracle(`SELECT id, upper(kind) AS kind FROM {all} WHERE ${selected} AND id % 3 <> 0 ORDER BY id`);
    const read = await readTopic(topic, expected.length);
    expect(read.length).toBe(expected.length);
    expect(byKeyOnce(read)).toEqual(new Map(expected.map((row) => [String(row['id']), { id: Number(row['id']), kind: row['kind'] }])));
  });
});
