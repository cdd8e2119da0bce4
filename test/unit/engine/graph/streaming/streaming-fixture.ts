/**
 * A pipeline folder (spec, Parquet files written batch by batch), a local warehouse (SQLite
 * catalog) and the FlowContext of one streaming flow read from the spec through the real
 * definition reader, so runStreamingFlow runs the way the graph runner calls it. Each run opens a
 * fresh DuckDB session (a new process, as far as the flow can tell).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach } from 'vitest';
import { join } from 'node:path';
import type { Catalog } from '../../../../../catalog/catalog.js';
import { SqlCatalog } from '../../../../../catalog/sql/index.js';
import { registerParquetSource } from '../../../../../connectors/parquet/parquet-source.js';
import type { FileIO } from '../../../../../src/iceberg/file-io.js';
import { LocalFileIO, toFileUri } from '../../../../../connectors/storage/local-file-io.js';
import type { FlowCounts } from '../../../../../src/engine/run-events.js';
import { DuckDbSession, quoteLiteral } from '../../../../../src/duckdb/session.js';
import { duckDbSqlParser } from '../../../../../src/duckdb/sql-parser.js';
import type { FlowContext, FlowOutcome } from '../../../../../src/engine/graph/flow-context.js';
import { runStreamingFlow } from '../../../../../src/engine/graph/streaming/run-streaming-flow.js';
import { inferDependencies } from '../../../../../src/pipeline/infer-dependencies.js';
import { findDataset, type PipelineGraph } from '../../../../../src/pipeline/ir/graph.js';
import { isTableDataset } from '../../../../../src/pipeline/ir/dataset.js';
import { parsePipelineDefinition } from '../../../../../src/pipeline/spec-to-ir.js';
import { openTableRows } from '../../../../../src/table/table-rows.js';

export type Cell = string | number | boolean | null;

export interface RunOptions {
  readonly fullRefresh?: boolean;
  /** Abort after this many committed batches of the run. */
  readonly stopAfter?: number;
  /** Stand-ins for the warehouse's catalog and FileIO (to inject failures). */
  readonly catalog?: Catalog;
  readonly io?: FileIO;
}

export interface StreamRun extends FlowOutcome {
  readonly batches: FlowCounts[];
}

/** Where the tables go; default a SQLite catalog and a local warehouse in the pipeline's work folder. */
export interface Storage {
  readonly io: FileIO;
  /** The warehouse URI for a work folder. */
  warehouse(work: string): string;
  /** Another catalog than the SQLite one (e.g. REST), over the same FileIO. */
  readonly catalog?: Catalog;
}

export class StreamingPipeline {
  readonly work: string;
  readonly io: FileIO;
  readonly catalog: Catalog;
  private fileCount = 0;

  constructor(
    private readonly spec: string,
    storage: Storage = { io: new LocalFileIO(), warehouse: (work) => toFileUri(join(work, 'warehouse')) },
  ) {
    this.work = mkdtempSync(join(tmpdir(), 'thund-stream-'));
    mkdirSync(join(this.work, 'data'));
    writeFileSync(join(this.work, 'pipeline.yaml'), spec);
    this.io = storage.io;
    this.catalog = storage.catalog ?? new SqlCatalog({ databasePath: join(this.work, 'catalog.db'), warehouse: storage.warehouse(this.work), io: this.io });
  }

