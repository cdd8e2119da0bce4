/**
 * Flows into a `format: kafka` sink run by the native backend against the test stack's broker,
 * read back by an independent read_committed kafkajs consumer:
 *  - a batch flow publishes exactly its query's rows (keys, JSON values, headers), every run;
 *  - a once flow publishes once and is skipped after;
 *  - a streaming flow over a Parquet folder, run three times with new files between runs,
 *    publishes each row exactly once, and its checkpoint record lists every file;
 *  - a streaming flow over a streaming table publishes the rows each run appends, once;
 *  - a crash after the sends and before the commit, then a rerun: each row exactly once for
 *    read_committed (the crashed batch's records are in the log, only read_uncommitted sees them);
 *  - an aggregation into a sink and a sink without a topic are refused, naming flow and sink.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KafkaJsProducerClient } from '../../connectors/kafka/kafkajs-producer-client.js';
import type { ProducerClient, ProducerTransaction } from '../../connectors/kafka/producer-client.js';
import { openCatalog, type OpenedCatalog } from '../../src/app/open-catalog.js';
import type { ProducerClientFactory } from '../../src/engine/graph/sink/sink-flow-context.js';
import {
  brokers,
  byKeyOnce,
  checkpointValue,
  createTopic as createPrefixedTopic,
  oracle as oracleOver,
  readTopic,
  runSinkSpec,
  unique,
  writeParquet,
  type SinkRun,
} from './kafka-support/sink-readback.js';

const createTopic = (partitions: number): Promise<string> => createPrefixedTopic('thund-sink-flow', partitions);

/** A producer that "crashes" at its `crashAt`-th commit: the commit never reaches the broker and nothing is aborted. */
class CrashingProducer implements ProducerClient {
  private commits = 0;
  private crashed = false;

  constructor(
    private readonly inner: ProducerClient,
    private readonly crashAt: number,
  ) {}

  get brokers(): readonly string[] {
    return this.inner.brokers;
  }
  connect(): Promise<void> {
    return this.inner.connect();
  }
  partitionCount(topic: string): Promise<number | undefined> {
    return this.inner.partitionCount(topic);
  }
  send(topic: string, records: Parameters<ProducerClient['send']>[1]): Promise<void> {
    return this.inner.send(topic, records);
  }
  async beginTransaction(): Promise<ProducerTransaction> {
    const transaction = await this.inner.beginTransaction();
    return {
      send: (topic, records) => transaction.send(topic, records),
      commit: async () => {
        this.commits += 1;
        if (this.commits === this.crashAt) {
          this.crashed = true;
          throw new Error('simulated crash between the sends and the commit');
        }
        await transaction.commit();
      },
      abort: async () => {
        if (!this.crashed) await transaction.abort();
      },
    };
  }
  disconnect(): Promise<void> {
    return this.inner.disconnect();
  }
}

let work: string;
let opened: OpenedCatalog;
let fileCount = 0;

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-sink-flow-'));
  mkdirSync(join(work, 'data'));
  opened = await openCatalog(undefined, { warehouse: join(work, 'warehouse') });
});
afterEach(async () => {
  await opened.close();
  rmSync(work, { recursive: true, force: true });
});

const runSpec = (spec: string, options: { fullRefresh?: boolean; producerClient?: ProducerClientFactory } = {}): Promise<SinkRun> => runSinkSpec({ work, opened }, spec, options);

const addFile = (select: string): Promise<void> => writeParquet(join(work, 'data', `part-${String(fileCount++).padStart(4, '0')}.parquet`), select);

/** The independent oracle: a plain DuckDB query over every Parquet file of data/ (`{all}`). */
const oracle = (select: string): Promise<Record<string, unknown>[]> => oracleOver(join(work, 'data', '*.parquet'), select);

const file = (from: number, to: number): string => `SELECT i::BIGINT AS id, 'name-' || i AS name, ['a', 'b', 'c'][i % 3 + 1] AS kind FROM range(${from}, ${to}) t(i)`;

function streamingSpec(pipeline: string, topic: string, checkpointTopic: string): string {
  return `pipeline: ${pipeline}
sources:
  events:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
sinks:
  alerts:
    format: kafka
    options:
      topic: ${topic}
      bootstrap_servers: "${brokers.join(',')}"
      key_columns: id
      header.origin: thund
      checkpoint_topic: ${checkpointTopic}
      thund.stream.max-files-per-batch: "2"
flows:
  export_events:
    target: alerts
    sql: SELECT id, upper(kind) AS kind FROM STREAM(events) WHERE id % 5 <> 0
`;
}

/** The expected records of the streaming spec over the files so far, as key → value. */
async function expectedStream(): Promise<Map<string, Record<string, unknown>>> {
  const rows = await oracle(`SELECT id::VARCHAR AS k, id, upper(kind) AS kind FROM {all} WHERE id % 5 <> 0 ORDER BY id`);
  return new Map(rows.map((row) => [String(row['k']), { id: Number(row['id']), kind: row['kind'] }]));
}

