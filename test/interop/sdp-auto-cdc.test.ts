/**
 * AUTO CDC SCD type 1 on real Spark (pyspark[pipelines] 4.2.0, test/stack/spark-pipelines-cdc.ts):
 * a pipeline with an apply-changes flow over a Parquet change feed is lowered for Spark 4.2, run
 * twice by the SparkBackend on a Spark Connect server (the second run picks up a second feed file
 * with late and new events), and the target read back through Spark Connect holds exactly the rows
 * SCD type 1 gives for the same events: per key the event with the highest sequence, unless that
 * event is a delete — computed independently by one DuckDB statement. After each run the same
 * pipeline run natively (`thund run`, read back by pyiceberg) holds the identical rows.
 *
 * The target lives in Spark's in-memory row-level catalog: AUTO CDC merges into its target, and no
 * catalog with row-level operations that persists is available for Spark 4.2+ (no Iceberg runtime
 * loads on it; Spark's own Parquet tables have no MERGE).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/app/commands/run.js';
import { analysePipelineFile } from '../../src/app/commands/validate.js';
import type { RunEvent } from '../../src/backend/run-event.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { pluginCatalogConfig } from '../../src/sdp/catalog-conf.js';
import { SparkBackend } from '../../src/sdp/spark-backend.js';
import { parseSparkVersion } from '../../src/sdp/spark-version.js';
import { freePort } from '../stack/process.js';
import { prepareSparkPipelinesCdc, ROW_LEVEL_CATALOG_CLASS, SDP_CDC_SPARK_VERSION } from '../stack/spark-pipelines-cdc.js';
import { startConnectServer, type ConnectServer, type SparkPipelinesSetup } from '../stack/spark-pipelines.js';
import { readWithPyiceberg } from './pyiceberg.js';

const run = promisify(execFile);
const CATALOG = pluginCatalogConfig('cdc', ROW_LEVEL_CATALOG_CLASS);
const COLUMNS = ['customer_id', 'name', 'city', 'seq'] as const;

/** (customer_id, name, city, op, seq): out-of-order updates, deletes, a re-insert, a delete of an unknown key. */
const FIRST_FEED = [
  [1, 'Ana', 'Lisbon', 'i', 1],
  [1, 'Ana', 'Porto', 'u', 4],
  [1, 'Ana', 'Braga', 'u', 2],
  [2, 'Bo', 'Oslo', 'i', 1],
  [2, null, null, 'd', 3],
  [3, 'Cy', 'Rome', 'i', 5],
  [4, 'Di', null, 'i', 2],
  [5, null, null, 'd', 7],
  [6, 'Ed', 'Kyiv', 'i', 1],
  [6, null, null, 'd', 2],
  [6, 'Ed', 'Lviv', 'i', 3],
] as const;
/** Read by the second run: events older than what the target holds (also for a deleted key), an update, a delete, a new key. */
const SECOND_FEED = [
  [1, 'Ana', 'Faro', 'u', 3],
  [3, 'Cy', 'Milan', 'u', 6],
  [2, 'Bo', 'Bergen', 'u', 2],
  [4, null, null, 'd', 9],
  [7, 'Fa', 'Nice', 'i', 1],
] as const;

let runtime: SparkPipelinesSetup;
let server: ConnectServer;
let scratch: string;
let duck: DuckDbSession;

