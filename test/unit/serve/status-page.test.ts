/**
 * The status of `thund serve`: the report GET /status answers (flows, source partitions, dead
 * letters, tables) built from what the service sees, and the page GET / renders from it — every
 * value cell the report's value at its `data-key`, every text escaped. A served Parquet pipeline
 * answers both while it runs, with the commit it made and the table's files and snapshots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineMetrics } from '../../../src/app/serve/pipeline-metrics.js';
import { ServeStatus, type ServeStatusReport } from '../../../src/app/serve/serve-status.js';
import { renderStatusPage } from '../../../src/app/serve/status-page.js';
import type { PartitionProgress } from '../../../src/app/serve/served-streams.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { parquet, pipeline, servePipeline } from '../../../src/index.js';
import { pageCells, reportValue } from '../../support/status-page-cells.js';

describe('ServeStatus and the status page', () => {
  const graph = pipeline('shop')
    .source('orders', parquet('/nowhere/*.parquet'))
    .streamingTable('lake.orders', { sql: 'SELECT * FROM STREAM(orders)' })
    .build();
  const flowGraph = { ...graph, flows: graph.flows.map((flow) => ({ ...flow, dependencies: { reads: [{ name: 'orders', streaming: true }], aggregatesStream: false } })) };

  it('counts each committed batch of a flow, with its snapshot, and the partitions, dead letters and tables', () => {
    const status = new ServeStatus(flowGraph, ['lake.orders']);
    const at = Date.UTC(2026, 11, 6, 12, 0, 0);
    const counts = (rowsWritten: number) => ({ rowsRead: rowsWritten + 1, rowsWritten, lateRows: 0, expectations: [{ dataset: 'lake.orders', expectation: 'positive', action: 'drop' as const, passed: rowsWritten, failed: 1 }] });
    status.event({ at, pipeline: 'shop', phase: 'flow-started', flow: 'lake.orders', target: 'lake.orders' });
    expect(status.report([], [], { ready: false, checks: { catalog: true }, reasons: ['assigning'] }).flows[0]!.state).toBe('running');
    status.event({ at, pipeline: 'shop', phase: 'flow-progress', flow: 'lake.orders', batch: 1, counts: counts(10), snapshotId: 11n });
    status.event({ at: at + 1000, pipeline: 'shop', phase: 'flow-progress', flow: 'lake.orders', batch: 2, counts: counts(5), snapshotId: 12n });
    status.event({ at: at + 1000, pipeline: 'shop', phase: 'flow-completed', flow: 'lake.orders', target: 'lake.orders', counts: counts(15) });
    status.trigger({ pipeline: 'shop', status: 'completed', flows: [] });
    const partition: PartitionProgress = { source: 'orders', reader: 'lake.orders', topic: 'orders', partition: 0, high: 40n, reached: 25n, records: 25, deadLetters: 1 };
    const letter = { source: 'orders', reader: 'lake.orders', topic: 'orders', partition: 0, offset: 7n, code: 'JSON', reason: 'not JSON: <script>alert(1)</script>', seenAt: at };
    const report = status.report([partition], [letter], { ready: true, checks: { catalog: true, firstTrigger: true }, reasons: [] });
    expect(report.flows).toEqual([
      {
        name: 'lake.orders',
        target: 'lake.orders',
        reads: [{ name: 'orders', stream: true }],
        state: 'idle',
        commits: 2,
        rowsRead: 17,
        rowsWritten: 15,
        lateRows: 0,
        expectationFailures: 2,
        lastCommit: { at: '2026-12-06T12:00:01.000Z', snapshotId: '12', rowsRead: 6, rowsWritten: 5 },
        lastError: null,
      },
    ]);
    expect(report.sources).toEqual([{ source: 'orders', flow: 'lake.orders', topic: 'orders', partition: 0, endOffset: '40', position: '25', lag: 15, records: 25, deadLetters: 1 }]);
    expect(report.deadLetters).toEqual({ total: 1, recent: [{ source: 'orders', topic: 'orders', partition: 0, offset: '7', code: 'JSON', reason: 'not JSON: <script>alert(1)</script>', at: '2026-12-06T12:00:00.000Z' }] });
    expect(report.triggers).toMatchObject({ total: 1, failed: 0, last: { status: 'completed', error: null } });

    // /metrics renders the same counts: one place counts them.
    const metrics = new PipelineMetrics().render(report);
    for (const [family, value] of [['thund_flow_commits_total', 2], ['thund_flow_rows_read_total', 17], ['thund_flow_rows_written_total', 15], ['thund_flow_expectation_failures_total', 2]] as const) {
      expect(metrics).toContain(`${family}{flow="lake.orders"} ${value}\n`);
    }
    expect(metrics).toContain('thund_triggers_total 1\n');
    expect(metrics).toContain('thund_source_lag_records{source="orders",flow="lake.orders",topic="orders",partition="0"} 15\n');

    const html = renderStatusPage(report);
    expect(html).not.toContain('<script>');
    expect(html).toContain('not JSON: &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<meta http-equiv="refresh"');
    expect(html).not.toMatch(/<script|<link|src=/);
    const cells = pageCells(html);
    expect(cells.size).toBeGreaterThan(20);
    for (const [key, text] of cells) expect(text, key).toEqual(reportValue(report, key));
  });

  it('marks a flow failed with the error of its run', () => {
    const status = new ServeStatus(flowGraph, []);
    status.event({ at: 0, pipeline: 'shop', phase: 'failed', flow: 'lake.orders', error: { code: 'SCHEMA_MISMATCH', message: 'column id is text', retryable: false } });
    const flow = status.report([], [], { ready: false, checks: {}, reasons: ['failing'] }).flows[0]!;
    expect(flow.state).toBe('failed');
    expect(flow.lastError).toEqual({ at: '1970-01-01T00:00:00.000Z', code: 'SCHEMA_MISMATCH', message: 'column id is text' });
  });
});

describe('a served pipeline answers GET /status and GET /', () => {
  let dir: string;
  let input: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'thund-status-'));
    input = join(dir, 'orders.parquet');
    const session = await DuckDbSession.open();
    try {
      await session.run(`COPY (SELECT i::BIGINT AS id, i * 10 AS amount FROM range(6) t(i)) TO ${quoteLiteral(input)} (FORMAT parquet)`);
    } finally {
      session.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with the commit of its flow and the files and snapshots of its table, the page showing the same values', async () => {
    const stop = new AbortController();
    let base: string | undefined;
    let triggers = 0;
    let answers: { report: ServeStatusReport; page: string } | undefined;
    const served = servePipeline(pipeline('orders').source('raw', parquet(input)).streamingTable('lake.orders', { sql: 'SELECT id, amount FROM STREAM(raw)' }).build(), {
      catalog: { type: 'sql', warehouse: join(dir, 'warehouse') },
      httpPort: 0,
      triggerIntervalMs: 100,
      signal: stop.signal,
      log: (_level, message, fields) => {
        if (message === 'thund serve started') base = `http://${String(fields?.['http'])}`;
      },
    });
    let failure: unknown;
    served.catch((error: unknown) => (failure = error));
    // The table's files are read between triggers: wait for a trigger after the commit.
    while (answers === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (failure !== undefined) throw failure;
      if (base === undefined) continue;
      const report = (await (await fetch(`${base}/status`)).json()) as ServeStatusReport;
      triggers = report.triggers.total;
      // Between triggers (idle): a trigger running while the report is taken would show running.
      if (report.tables[0]?.records !== 6 || triggers < 2 || report.flows[0]?.state !== 'idle') continue;
      const page = await fetch(`${base}/`);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      answers = { report, page: await page.text() };
    }
    stop.abort();
    await served;
    const { report, page } = answers;
    expect(report.pipeline).toBe('orders');
    expect(report.ready).toBe(true);
    expect(report.flows).toMatchObject([{ name: 'lake.orders', state: 'idle', commits: 1, rowsRead: 6, rowsWritten: 6, reads: [{ name: 'raw', stream: true }] }]);
    expect(report.flows[0]!.lastCommit?.snapshotId).toBe(report.tables[0]!.currentSnapshotId);
    expect(report.tables[0]).toMatchObject({ table: 'lake.orders', records: 6, dataFiles: 1, deleteFiles: 0, snapshots: 1 });
    expect(report.sources).toEqual([]);
    const cells = pageCells(page);
    for (const key of ['flows/lake.orders/rowsWritten', 'flows/lake.orders/lastCommit/snapshotId', 'tables/lake.orders/records', 'tables/lake.orders/dataFiles', 'tables/lake.orders/snapshots']) {
      expect(cells.get(key), key).toBe(reportValue(report, key));
    }
  });
});
