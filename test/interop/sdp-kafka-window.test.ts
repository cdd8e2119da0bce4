/**
 * One Kafka pipeline run natively (`thund run`, the Kafka offset reader) and on Spark (the SDP
 * lowering: `spark.readStream.format("kafka")` + from_json, with the Spark Kafka connector jars
 * from Maven, test/stack/spark-pipelines.ts) lands the same rows in both engines, read back by
 * pyiceberg, and both equal DuckDB's reference over the records produced. The source is a JSON
 * topic on the test stack's broker (three partitions, keyed records, explicit record timestamps)
 * with a declared schema and a 1-minute source watermark; the pipeline has a pass-through
 * streaming table (value fields and the record's _kafka_* coordinates) and a 1-minute windowed
 * count per key in append mode. Records are produced in two phases, each followed by one run of
 * each engine from its checkpoint: the second phase brings late records (their window ended at or
 * before the first run's watermark: dropped by both engines, Spark's rule), records behind the
 * watermark whose window is still open (counted), and newer ones that close more windows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/app/commands/run.js';
import { analysePipelineFile } from '../../src/app/commands/validate.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { sparkCatalogConfig } from '../../src/sdp/catalog-conf.js';
import { SparkBackend } from '../../src/sdp/spark-backend.js';
import type { SparkRuntime } from '../../src/sdp/spark-runtime.js';
import { parseSparkVersion } from '../../src/sdp/spark-version.js';
import { requireServiceEnv } from '../stack/service.js';
import { prepareSparkPipelines, SDP_SPARK_VERSION, type SparkPipelinesSetup } from '../stack/spark-pipelines.js';
import { readWithPyiceberg, type PyicebergTable } from './pyiceberg.js';

const BROKERS = requireServiceEnv('THUND_TEST_KAFKA_BROKERS').split(',');
const SPARK = parseSparkVersion(SDP_SPARK_VERSION);
const BASE_MS = Date.parse('2026-03-01T10:00:00Z');
const KEYS = ['ann', 'bob', 'cy', 'dee', null] as const;

let runtime: SparkRuntime & SparkPipelinesSetup;
let scratch: string;

beforeAll(async () => {
  // Spark's Kafka consumer and the native reader talk to the broker on loopback only.
  for (const broker of BROKERS) expect(broker, 'THUND_TEST_KAFKA_BROKERS must be loopback addresses').toMatch(/^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$/);
  runtime = await prepareSparkPipelines();
  scratch = mkdtempSync(path.join(tmpdir(), 'thund-sdp-kafka-'));
}, 1_200_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

interface Click {
  readonly phase: 1 | 2;
  readonly key: string | null;
  readonly user: string;
  readonly page: string;
  /** Event time, epoch ms. */
  readonly ts: number;
  /** The record's timestamp, epoch ms. */
  readonly recordTs: number;
}

/** A small deterministic generator (no Math.random: the same event times, keys and pages every run). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * Phase 1: 150 clicks over 10:00–10:10:30, each up to 40 s out of order (within the 1-minute
 * delay). Phase 2: 80 newer clicks up to 10:15:30, 6 late ones in windows long closed by the first
 * run's watermark (10:09:30), and 4 behind that watermark but in the still-open 10:09 window.
 */
function clicks(): Click[] {
  const random = lcg(16);
  const out: Click[] = [];
  // Record timestamps are recent: the broker's time retention (7 days) would delete older records under the engines.
  let recordTs = Math.floor(Date.now() / 1000) * 1000 - 600_000;
  const click = (phase: 1 | 2, ts: number, index: number): Click => {
    recordTs += 250;
    const key = KEYS[Math.floor(random() * KEYS.length)] ?? null;
    return { phase, key, user: `user-${index % 7}`, page: `/p/${Math.floor(random() * 20)}`, ts, recordTs };
  };
  for (let i = 0; i < 150; i++) out.push(click(1, BASE_MS + Math.round((i / 149) * 630_000 - random() * 40_000), i));
  out.push(click(1, BASE_MS + 630_000, 150));
  for (let i = 0; i < 80; i++) out.push(click(2, BASE_MS + 640_000 + Math.round((i / 79) * 290_000 - random() * 40_000), 200 + i));
  for (let i = 0; i < 6; i++) out.push(click(2, BASE_MS + 120_000 + i * 9_000, 300 + i));
  for (let i = 0; i < 4; i++) out.push(click(2, BASE_MS + 542_000 + i * 5_000, 400 + i));
  return out;
}