beforeAll(async () => {
  runtime = await prepareSparkPipelinesCdc();
  scratch = mkdtempSync(path.join(tmpdir(), 'thund-sdp-cdc-'));
  duck = await DuckDbSession.open({ threads: 1 });
  server = await startConnectServer(runtime, await freePort(), path.join(scratch, 'connect-server.log'));
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  duck?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

async function writeFeed(file: string, events: readonly (readonly (string | number | null)[])[]): Promise<void> {
  const literal = (value: string | number | null): string => (value === null ? 'NULL' : typeof value === 'number' ? String(value) : quoteLiteral(value));
  const values = events.map((event) => `(${event.map(literal).join(', ')})`).join(', ');
  await duck.queryJson(
    `COPY (SELECT CAST(customer_id AS BIGINT) AS customer_id, CAST(name AS VARCHAR) AS name, CAST(city AS VARCHAR) AS city, CAST(op AS VARCHAR) AS op, CAST(seq AS BIGINT) AS seq
           FROM (VALUES ${values}) AS t(customer_id, name, city, op, seq)) TO ${quoteLiteral(file)} (FORMAT parquet)`,
  );
}

/** SCD type 1 of every event in the feed folder: the latest event per key by sequence, deletes removed. */
async function expectedRows(feed: string): Promise<string[]> {
  const rows = await duck.queryJson(
    `SELECT customer_id, name, city, seq FROM read_parquet(${quoteLiteral(path.join(feed, '*.parquet'))})
     QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY seq DESC) = 1 AND op <> 'd'`,
  );
  return rows.map(rowKey).sort();
}

const rowKey = (row: Record<string, unknown>): string => JSON.stringify(COLUMNS.map((column) => (row[column] === null || row[column] === undefined ? null : String(row[column]))));

async function sparkRows(table: string): Promise<{ rows: string[]; columns: string[] }> {
  const { stdout } = await run(
    runtime.python,
    [path.join(import.meta.dirname, 'read_spark_connect_table.py'), server.remote, table, ...Object.entries(CATALOG.configuration).map(([key, value]) => `${key}=${value}`)],
    { maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
  );
  const parsed = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { rows: parsed.map(rowKey).sort(), columns: Object.keys(parsed[0] ?? {}) };
}

/** `thund run` of the same pipeline into a local warehouse (the native engine, same feed so far), read back by pyiceberg. */
async function nativeRows(spec: string): Promise<string[]> {
  const warehouse = path.join(scratch, 'native-wh');
  expect(await runCommand(spec, { warehouse }, () => {})).toBe(0);
  const table = await readWithPyiceberg({ catalogDb: path.join(warehouse, 'catalog.db'), warehouse: pathToFileURL(warehouse).href, catalogName: 'default', table: 'lake.customers' });
  return table.rows.map(rowKey).sort();
}

async function runOnSpark(backend: SparkBackend, graph: Parameters<SparkBackend['run']>[0]): Promise<RunEvent[]> {
  const handle = backend.run(graph);
  const events: RunEvent[] = [];
  for await (const event of handle.events) events.push(event);
  const result = await handle.result;
  expect(result.status, JSON.stringify(result.error)).toBe('completed');
  return events;
}

describe(`AUTO CDC SCD type 1 on Spark ${SDP_CDC_SPARK_VERSION}`, () => {
  it('lands exactly the rows SCD type 1 gives for the change events, over two runs with late events', async () => {
    const feed = path.join(scratch, 'changes');
    mkdirSync(feed, { recursive: true });
    await writeFeed(path.join(feed, 'part-1.parquet'), FIRST_FEED);
    const spec = path.join(scratch, 'pipeline.yaml');
    writeFileSync(
      spec,
      [
        'pipeline: auto_cdc',
        'sources:',
        `  changes: { format: parquet, path: "${path.join(feed, '*.parquet')}", schema: { customer_id: long, name: string, city: string, op: string, seq: long } }`,
        'tables:',
        '  lake.customers: { kind: streaming_table }',
        'flows:',
        '  apply_customers:',
        '    target: lake.customers',
        `    apply_changes: { keys: [customer_id], sequence_by: seq, apply_as_deletes: "op = 'd'", except_column_list: [op] }`,
        '    sql: SELECT customer_id, name, city, op, seq FROM STREAM(changes)',
        '',
      ].join('\n'),
    );
    const analysed = await analysePipelineFile(spec);
    expect(analysed.problems).toEqual([]);
    const graph = analysed.graph;
    if (graph === undefined) throw new Error('no graph');

    const backend = new SparkBackend({
      runtime: { python: runtime.python, jars: [], remote: server.remote },
      sparkVersion: parseSparkVersion(SDP_CDC_SPARK_VERSION),
      catalog: CATALOG,
      projectDir: path.join(scratch, 'project'),
    });
    const report = backend.lower(graph).report;
    expect(report.entries.filter((entry) => entry.status !== 'MAPPED')).toEqual([]);
    expect(report.entries.find((entry) => entry.name === 'apply_customers')?.construct).toMatch(/create_auto_cdc_flow/);

    const first = await runOnSpark(backend, graph);
    expect(first.filter((event) => event.phase === 'flow-completed').map((event) => (event.phase === 'flow-completed' ? event.flow : ''))).toEqual(['apply_customers']);
    const afterFirst = await sparkRows('cdc.lake.customers');
    expect(afterFirst.columns.filter((column) => !column.startsWith('__spark_autocdc'))).toEqual([...COLUMNS]);
    const expectedFirst = await expectedRows(feed);
    expect(expectedFirst.length).toBe(4);
    expect(afterFirst.rows).toEqual(expectedFirst);
    expect(await nativeRows(spec)).toEqual(afterFirst.rows);

    await writeFeed(path.join(feed, 'part-2.parquet'), SECOND_FEED);
    await runOnSpark(backend, graph);
    const expectedSecond = await expectedRows(feed);
    expect(expectedSecond).not.toEqual(expectedFirst);
    const afterSecond = await sparkRows('cdc.lake.customers');
    expect(afterSecond.rows).toEqual(expectedSecond);
    expect(await nativeRows(spec)).toEqual(afterSecond.rows);
  }, 1_200_000);
});
