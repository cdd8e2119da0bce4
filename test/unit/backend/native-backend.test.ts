/**
 * The native engine behind ExecBackend: the quickstart runs through run() with its events in
 * phase order and lands the input's rows; a second run finds it up to date (before making any
 * source a DuckDB view); a graph it cannot run
 * (a sink) is refused element by element before anything is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createParquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import type { SourceConnector } from '../../../connectors/source.js';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { NativeBackend } from '../../../src/backend/native/native-backend.js';
import type { RunEvent } from '../../../src/backend/run-event.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { parquet, pipeline } from '../../../src/pipeline/builder.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import type { PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { loadPipelineDefinition } from '../../../src/pipeline/definition-file.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const INPUT = path.join(REPO, 'examples/quickstart/data/orders.parquet');

let work: string;
let opened: OpenedCatalog;

beforeEach(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'thund-backend-'));
  opened = await openCatalog(undefined, { warehouse: path.join(work, 'warehouse') });
});

afterEach(async () => {
  await opened.close();
  rmSync(work, { recursive: true, force: true });
});

async function inferred(graph: PipelineGraph): Promise<PipelineGraph> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return (await inferDependencies(graph, duckDbSqlParser(session))).graph;
  } finally {
    session.close();
  }
}

async function inputRows(): Promise<number> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    return Number((await session.queryJson(`SELECT count(*) AS n FROM read_parquet(${quoteLiteral(INPUT)})`))[0]?.['n']);
  } finally {
    session.close();
  }
}

/** How many input rows meet each condition. */
async function inputCounts(...conditions: string[]): Promise<number[]> {
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    const columns = conditions.map((condition, i) => `count(*) FILTER (WHERE ${condition}) AS c${i}`).join(', ');
    const [row] = await session.queryJson(`SELECT ${columns} FROM read_parquet(${quoteLiteral(INPUT)})`);
    return conditions.map((_, i) => Number(row?.[`c${i}`]));
  } finally {
    session.close();
  }
}

/** Runs `graph`; `registered` collects the sources made DuckDB views. */
async function runAll(graph: PipelineGraph, fullRefresh = false, registered: string[] = []) {
  const sources = createParquetSourceConnector({});
  const recording: SourceConnector = { ...sources, register: (session, source) => (registered.push(source.name), sources.register(session, source)) };
  try {
    const handle = new NativeBackend({ catalog: opened.catalog, io: opened.io, sources: recording }).run(graph, { fullRefresh });
    const events: RunEvent[] = [];
    for await (const event of handle.events) events.push(event);
    return { events, result: await handle.result };
  } finally {
    await sources.close();
  }
}