  /** Writes the rows of `select` as the next Parquet file of data/ (names sort in write order). */
  async addFile(select: string, folder = 'data'): Promise<string> {
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      mkdirSync(join(this.work, folder), { recursive: true });
      const path = join(this.work, folder, `part-${String(this.fileCount++).padStart(4, '0')}.parquet`);
      await session.run(`COPY (${select}) TO ${quoteLiteral(path)} (FORMAT parquet)`);
      return path;
    } finally {
      session.close();
    }
  }

  /** One `thund run` of `flowName` in a fresh session. */
  async run(flowName: string, options: RunOptions = {}): Promise<StreamRun> {
    const session = await DuckDbSession.open({ threads: 1 });
    const tempDir = mkdtempSync(join(this.work, 'tmp-'));
    try {
      const graph = await this.graph(session);
      const flow = graph.flows.find((f) => f.name === flowName);
      if (flow === undefined) throw new Error(`no flow ${flowName}`);
      const target = findDataset(graph, flow.target);
      if (target === undefined || !isTableDataset(target)) throw new Error(`flow ${flowName} writes no table`);
      await registerSources(session, graph);
      const batches: FlowCounts[] = [];
      const abort = new AbortController();
      const context: FlowContext = {
        session,
        catalog: options.catalog ?? this.catalog,
        io: options.io ?? this.io,
        graph,
        flow,
        target,
        fullRefresh: options.fullRefresh === true,
        summary: { 'thund.flow': flow.name },
        tempDir,
        progress: (_batch, counts) => {
          batches.push(counts);
          if (options.stopAfter !== undefined && batches.length >= options.stopAfter) abort.abort();
        },
        signal: abort.signal,
      };
      const outcome = await runStreamingFlow(context);
      return { ...outcome, batches };
    } finally {
      session.close();
      rmSync(tempDir, { recursive: true, force: true });
    }
  }

  /** The table's rows through Thund's own scan, as arrays in `select`'s order (`t` is the table). */
  async rows(table: string, select: string): Promise<Cell[][]> {
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      const [namespace, name] = table.split('.') as [string, string];
      const { metadata } = await this.catalog.loadTable({ namespace: [namespace], name });
      const rows = await openTableRows({ session, io: this.io, metadata });
      try {
        return (await session.queryJson(select.replaceAll('{t}', `(${rows.sql})`))).map((row) => Object.values(row) as Cell[]);
      } finally {
        await rows.release();
      }
    } finally {
      session.close();
    }
  }

  /** Rows of a plain DuckDB query over every Parquet file of a folder (`{all}`): the independent oracle. */
  async oracle(select: string, folder = 'data'): Promise<Cell[][]> {
    const session = await DuckDbSession.open({ threads: 1 });
    try {
      const all = `read_parquet(${quoteLiteral(join(this.work, folder, '*.parquet'))})`;
      return (await session.queryJson(select.replaceAll('{all}', all))).map((row) => Object.values(row) as Cell[]);
    } finally {
      session.close();
    }
  }

  async snapshots(table: string): Promise<Record<string, string>[]> {
    const [namespace, name] = table.split('.') as [string, string];
    const { metadata } = await this.catalog.loadTable({ namespace: [namespace], name });
    return metadata.snapshots.map((snapshot) => snapshot.summary);
  }

  async close(): Promise<void> {
    await this.catalog.close();
    rmSync(this.work, { recursive: true, force: true });
  }

  private async graph(session: DuckDbSession): Promise<PipelineGraph> {
    const parsed = parsePipelineDefinition(this.spec, join(this.work, 'pipeline.yaml'));
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
    const inferred = await inferDependencies(parsed.definition.graph, duckDbSqlParser(session));
    if (inferred.problems.length > 0) throw new Error(inferred.problems.map((p) => p.message).join('\n'));
    return inferred.graph;
  }
}

/** What the graph runner sets up for batch reads: each Parquet source as a view of its name. */
async function registerSources(session: DuckDbSession, graph: PipelineGraph): Promise<void> {
  for (const dataset of graph.datasets) {
    if (dataset.kind === 'source' && dataset.source.format === 'parquet') await registerParquetSource(session, dataset.name, dataset.source);
  }
}

/** `catalog` as a process that is killed at its `n`th commit: that commit throws and never happens. */
export function crashingAtCommit(catalog: Catalog, n: number): Catalog {
  let commits = 0;
  return new Proxy(catalog, {
    get(target, property, receiver) {
      if (property === 'commitTable') {
        return async (...args: unknown[]) => {
          if (++commits === n) throw new Error('killed');
          return (target.commitTable as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Registers, in the calling test file, the closing of every pipeline it opens after each test, and
 * gives the opener: a pipeline of `spec` holding the first `files` of `fileOf`'s files.
 */
export function pipelinesOf(spec: string, fileOf: (k: number) => string): (files: number) => Promise<StreamingPipeline> {
  const opened: StreamingPipeline[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });
  return async (files) => {
    const pipeline = new StreamingPipeline(spec);
    opened.push(pipeline);
    for (let k = 0; k < files; k++) await pipeline.addFile(fileOf(k));
    return pipeline;
  };
}