const kafka = new Kafka({ clientId: 'thund-sdp-kafka-window', brokers: BROKERS, logLevel: logLevel.NOTHING });

async function freshTopic(): Promise<string> {
  const topic = `thund-sdp-kafka-window-${Date.now().toString(36)}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return topic;
}

async function produceClicks(topic: string, records: readonly Click[]): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: records.map((r, index) => ({
        key: r.key,
        // Null keys go round the partitions by position, so every partition gets some.
        ...(r.key === null ? { partition: index % 3 } : {}),
        value: JSON.stringify({ user: r.user, page: r.page, ts: new Date(r.ts).toISOString() }),
        timestamp: String(r.recordTs),
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

function pipelineSpec(topic: string): string {
  return [
    'pipeline: kafka_window',
    'sources:',
    '  clicks:',
    '    format: kafka',
    `    topic: ${topic}`,
    `    bootstrap_servers: "${BROKERS.join(',')}"`,
    '    value_format: json',
    '    schema: { user: string, page: string, ts: timestamptz }',
    '    watermark: { column: ts, delay: 1 minute }',
    'tables:',
    '  lake.clicks_raw: { kind: streaming_table, sql: "SELECT * FROM STREAM(clicks)" }',
    '  lake.clicks_per_minute:',
    '    kind: streaming_table',
    '    sql: |',
    "      SELECT time_bucket(INTERVAL '1 minute', ts) AS window_start, _kafka_key AS key, count(*) AS clicks",
    // Grouped by the time_bucket itself: GROUP BY ALL would leave Spark grouping by window(…).start, without the watermark.
    "      FROM STREAM(clicks) GROUP BY time_bucket(INTERVAL '1 minute', ts), _kafka_key",
    '',
  ].join('\n');
}

/** Epoch ms of a timestamp as pyiceberg prints it: with an offset (timestamptz) or without (timestamp, UTC wall clock). */
const epochMs = (text: unknown): number => Date.parse(/(Z|[+-]\d\d:\d\d)$/.test(String(text)) ? String(text) : `${String(text)}Z`);

const windowRow = (row: Record<string, unknown>): string => `${new Date(epochMs(row['window_start'])).toISOString()}|${String(row['key'])}|${String(row['clicks'])}`;
const rawRow = (row: Record<string, unknown>): string =>
  [row['_kafka_key'], row['user'], row['page'], new Date(epochMs(row['ts'])).toISOString(), new Date(epochMs(row['_kafka_timestamp'])).toISOString()].map(String).join('|');
const fullRawRow = (row: Record<string, unknown>): string =>
  `${String(row['_kafka_topic'])}|${String(row['_kafka_partition'])}|${String(row['_kafka_offset'])}|${rawRow(row)}`;

const typesOf = (table: PyicebergTable): Record<string, string> => Object.fromEntries(table.schema.map((field) => [field.name, String(field.type)]));

interface Reference {
  readonly windows: string[];
  readonly raw: string[];
  /** Phase-2 records dropped as late, and those behind the watermark but still counted. */
  readonly late: number;
  readonly behindButOpen: number;
}

/**
 * DuckDB over the produced records: every record passes through; a window is emitted once the
 * watermark (max event time so far - 1 minute, never going back) reaches its end, and a phase-2
 * record whose window had ended by the first run's watermark is late and dropped.
 */
async function reference(records: readonly Click[], phases: 1 | 2): Promise<Reference> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const iso = (ms: number): string => quoteLiteral(new Date(ms).toISOString());
    const values = records
      .filter((r) => r.phase <= phases)
      .map((r) => `(${r.phase}, ${r.key === null ? 'NULL' : quoteLiteral(r.key)}, ${quoteLiteral(r.user)}, ${quoteLiteral(r.page)}, ${iso(r.ts)}::TIMESTAMPTZ, ${iso(r.recordTs)}::TIMESTAMPTZ)`);
    await session.run('SET TimeZone = \'UTC\'');
    await session.run(`CREATE TABLE produced AS SELECT * FROM (VALUES ${values.join(', ')}) t(phase, k, usr, page, ts, record_ts)`);
    const marks = `(SELECT max(ts) FILTER (WHERE phase = 1) - INTERVAL 1 minute AS wm1, max(ts) - INTERVAL 1 minute AS wm_all FROM produced)`;
    const end = `time_bucket(INTERVAL 1 minute, ts) + INTERVAL 1 minute`;
    const windows = await session.queryJson(
      `WITH m AS ${marks}, kept AS (SELECT p.* FROM produced p, m WHERE phase = 1 OR ${end} > wm1)
       SELECT strftime(time_bucket(INTERVAL 1 minute, ts), '%Y-%m-%dT%H:%M:%S.000Z') || '|' || coalesce(k, 'null') || '|' || count(*) AS line
       FROM kept, m WHERE ${end} <= greatest(wm1, wm_all) GROUP BY time_bucket(INTERVAL 1 minute, ts), k, wm1, wm_all`,
    );
    const raw = await session.queryJson(
      `SELECT concat_ws('|', coalesce(k, 'null'), usr, page, strftime(ts, '%Y-%m-%dT%H:%M:%S.%gZ'), strftime(record_ts, '%Y-%m-%dT%H:%M:%S.%gZ')) AS line FROM produced`,
    );
    const [counts] = await session.queryJson(
      `SELECT count(*) FILTER (WHERE phase = 2 AND ${end} <= wm1)::INTEGER AS late, count(*) FILTER (WHERE phase = 2 AND ts < wm1 AND ${end} > wm1)::INTEGER AS open FROM produced, ${marks} m`,
    );
    return {
      windows: windows.map((row) => String(row['line'])).sort(),
      raw: raw.map((row) => String(row['line'])).sort(),
      late: Number(counts?.['late'] ?? 0),
      behindButOpen: Number(counts?.['open'] ?? 0),
    };
  } finally {
    session.close();
  }
}

describe('a Kafka windowed count, natively and on Spark', () => {
  it('lands the same rows in both engines, each equal to DuckDB over the produced records, across two runs with late records', async () => {
    const topic = await freshTopic();
    const spec = path.join(scratch, 'kafka-window.yaml');
    writeFileSync(spec, pipelineSpec(topic));
    const nativeWarehouse = path.join(scratch, 'native-wh');
    const sparkWarehouse = path.join(scratch, 'spark-wh');
    mkdirSync(sparkWarehouse, { recursive: true });

    const analysed = await analysePipelineFile(spec);
    const { graph, definition } = analysed;
    if (graph === undefined || definition === undefined || analysed.problems.length > 0) throw new Error(analysed.problems.map((p) => p.message).join('; '));
    const catalog = sparkCatalogConfig(definition.catalog, definition.storage, definition.specPath, {}, { warehouse: sparkWarehouse });
    // One project folder for both runs: Spark's checkpoints (its Kafka offsets, window state and watermark) live under it.
    let sparkOutput: string[] = [];
    const spark = new SparkBackend({ runtime, sparkVersion: SPARK, catalog, projectDir: path.join(scratch, 'spark-project'), onOutput: (line) => sparkOutput.push(line) });
    const report = spark.lower(graph).report.entries;
    expect(report.filter((entry) => entry.status !== 'MAPPED')).toEqual([]);
    expect(report.find((entry) => entry.element === 'dataset' && entry.name === 'clicks')?.construct).toMatch(/readStream\.format\("kafka"\) \+ from_json \+ withWatermark/);

    const read = (warehouse: string, table: string): Promise<PyicebergTable> =>
      readWithPyiceberg({ catalogDb: path.join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table });

    const all = clicks();
    for (const phase of [1, 2] as const) {
      await produceClicks(topic, all.filter((click) => click.phase === phase));
      const printed: string[] = [];
      expect(await runCommand(spec, { warehouse: nativeWarehouse }, (line) => printed.push(line), (line) => printed.push(line)), printed.join('\n')).toBe(0);
      sparkOutput = [];
      const handle = spark.run(graph);
      const completed: string[] = [];
      for await (const event of handle.events) if (event.phase === 'flow-completed') completed.push(event.flow);
      const result = await handle.result;
      expect(result.status, `${JSON.stringify(result.error)}\n${sparkOutput.slice(-40).join('\n')}`).toBe('completed');
      expect(completed.sort()).toEqual(['lake.clicks_per_minute', 'lake.clicks_raw']);

      const expected = await reference(all, phase);
      const [nativeRaw, sparkRaw, nativeWindows, sparkWindows] = await Promise.all([
        read(nativeWarehouse, 'lake.clicks_raw'),
        read(sparkWarehouse, 'lake.clicks_raw'),
        read(nativeWarehouse, 'lake.clicks_per_minute'),
        read(sparkWarehouse, 'lake.clicks_per_minute'),
      ]);
      // Every record passes through the stateless flow, coordinates included, identically in both engines.
      expect(sparkRaw.rows.map(fullRawRow).sort(), `phase ${phase}: raw rows`).toEqual(nativeRaw.rows.map(fullRawRow).sort());
      expect(nativeRaw.rows.map(rawRow).sort(), `phase ${phase}: raw rows against the produced records`).toEqual(expected.raw);
      expect(new Set(nativeRaw.rows.map((row) => row['_kafka_partition'])), 'every partition was read').toEqual(new Set([0, 1, 2]));
      // Spark's types are the declared schema's, and the coordinates' and headers' as `thund run`
      // stages them; the native table has the same columns with the same types.
      expect(typesOf(sparkRaw)).toMatchObject({ _kafka_topic: 'string', _kafka_partition: 'int', _kafka_offset: 'long', _kafka_timestamp: 'timestamp', _kafka_key: 'string', user: 'string', page: 'string', ts: 'timestamptz' });
      expect(typesOf(sparkRaw)['_kafka_headers']).toMatch(/^list/);
      expect(typesOf(nativeRaw)).toEqual(typesOf(sparkRaw));
      expect(nativeRaw.schema.map((field) => field.name)).toEqual(sparkRaw.schema.map((field) => field.name));
      // The windows the watermark closed, late records dropped.
      expect(nativeWindows.rows.map(windowRow).sort(), `phase ${phase}: native windows`).toEqual(expected.windows);
      expect(sparkWindows.rows.map(windowRow).sort(), `phase ${phase}: Spark windows`).toEqual(expected.windows);
      expect(typesOf(sparkWindows)).toEqual({ window_start: 'timestamptz', key: 'string', clicks: 'long' });
      expect(nativeWindows.schema.map((field) => field.name)).toEqual(['window_start', 'key', 'clicks']);
      if (phase === 2) {
        expect(expected.late).toBe(6);
        expect(expected.behindButOpen).toBe(4);
      }
      console.log(`phase ${phase}: ${expected.raw.length} raw rows, ${expected.windows.length} windows (${expected.late} late records dropped)`);
    }
  }, 1_200_000);
});
