import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import {
  InvalidInputError,
  lowerPipeline,
  openCatalog,
  parquet,
  pipeline,
  planPipeline,
  runPipeline,
  servePipeline,
  validatePipeline,
  type RunEvent,
} from '../../../src/index.js';

describe('the pipeline API on a builder graph', () => {
  let dir: string;
  let input: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'thund-pipeline-api-'));
    input = join(dir, 'orders.parquet');
    const session = await DuckDbSession.open();
    try {
      await session.run(`COPY (SELECT i::BIGINT AS id, i * 10 AS amount FROM range(4) t(i)) TO ${quoteLiteral(input)} (FORMAT parquet)`);
    } finally {
      session.close();
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The rows lake.orders has, read back through the table API. */
  async function ordersRows(warehouse: string): Promise<number> {
    const lake = await openCatalog({ catalog: { type: 'sql', warehouse } });
    try {
      return (await lake.table('lake.orders').read()).numRows;
    } finally {
      await lake.close();
    }
  }

  const orders = (sql = 'SELECT id, amount FROM STREAM(raw)') =>
    pipeline('orders').source('raw', parquet(input)).streamingTable('lake.orders').flow('load', { target: 'lake.orders', sql }).build();

  it('validates: no problems for a good graph, the problem and its caller line for a bad one; run refuses the bad one', async () => {
    expect((await validatePipeline(orders())).problems).toEqual([]);
    const bad = orders('SELECT id FROM STREAM(nowhere)');
    const { problems } = await validatePipeline(bad);
    expect(problems.map((problem) => problem.code)).toEqual(['THUND_E_UNKNOWN_REF']);
    expect(problems[0]!.origin.file).toMatch(/pipeline-api\.test\.ts$/);
    await expect(runPipeline(bad, { catalog: { type: 'sql', warehouse: join(dir, 'never') } })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('plans the graph in run order, in the formats thund plan has', async () => {
    expect(await planPipeline(orders())).toContain('load: STREAM(raw) → lake.orders');
    expect(await planPipeline(orders(), 'mermaid')).toMatch(/^(flowchart|graph)/);
  });

  it('runs: the RunEvents in order, a completed result, the rows in the table', async () => {
    const warehouse = join(dir, 'run');
    const handle = await runPipeline(orders(), { catalog: { type: 'sql', warehouse } });
    const phases: RunEvent['phase'][] = [];
    for await (const event of handle.events) phases.push(event.phase);
    const result = await handle.result;
    expect(result.status).toBe('completed');
    expect(phases[0]).toBe('planning');
    expect(phases.at(-1)).toBe('done');
    expect(result.flows.map((flow) => [flow.flow, flow.counts.rowsWritten])).toEqual([['load', 4]]);
    expect(await ordersRows(warehouse)).toBe(4);
  });

  it('serves until the signal, committing the input on the first trigger', async () => {
    const warehouse = join(dir, 'serve');
    const stop = new AbortController();
    const logged: string[] = [];
    await servePipeline(orders(), {
      catalog: { type: 'sql', warehouse },
      httpPort: 0,
      triggerIntervalMs: 100,
      signal: stop.signal,
      log: (_level, message) => {
        logged.push(message);
        if (message === 'flow committed') stop.abort();
      },
    });
    expect(logged).toEqual(expect.arrayContaining(['thund serve started', 'flow committed', 'thund serve stopped']));
    expect(await ordersRows(warehouse)).toBe(4);
  });

  it('lowers to an SDP project with a report entry for every dataset and flow', async () => {
    const lowered = await lowerPipeline(orders(), { out: join(dir, 'sdp'), catalog: { type: 'sql', warehouse: join(dir, 'run') } });
    expect(lowered.files.map((file) => file.path)).toContain('spark-pipeline.yml');
    expect(lowered.report.entries.map((entry) => entry.name).sort()).toEqual(['lake.orders', 'load', 'raw']);
  });
});
