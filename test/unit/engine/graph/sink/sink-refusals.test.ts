/**
 * What a flow into a sink refuses before it connects to Kafka (planSinkStream), and what the
 * native backend refuses before anything runs: other sink formats (UNSUPPORTED, naming format and
 * sink) and bad kafka sink options (naming the sink). No broker is needed for any of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createParquetSourceConnector } from '../../../../../connectors/parquet/parquet-source.js';
import { openCatalog, type OpenedCatalog } from '../../../../../src/app/open-catalog.js';
import { NativeBackend } from '../../../../../src/backend/native/native-backend.js';
import type { RunEvent, RunResult } from '../../../../../src/engine/run-events.js';
import { DuckDbSession } from '../../../../../src/duckdb/session.js';
import { planSinkStream } from '../../../../../src/engine/graph/sink/sink-streaming-plan.js';
import { inferredGraph, sinkFlowContext } from './sink-pipeline.js';

const spec = (sinks: string, flows: string): string => `pipeline: shop
sources:
  events:
    format: parquet
    path: /nowhere/*.parquet
tables:
  lake.totals:
    kind: streaming_table
sinks:
${sinks}
flows:
${flows}
`;
const KAFKA_SINK = `  alerts:
    format: kafka
    options: { topic: alerts, bootstrap_servers: "127.0.0.1:9" }`;

async function refusal(flows: string, flowName: string): Promise<unknown> {
  const session = await DuckDbSession.open({ threads: 1 });
  const handle = await sinkFlowContext(spec(KAFKA_SINK, flows), session, flowName);
  try {
    return await planSinkStream(handle.context).then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    await handle.close();
    session.close();
  }
}

describe('streaming flows into a sink', () => {
  it('refuses an aggregation, naming flow, sink and where the flow is declared', async () => {
    const error = await refusal(
      `  counts:
    target: alerts
    sql: SELECT kind, count(*) AS n FROM STREAM(events) GROUP BY kind`,
      'counts',
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^\/work\/pipeline\.yaml:\d+:\d+: flow counts into sink alerts: it aggregates the stream/);
  });

  it('refuses a time window and a window function over the stream', async () => {
    const windowed = await refusal(
      `  per_minute:
    target: alerts
    sql: SELECT time_bucket(INTERVAL '1 minute', ts) AS w, count(*) AS n FROM STREAM(events) GROUP BY 1`,
      'per_minute',
    );
    expect((windowed as Error).message).toContain('flow per_minute into sink alerts: it aggregates the stream');
    const ranked = await refusal(
      `  ranked:
    target: alerts
    sql: SELECT id, row_number() OVER (ORDER BY id) AS r FROM STREAM(events)`,
      'ranked',
    );
    expect((ranked as Error).message).toContain('flow ranked into sink alerts: it uses a window function (OVER …)');
  });

  it('plans a stateless flow: one streamed Parquet input', async () => {
    const session = await DuckDbSession.open({ threads: 1 });
    const handle = await sinkFlowContext(
      spec(
        KAFKA_SINK,
        `  export:
    target: alerts
    sql: SELECT id, upper(kind) AS kind FROM STREAM(events) WHERE id > 0`,
      ),
      session,
      'export',
    );
    try {
      const plan = await planSinkStream(handle.context);
      expect(plan.inputs.map((i) => [i.key, i.input.name])).toEqual([['events', 'events']]);
    } finally {
      await handle.close();
      session.close();
    }
  });
});

describe('the native backend and sinks', () => {
  let work: string;
  let opened: OpenedCatalog;
  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'thund-sink-backend-'));
    opened = await openCatalog(undefined, { warehouse: join(work, 'warehouse') });
  });
  afterEach(async () => {
    await opened.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function run(text: string): Promise<{ result: RunResult; events: RunEvent[] }> {
    const session = await DuckDbSession.open({ threads: 1 });
    const graph = await inferredGraph(text, session).finally(() => session.close());
    const sources = createParquetSourceConnector();
    try {
      const handle = new NativeBackend({ catalog: opened.catalog, io: opened.io, sources }).run(graph);
      const events: RunEvent[] = [];
      for await (const event of handle.events) events.push(event);
      return { result: await handle.result, events };
    } finally {
      await sources.close();
    }
  }

  it('refuses a sink of another format, naming format and sink, and runs nothing', async () => {
    const { result, events } = await run(
      spec(
        `  export:
    format: delta
    options: { path: /tmp/export }`,
        `  to_export:
    target: export
    sql: SELECT 1 AS a`,
      ),
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('UNSUPPORTED');
    expect(result.error?.message).toMatch(/\/work\/pipeline\.yaml:\d+:\d+: delta sink export \(sink formats: kafka\)/);
    expect(events.map((e) => e.phase)).toEqual(['failed']);
  });

  it('refuses bad kafka sink options up front, naming the sink', async () => {
    const { result, events } = await run(
      spec(
        `  alerts:
    format: kafka
    options: { bootstrap_servers: "127.0.0.1:9", key_columns: id }`,
        `  to_alerts:
    target: alerts
    sql: SELECT 1 AS id`,
      ),
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INVALID_INPUT');
    expect(result.error?.message).toBe('Kafka sink "alerts": topic: is required');
    expect(events.map((e) => e.phase)).toEqual(['failed']);
  });
});
