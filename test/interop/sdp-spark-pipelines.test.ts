/**
 * The SDP lowering against real Spark (pyspark[pipelines] 4.1.4 with the Iceberg 1.12.0 runtime,
 * test/stack/spark-pipelines.ts): every construct examples/sdp lowers to is accepted by
 * `spark-pipelines dry-run` (and a broken flow is not), and a batch pipeline run natively and run
 * on Spark through the SparkBackend (and through `thund run --backend spark`) lands a table
 * pyiceberg reads as identical rows; a streaming pipeline (an append flow and a windowed
 * aggregation in append mode) run natively and on Spark, locally and on a Spark Connect server,
 * lands exactly the rows DuckDB computes from the input in both engines. Spark runs one at a
 * time: the local Connect server of spark-pipelines binds port 15002.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/app/commands/run.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { analysePipelineFile } from '../../src/app/commands/validate.js';
import type { RunEvent } from '../../src/backend/run-event.js';
import type { PipelineGraph } from '../../src/pipeline/ir/graph.js';
import { sparkCatalogConfig } from '../../src/sdp/catalog-conf.js';
import { lowerPipeline } from '../../src/sdp/lower-pipeline.js';
import { writeProject } from '../../src/sdp/project-files.js';
import { SparkBackend } from '../../src/sdp/spark-backend.js';
import { startSparkPipelines } from '../../src/sdp/spark-pipelines-process.js';
import type { SparkRuntime } from '../../src/sdp/spark-runtime.js';
import { parseSparkVersion } from '../../src/sdp/spark-version.js';
import { freePort } from '../stack/process.js';
import { prepareSparkPipelines, SDP_SPARK_VERSION, startConnectServer, type SparkPipelinesSetup } from '../stack/spark-pipelines.js';
import { readWithPyiceberg } from './pyiceberg.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples/sdp/pipeline.yaml');
const ORDERS = path.join(REPO, 'examples/sdp/data/orders/*.parquet');
const EVENTS = path.join(REPO, 'examples/sdp/data/events/*.parquet');
const SPARK = parseSparkVersion(SDP_SPARK_VERSION);

let runtime: SparkRuntime & SparkPipelinesSetup;
let scratch: string;

beforeAll(async () => {
  runtime = await prepareSparkPipelines();
  scratch = mkdtempSync(path.join(tmpdir(), 'thund-sdp-'));
}, 1_200_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

async function analysed(specPath: string): Promise<{ graph: PipelineGraph; catalogFor: (warehouse: string) => ReturnType<typeof sparkCatalogConfig> }> {
  const result = await analysePipelineFile(specPath);
  if (result.graph === undefined || result.definition === undefined || result.problems.length > 0) {
    throw new Error(`invalid pipeline ${specPath}: ${result.problems.map((p) => p.message).join('; ')}`);
  }
  const definition = result.definition;
  return { graph: result.graph, catalogFor: (warehouse) => sparkCatalogConfig(definition.catalog, definition.storage, definition.specPath, {}, { warehouse }) };
}

/** Lowers, writes and dry-runs; resolves to the exit code and every output line. */
async function dryRun(graph: PipelineGraph, catalog: ReturnType<typeof sparkCatalogConfig>, folder: string): Promise<{ code: number | null; lines: string[] }> {
  const project = lowerPipeline(graph, { sparkVersion: SPARK, catalog, storage: pathToFileURL(path.join(folder, 'storage')).href, sourceName: 'test' });
  writeProject(folder, project.files);
  const lines: string[] = [];
  const spark = startSparkPipelines({ runtime, command: 'dry-run', projectDir: folder, onLine: (line) => lines.push(line) });
  const exit = await spark.exit;
  return { code: exit.code, lines };
}