describe('flows into a Kafka sink (native engine, test stack broker)', () => {
  it('a batch flow publishes exactly its query\'s rows with keys and headers, in one transaction per run', async () => {
    const topic = await createTopic(3);
    await addFile(file(0, 300));
    const spec = `pipeline: ${unique('batch')}
sources:
  orders:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
sinks:
  alerts:
    format: kafka
    options:
      topic: ${topic}
      bootstrap_servers: "${brokers.join(',')}"
      key_columns: id
      header_columns: trace
      header.origin: thund
flows:
  to_alerts:
    target: alerts
    sql: SELECT id, name, 't-' || id AS trace FROM orders WHERE id % 3 <> 0
`;
    const ran = await runSpec(spec);
    expect(ran.result.error).toBeUndefined();
    expect(ran.result.status).toBe('completed');
    const expected = await oracle(`SELECT id, name FROM {all} WHERE id % 3 <> 0 ORDER BY id`);
    expect(ran.published).toEqual([{ sink: 'alerts', topic, records: expected.length }]);
    const completed = ran.events.find((e) => e.phase === 'flow-completed');
    expect(completed?.phase === 'flow-completed' ? [completed.target, completed.counts.rowsRead, completed.counts.rowsWritten] : undefined).toEqual(['alerts', expected.length, expected.length]);

    const read = await readTopic(topic, expected.length);
    expect(read.length).toBe(expected.length);
    const got = byKeyOnce(read);
    for (const row of expected) {
      const id = Number(row['id']);
      expect(got.get(String(id))).toEqual({ id, name: row['name'] });
    }
    expect(read.every((r) => r.headers['origin'] === 'thund' && r.headers['trace'] === `t-${r.key}`)).toBe(true);
  });

  it('a once flow publishes once and is skipped on the next run', async () => {
    const topic = await createTopic(1);
    const checkpoints = unique('thund-it-checkpoints');
    await addFile(file(0, 25));
    const spec = `pipeline: ${unique('once')}
sources:
  orders:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
sinks:
  alerts:
    format: kafka
    options: { topic: ${topic}, bootstrap_servers: "${brokers.join(',')}", checkpoint_topic: ${checkpoints} }
flows:
  backfill:
    target: alerts
    once: true
    sql: SELECT id FROM orders
`;
    const first = await runSpec(spec);
    expect(first.result.status).toBe('completed');
    expect(first.published).toEqual([{ sink: 'alerts', topic, records: 25 }]);
    const second = await runSpec(spec);
    expect(second.result.flows.map((f) => f.skipped)).toEqual(['once-done']);
    expect(second.published).toEqual([]);
    const read = await readTopic(topic, 25);
    expect(read.map((r) => Number(r.value['id'])).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('a streaming flow over a Parquet folder, run three times with new files between runs, publishes each row exactly once', async () => {
    const topic = await createTopic(2);
    const checkpoints = unique('thund-it-checkpoints');
    const pipeline = unique('stream');
    const spec = streamingSpec(pipeline, topic, checkpoints);
    for (const [from, to] of [[0, 40], [40, 90], [90, 100]] as const) await addFile(file(from, to));
    const first = await runSpec(spec);
    expect(first.result.error).toBeUndefined();
    expect(first.events.filter((e) => e.phase === 'flow-progress').map((e) => (e.phase === 'flow-progress' ? e.counts.rowsRead : 0))).toEqual([90, 10]);

    const idle = await runSpec(spec);
    expect(idle.published).toEqual([{ sink: 'alerts', topic, records: 0 }]);

    await addFile(file(100, 130));
    await addFile(file(130, 131));
    const third = await runSpec(spec);
    const expected = await expectedStream();
    expect(third.published).toEqual([{ sink: 'alerts', topic, records: [...expected.keys()].filter((k) => Number(k) >= 100).length }]);

    const read = await readTopic(topic, expected.size);
    expect(read.length).toBe(expected.size);
    expect(byKeyOnce(read)).toEqual(expected);
    expect(read.every((r) => r.headers['origin'] === 'thund')).toBe(true);

    const checkpoint = await checkpointValue(checkpoints, `${pipeline}/export_events`);
    expect(checkpoint?.['flow']).toBe('export_events');
    expect(checkpoint?.['batches']).toBe(3);
    expect((checkpoint?.['positions'] as Record<string, string[]>)['events']?.length).toBe(5);

    // --full-refresh starts the positions over: every row is published again (the old records stay).
    const refreshed = await runSpec(spec, { fullRefresh: true });
    expect(refreshed.published).toEqual([{ sink: 'alerts', topic, records: expected.size }]);
    expect((await readTopic(topic, 2 * expected.size)).length).toBe(2 * expected.size);
  });

  it('a crash between the sends and the commit, then a rerun: read_committed sees each row exactly once', async () => {
    const topic = await createTopic(2);
    const checkpoints = unique('thund-it-checkpoints');
    const spec = streamingSpec(unique('crash'), topic, checkpoints);
    for (let k = 0; k < 5; k++) await addFile(file(k * 20, k * 20 + 20));
    // Batches of two files: the 1st commits, the 2nd "crashes" after its sends.
    const crashed = await runSpec(spec, { producerClient: (options) => new CrashingProducer(new KafkaJsProducerClient(options), 2) });
    expect(crashed.result.status).toBe('failed');
    expect(crashed.result.error?.message).toContain('simulated crash between the sends and the commit');
    expect(crashed.published).toEqual([]);

    const rerun = await runSpec(spec);
    expect(rerun.result.error).toBeUndefined();
    const expected = await expectedStream();
    const firstBatch = [...expected.keys()].filter((k) => Number(k) < 40).length;
    expect(rerun.published).toEqual([{ sink: 'alerts', topic, records: expected.size - firstBatch }]);

    const read = await readTopic(topic, expected.size);
    expect(read.length).toBe(expected.size);
    expect(byKeyOnce(read)).toEqual(expected);
    // The crashed batch's records did reach the log: only a read_uncommitted consumer sees them.
    const crashedBatch = [...expected.keys()].filter((k) => Number(k) >= 40 && Number(k) < 80).length;
    expect((await readTopic(topic, expected.size + crashedBatch, { readUncommitted: true })).length).toBe(expected.size + crashedBatch);
  });

  it('a streaming flow over a streaming table publishes the rows each run appends, once', async () => {
    const topic = await createTopic(1);
    const checkpoints = unique('thund-it-checkpoints');
    const spec = `pipeline: ${unique('table-stream')}
sources:
  events:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
tables:
  lake.events_clean:
    kind: streaming_table
    sql: SELECT id, kind FROM STREAM(events) WHERE id % 5 <> 0
sinks:
  alerts:
    format: kafka
    options: { topic: ${topic}, bootstrap_servers: "${brokers.join(',')}", key_columns: id, checkpoint_topic: ${checkpoints} }
flows:
  publish_clean:
    target: alerts
    sql: SELECT id, upper(kind) AS kind FROM STREAM(lake.events_clean)
`;
    await addFile(file(0, 30));
    const first = await runSpec(spec);
    expect(first.result.error).toBeUndefined();
    await addFile(file(30, 70));
    const second = await runSpec(spec);
    expect(second.result.error).toBeUndefined();
    const expected = await expectedStream();
    expect([...first.published, ...second.published].map((p) => p.records)).toEqual([
      [...expected.keys()].filter((k) => Number(k) < 30).length,
      [...expected.keys()].filter((k) => Number(k) >= 30).length,
    ]);
    const read = await readTopic(topic, expected.size);
    expect(read.length).toBe(expected.size);
    expect(byKeyOnce(read)).toEqual(expected);
  });

  it('refuses an aggregation into a sink, naming the flow and the sink, before publishing anything', async () => {
    const topic = await createTopic(1);
    await addFile(file(0, 10));
    const spec = `pipeline: ${unique('agg')}
sources:
  events:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
sinks:
  alerts:
    format: kafka
    options: { topic: ${topic}, bootstrap_servers: "${brokers.join(',')}" }
flows:
  kind_counts:
    target: alerts
    sql: SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind
`;
    const ran = await runSpec(spec);
    expect(ran.result.status).toBe('failed');
    expect(ran.result.error?.code).toBe('INVALID_INPUT');
    expect(ran.result.error?.message).toMatch(/pipeline\.yaml:\d+:\d+: flow kind_counts into sink alerts: it aggregates the stream/);
    expect(await readTopic(topic, 0, { quietMs: 1_000 })).toEqual([]);
  });

  it('refuses a sink without a topic, naming the sink, before anything runs', async () => {
    await addFile(file(0, 10));
    const spec = `pipeline: ${unique('bad')}
sources:
  events:
    format: parquet
    path: ${join(work, 'data', '*.parquet')}
sinks:
  alerts:
    format: kafka
    options: { bootstrap_servers: "${brokers.join(',')}", key_columns: id }
flows:
  to_alerts:
    target: alerts
    sql: SELECT id FROM events
`;
    const ran = await runSpec(spec);
    expect(ran.result.status).toBe('failed');
    expect(ran.result.error).toEqual({ code: 'INVALID_INPUT', message: 'Kafka sink "alerts": topic: is required', retryable: false });
    expect(ran.events.map((e) => e.phase)).toEqual(['failed']);
  });
});
