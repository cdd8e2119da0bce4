/**
 * Today's batch engine behind ExecBackend: the quickstart runs through run() with its events in
 * phase order and lands the input's rows; a graph it cannot run is refused element by element
 * before anything is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createParquetSourceConnector } from '../../../connectors/parquet/parquet-source.js';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { duckDbSqlParser } from '../../../src/duckdb/sql-parser.js';
import { NativeBatchBackend } from '../../../src/backend/native/batch-backend.js';
import type { RunEvent } from '../../../src/backend/run-event.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { parquet, pipeline } from '../../../src/pipeline/builder.js';
import { inferDependencies } from '../../../src/pipeline/infer-dependencies.js';
import type { PipelineGraph } from '../../../src/pipeline/ir/graph.js';
import { loadPipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';

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

async function runAll(graph: PipelineGraph) {
  const sources = createParquetSourceConnector({});
  try {
    const handle = new NativeBatchBackend({ catalog: opened.catalog, io: opened.io, sources }).run(graph);
    const events: RunEvent[] = [];
    for await (const event of handle.events) events.push(event);
    return { events, result: await handle.result };
  } finally {
    await sources.close();
  }
}

describe('NativeBatchBackend', () => {
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
      const handle = new NativeBatchBackend({ catalog: opened.catalog, io: opened.io, sources }).run(graph);
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

  it('refuses what it cannot run, naming each element, and writes nothing', async () => {
    const graph = await inferred(
      pipeline('p')
        .source('orders', parquet(INPUT))
        .streamingTable('lake.st', { sql: 'SELECT * FROM STREAM(orders)' })
        .build(),
    );
    const { events, result } = await runAll(graph);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('UNSUPPORTED');
    expect(result.error?.message).toContain('streaming-table lake.st');
    expect(result.error?.message).toContain('streaming read in flow lake.st');
    expect(events.map((event) => event.phase)).toEqual(['failed']);
    expect(await opened.catalog.namespaceExists(['lake'])).toBe(false);
  });
});