describe('spark-pipelines dry-run', () => {
  it('accepts every SDP construct the lowering emits for examples/sdp', async () => {
    const { graph, catalogFor } = await analysed(EXAMPLE);
    const warehouse = path.join(scratch, 'dry-wh');
    mkdirSync(warehouse, { recursive: true });
    const project = lowerPipeline(graph, { sparkVersion: SPARK, catalog: catalogFor(warehouse), storage: 'file:///unused', sourceName: 'test' });
    const text = project.files.map((file) => file.text).join('\n');
    for (const construct of ['CREATE MATERIALIZED VIEW', 'CREATE STREAMING TABLE', 'CREATE FLOW', 'CREATE TEMPORARY VIEW', 'WATERMARK', "window(event_time, '10 minutes').start", 'PARTITIONED BY', 'TBLPROPERTIES', 'spark.readStream.format("kafka")', 'spark.read.parquet', 'dp.create_sink', '@dp.append_flow', '.withWatermark(']) {
      expect(text, construct).toContain(construct);
    }
    const { code, lines } = await dryRun(graph, catalogFor(warehouse), path.join(scratch, 'dry'));
    expect(lines.some((line) => line.includes('Run is COMPLETED.')), lines.slice(-30).join('\n')).toBe(true);
    expect(code).toBe(0);
  }, 300_000);

  it('rejects a flow that reads a column its source does not have, naming the column', async () => {
    const spec = path.join(scratch, 'broken.yaml');
    writeFileSync(
      spec,
      ['pipeline: broken', 'sources:', `  orders: { format: parquet, path: "${ORDERS}" }`, 'tables:', '  lake.t: { mode: overwrite, sql: SELECT no_such_column FROM orders }', ''].join('\n'),
    );
    const { graph, catalogFor } = await analysed(spec);
    const warehouse = path.join(scratch, 'broken-wh');
    mkdirSync(warehouse, { recursive: true });
    const { code, lines } = await dryRun(graph, catalogFor(warehouse), path.join(scratch, 'broken'));
    expect(code).not.toBe(0);
    expect(lines.join('\n')).toMatch(/no_such_column/);
  }, 300_000);
});

describe('a batch pipeline, natively and on Spark', () => {
  it('lands identical rows in both catalogs (read back by pyiceberg)', async () => {
    const spec = path.join(scratch, 'batch.yaml');
    writeFileSync(
      spec,
      [
        'pipeline: batch_equivalence',
        'sources:',
        `  orders: { format: parquet, path: "${ORDERS}" }`,
        'tables:',
        '  lake.totals: { mode: overwrite }',
        'flows:',
        '  totals:',
        '    target: lake.totals',
        '    sql: |',
        '      SELECT upper(customer) AS customer, CAST(count(*) AS BIGINT) AS orders,',
        '             CAST(sum(amount_cents) AS BIGINT) AS amount_cents, min(ordered_at) AS first_order',
        '      FROM orders WHERE amount_cents > 1000 GROUP BY customer',
        '',
      ].join('\n'),
    );
    const nativeWarehouse = path.join(scratch, 'native-wh');
    const sparkWarehouse = path.join(scratch, 'spark-wh');
    mkdirSync(sparkWarehouse, { recursive: true });
    await runCommand(spec, { warehouse: nativeWarehouse }, () => {});

    const { graph, catalogFor } = await analysed(spec);
    const backend = new SparkBackend({ runtime, sparkVersion: SPARK, catalog: catalogFor(sparkWarehouse), projectDir: path.join(scratch, 'batch-project') });
    const handle = backend.run(graph);
    const events: RunEvent[] = [];
    for await (const event of handle.events) events.push(event);
    const result = await handle.result;
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(events.map((event) => event.phase)[0]).toBe('planning');
    expect(events.filter((event) => event.phase === 'flow-completed').map((event) => (event.phase === 'flow-completed' ? event.flow : ''))).toEqual(['totals']);
    expect(events.at(-1)?.phase).toBe('done');

    for (const [table, key] of [['lake.totals', 'customer']] as const) {
      const read = (warehouse: string) =>
        readWithPyiceberg({ catalogDb: path.join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table });
      const [native, spark] = await Promise.all([read(nativeWarehouse), read(sparkWarehouse)]);
      const sorted = (rows: readonly Record<string, unknown>[]) => [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key]), 'en', { numeric: true }));
      expect(native.rowCount, table).toBeGreaterThan(0);
      expect(sorted(spark.rows), table).toEqual(sorted(native.rows));
      expect(spark.schema.map((field) => [field.name, field.type]), table).toEqual(native.schema.map((field) => [field.name, field.type]));
    }
  }, 600_000);
});