describe('NativeBackend', () => {
  it('runs the quickstart definition and reports its phases', async () => {
    const loaded = await loadPipelineDefinition(path.join(REPO, 'examples/quickstart/pipeline.yaml'));
    if (!loaded.ok) throw new Error('quickstart must load');
    const { events, result } = await runAll(await inferred(loaded.definition.graph));
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(events.map((event) => event.phase)).toEqual(['planning', 'flow-started', 'flow-completed', 'done']);
    const expected = await inputRows();
    expect(result.flows.map((flow) => [flow.flow, flow.target, flow.counts.rowsWritten])).toEqual([['load_orders', 'lake.orders', expected]]);

    const table = await opened.catalog.loadTable({ namespace: ['lake'], name: 'orders' });
    expect(table.metadata.currentSnapshotId).toBe(result.flows[0]?.snapshotId);
    const files = await liveDataFiles(table.io, table.metadata);
    expect(files.reduce((total, file) => total + Number(file.recordCount), 0)).toBe(expected);
  });

  it('cancel() stops before the next flow: the run ends cancelled with only the finished flow landed', async () => {
    const graph = await inferred(
      pipeline('p')
        .source('orders', parquet(INPUT))
        .materializedView('lake.first', { sql: 'SELECT id FROM orders' })
        .materializedView('lake.second', { sql: 'SELECT id FROM orders' })
        .build(),
    );
    const sources = createParquetSourceConnector({});
    try {
      const handle = new NativeBackend({ catalog: opened.catalog, io: opened.io, sources }).run(graph);
      const phases: string[] = [];
      for await (const event of handle.events) {
        phases.push(event.phase);
        if (event.phase === 'flow-completed') handle.cancel();
      }
      const result = await handle.result;
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('cancelled');
      expect(phases).toEqual(['planning', 'flow-started', 'flow-completed', 'done']);
      expect(result.flows.map((flow) => flow.flow)).toEqual(['lake.first']);
      expect(await opened.catalog.tableExists({ namespace: ['lake'], name: 'first' })).toBe(true);
      expect(await opened.catalog.tableExists({ namespace: ['lake'], name: 'second' })).toBe(false);
    } finally {
      await sources.close();
    }
  });

  it('skips the flow on a second run (up to date) without making its source a view, and runs it again with fullRefresh', async () => {
    const loaded = await loadPipelineDefinition(path.join(REPO, 'examples/quickstart/pipeline.yaml'));
    if (!loaded.ok) throw new Error('quickstart must load');
    const graph = await inferred(loaded.definition.graph);
    const registered: string[] = [];
    const first = await runAll(graph, false, registered);
    expect(registered).toEqual(['orders']);
    const second = await runAll(graph, false, registered);
    expect(registered).toEqual(['orders']);
    expect(second.result.status).toBe('completed');
    const completed = second.events.find((event) => event.phase === 'flow-completed');
    expect(completed).toMatchObject({ flow: 'load_orders', skipped: 'up-to-date', snapshotId: first.result.flows[0]?.snapshotId });
    const table = await opened.catalog.loadTable({ namespace: ['lake'], name: 'orders' });
    expect(table.metadata.snapshots).toHaveLength(1);

    const forced = await runAll(graph, true, registered);
    expect(forced.result.flows[0]?.skipped).toBeUndefined();
    expect(registered).toEqual(['orders', 'orders']);
    const after = await opened.catalog.loadTable({ namespace: ['lake'], name: 'orders' });
    expect(after.metadata.snapshots).toHaveLength(2);
    expect(after.metadata.currentSnapshotId).toBe(forced.result.flows[0]?.snapshotId);
  });

  it('reports expectation counts in flow-completed events, and runs a once flow a single time', async () => {
    const graph = await inferred(
      pipeline('p')
        .source('orders', parquet(INPUT))
        .materializedView('lake.checked', {
          sql: 'SELECT id FROM orders',
          outputMode: 'complete',
          expectations: { even: 'id % 2 = 0', small: { condition: 'id <= 10', action: 'drop' } },
        })
        .streamingTable('lake.backfill')
        .flow('backfill', { target: 'lake.backfill', kind: 'once', sql: 'SELECT id FROM orders WHERE id <= 3' })
        .build(),
    );
    const [even = -1, small = -1, rows = -1] = await inputCounts('id % 2 = 0', 'id <= 10', 'true');
    const first = await runAll(graph);
    expect(first.result.error).toBeUndefined();
    const checked = first.events.find((event) => event.phase === 'flow-completed' && event.flow === 'lake.checked');
    expect(checked?.phase === 'flow-completed' && checked.counts).toEqual({
      rowsRead: rows,
      rowsWritten: small,
      lateRows: 0,
      expectations: [
        { dataset: 'lake.checked', expectation: 'even', action: 'warn', passed: even, failed: rows - even },
        { dataset: 'lake.checked', expectation: 'small', action: 'drop', passed: small, failed: rows - small },
      ],
    });
    const second = await runAll(graph);
    expect(second.result.flows.map((flow) => [flow.flow, flow.skipped])).toEqual([
      ['lake.checked', 'up-to-date'],
      ['backfill', 'once-done'],
    ]);
    const backfill = await opened.catalog.loadTable({ namespace: ['lake'], name: 'backfill' });
    expect(backfill.metadata.snapshots.map((snapshot) => snapshot.summary['added-records'])).toEqual(['3']);
  });

  it('fullRefresh naming a dataset forces only that dataset\'s flow; a reader of a table sees its new snapshot', async () => {
    const graph = await inferred(
      pipeline('p')
        .source('orders', parquet(INPUT))
        .materializedView('lake.first', { outputMode: 'complete', sql: 'SELECT id FROM orders WHERE id <= 5' })
        .materializedView('lake.second', { outputMode: 'complete', sql: 'SELECT count(*) AS n FROM lake.first' })
        .materializedView('lake.other', { outputMode: 'complete', sql: 'SELECT 1 AS one' })
        .build(),
    );
    await runAll(graph);
    const sources = createParquetSourceConnector({});
    try {
      const handle = new NativeBackend({ catalog: opened.catalog, io: opened.io, sources }).run(graph, { fullRefresh: ['LAKE.FIRST'] });
      const result = await handle.result;
      // lake.first is forced; lake.second reads it, whose snapshot changed, so it is stale too.
      expect(result.flows.map((flow) => [flow.flow, flow.skipped ?? 'ran'])).toEqual([
        ['lake.first', 'ran'],
        ['lake.second', 'ran'],
        ['lake.other', 'up-to-date'],
      ]);
      const second = await opened.catalog.loadTable({ namespace: ['lake'], name: 'second' });
      const first = await opened.catalog.loadTable({ namespace: ['lake'], name: 'first' });
      const upstream = JSON.parse(second.metadata.snapshots.at(-1)?.summary['thund.upstream'] ?? '{}') as Record<string, string>;
      expect(upstream).toEqual({ 'lake.first': String(first.metadata.currentSnapshotId) });
    } finally {
      await sources.close();
    }
  });

  it('refuses what it cannot run, naming each element, and writes nothing', async () => {
    const graph = await inferred(
      pipeline('p')
        .source('orders', parquet(INPUT))
        .materializedView('lake.mv', { sql: 'SELECT * FROM orders' })
        .sink('export', { format: 'delta' })
        .flow('to_export', { target: 'export', sql: 'SELECT * FROM orders' })
        .build(),
    );
    const { events, result } = await runAll(graph);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('UNSUPPORTED');
    expect(result.error?.message).toContain('sink export');
    expect(result.error?.message).not.toContain('lake.mv');
    expect(events.map((event) => event.phase)).toEqual(['failed']);
    expect(await opened.catalog.namespaceExists(['lake'])).toBe(false);
  });
});