describe('thund run --backend spark', () => {
  it('runs the lowered pipeline on Spark from the CLI entry and lands the rows the native run lands', async () => {
    const spec = path.join(scratch, 'cli.yaml');
    writeFileSync(
      spec,
      [
        'pipeline: cli_on_spark',
        'sources:',
        `  orders: { format: parquet, path: "${ORDERS}" }`,
        'tables:',
        '  lake.big: { mode: overwrite, sql: "SELECT id, upper(customer) AS customer, amount_cents FROM orders WHERE amount_cents > 5000" }',
        '',
      ].join('\n'),
    );
    const nativeWarehouse = path.join(scratch, 'cli-native-wh');
    const sparkWarehouse = path.join(scratch, 'cli-spark-wh');
    mkdirSync(sparkWarehouse, { recursive: true });
    expect(await runCommand(spec, { warehouse: nativeWarehouse }, () => {})).toBe(0);
    const saved = { python: process.env['THUND_SPARK_PIPELINES_PYTHON'], jars: process.env['THUND_SPARK_PIPELINES_JARS'] };
    process.env['THUND_SPARK_PIPELINES_PYTHON'] = runtime.python;
    process.env['THUND_SPARK_PIPELINES_JARS'] = runtime.jars.join(',');
    const printed: string[] = [];
    try {
      expect(await runCommand(spec, { backend: 'spark', warehouse: sparkWarehouse }, (line) => printed.push(line))).toBe(0);
    } finally {
      for (const [name, value] of [['THUND_SPARK_PIPELINES_PYTHON', saved.python], ['THUND_SPARK_PIPELINES_JARS', saved.jars]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(printed.join('\n')).toMatch(/flow lake\.big: lake\.big/);
    expect(printed.at(-1)).toMatch(/^ran on Spark \(project .*\.thund\/spark\/cli_on_spark\)$/);
    const read = (warehouse: string) =>
      readWithPyiceberg({ catalogDb: path.join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: 'lake.big' });
    const [native, spark] = await Promise.all([read(nativeWarehouse), read(sparkWarehouse)]);
    const byId = (rows: readonly Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a['id']) - Number(b['id']));
    expect(native.rowCount).toBeGreaterThan(0);
    expect(byId(spark.rows)).toEqual(byId(native.rows));
  }, 600_000);
});

/** Runs a fully mapped pipeline on Spark; resolves to the flows that completed. */
async function runOnSpark(graph: PipelineGraph, catalog: ReturnType<typeof sparkCatalogConfig>, folder: string, remote?: string): Promise<string[]> {
  const backend = new SparkBackend({ runtime: remote === undefined ? runtime : { ...runtime, remote }, sparkVersion: SPARK, catalog, projectDir: folder });
  const handle = backend.run(graph);
  const completed: string[] = [];
  for await (const event of handle.events) if (event.phase === 'flow-completed') completed.push(event.flow);
  const result = await handle.result;
  expect(result.status, JSON.stringify(result.error)).toBe('completed');
  return completed.sort();
}

/**
 * Runs the streaming pipeline (locally, or on the Connect server at `remote`) and checks an append
 * flow landed every source row and a windowed aggregation in append mode exactly the windows its
 * watermark closed, against the same computed by DuckDB from the input.
 */
async function checkStreamingPipeline(name: string, remote?: string): Promise<void> {
  {
    const spec = path.join(scratch, `${name}.yaml`);
    writeFileSync(
      spec,
      [
        'pipeline: streaming_on_spark',
        'sources:',
        `  events: { format: parquet, path: "${EVENTS}", schema: { user_id: long, kind: string, event_time: timestamptz } }`,
        'tables:',
        '  lake.events_raw: { kind: streaming_table }',
        '  lake.per_window:',
        '    kind: streaming_table',
        '    watermark: { column: event_time, delay: 10 minutes }',
        '    sql: |',
        "      SELECT time_bucket(INTERVAL '10 minutes', event_time) AS window_start, kind, CAST(count(*) AS BIGINT) AS events",
        "      FROM STREAM(events) GROUP BY time_bucket(INTERVAL '10 minutes', event_time), kind",
        'flows:',
        '  load_events: { target: lake.events_raw, sql: "SELECT user_id, kind, event_time FROM STREAM(events)" }',
        '',
      ].join('\n'),
    );
    const warehouse = path.join(scratch, `${name}-wh`);
    const nativeWarehouse = path.join(scratch, `${name}-native-wh`);
    mkdirSync(warehouse, { recursive: true });
    expect(await runCommand(spec, { warehouse: nativeWarehouse }, () => {})).toBe(0);
    const { graph, catalogFor } = await analysed(spec);
    expect(await runOnSpark(graph, catalogFor(warehouse), path.join(scratch, `${name}-project`), remote)).toEqual(['lake.per_window', 'load_events']);

    const session = await DuckDbSession.open({ threads: 1 });
    let expectedRaw: string[];
    let expectedWindows: string[];
    try {
      const input = `read_parquet('${EVENTS}')`;
      expectedRaw = (await session.queryJson(`SELECT user_id, kind, epoch_ms(event_time) AS t FROM ${input}`)).map((row) => `${String(row['user_id'])}|${String(row['kind'])}|${String(row['t'])}`);
      // A 10-minute window is final once the watermark (max event time - 10 minutes) reaches its end.
      expectedWindows = (
        await session.queryJson(
          `WITH w AS (SELECT time_bucket(INTERVAL '10 minutes', event_time) AS s, kind FROM ${input}),
                mark AS (SELECT max(event_time) - INTERVAL '10 minutes' AS m FROM ${input})
           SELECT epoch_ms(s) AS s, kind, count(*) AS n FROM w, mark WHERE s + INTERVAL '10 minutes' <= m GROUP BY s, kind`,
        )
      ).map((row) => `${String(row['s'])}|${String(row['kind'])}|${String(row['n'])}`);
    } finally {
      session.close();
    }
    // Spark's tables and the native engine's must both hold exactly the rows DuckDB computes.
    for (const [engine, at] of [['spark', warehouse], ['native', nativeWarehouse]] as const) {
      const read = (table: string) => readWithPyiceberg({ catalogDb: path.join(at, 'catalog.db'), warehouse: pathToFileURL(at).href, catalogName: 'default', table });
      const raw = await read('lake.events_raw');
      expect(raw.rows.map((row) => `${String(row['user_id'])}|${String(row['kind'])}|${Date.parse(String(row['event_time']))}`).sort(), engine).toEqual(expectedRaw.sort());
      const windows = await read('lake.per_window');
      expect(expectedWindows.length).toBeGreaterThan(0);
      expect(windows.rows.map((row) => `${Date.parse(String(row['window_start']))}|${String(row['kind'])}|${String(row['events'])}`).sort(), engine).toEqual(expectedWindows.sort());
    }
  }
}

describe('a streaming pipeline on Spark', () => {
  it('locally: an append flow lands every source row; a windowed aggregation in append mode lands exactly the windows its watermark closed', async () => {
    await checkStreamingPipeline('streaming-local');
  }, 600_000);

  it('on a running Spark Connect server (--remote sc://127.0.0.1:port): the same rows', async () => {
    const server = await startConnectServer(runtime, await freePort(), path.join(scratch, 'connect-server.log'));
    try {
      await checkStreamingPipeline('streaming-remote', server.remote);
    } finally {
      await server.stop();
    }
  }, 600_000);
});
