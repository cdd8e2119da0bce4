/**
 * A streamed input whose position is a set of files: the ordered list of items (files) it has
 * now, of which a checkpoint records the ones already processed, and how to stage some of them as
 * one DuckDB table. Two kinds: a Parquet source (its files in sorted order) and a streaming table
 * of the pipeline (its live data files in commit order: an append-only table read incrementally).
 */
import { formatIdentifier, type Catalog, type TableIdentifier } from '../../../../catalog/catalog.js';
import { InvalidInputError, NoSuchTableError } from '../../../errors.js';
import { quoteIdentifier, type DuckDbSession } from '../../../duckdb/session.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { currentSchema } from '../../../iceberg/snapshot-ancestry.js';
import type { SourceDataset, TableDataset } from '../../../pipeline/ir/dataset.js';
import { planScan, type ScanTask } from '../../../table/delete-planning.js';
import { openLiveRows } from '../../../table/read-rows.js';
import { listSourceFiles, parquetRowCounts, stageFiles } from './parquet-stream.js';

export interface FileInput {
  /** The dataset name: the key of its positions in a checkpoint. */
  readonly name: string;
  /** Every item (file) available now, in processing order. */
  list(): Promise<string[]>;
  /** Row counts of these items, for a batch row limit. */
  rowCounts(items: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Creates table `relation` with the rows of `items` (no rows, with the columns, when empty); returns the row count. */
  stage(relation: string, items: readonly string[]): Promise<number>;
}

export function parquetInput(session: DuckDbSession, flowName: string, source: SourceDataset): FileInput {
  let shape: string | undefined;
  return {
    name: source.name,
    async list() {
      const files = await listSourceFiles(session, flowName, source);
      shape ??= files[0];
      return files;
    },
    rowCounts: (items) => parquetRowCounts(session, items),
    stage: (relation, items) => stageFiles(session, flowName, relation, items, shape ?? items[0] ?? ''),
  };
}

/**
 * A streaming table read with STREAM(): rows of data files it did not hold at the last batch.
 * A processed file that is no longer live means the table's rows were replaced or deleted, which
 * a stream of appends cannot follow: the flow fails and asks for a full refresh.
 */
export function tableInput(session: DuckDbSession, catalog: Catalog, io: FileIO, flowName: string, table: TableDataset): FileInput {
  const identifier: TableIdentifier = table.table.identifier;
  let tasks = new Map<string, ScanTask>();
  let loaded: Awaited<ReturnType<Catalog['loadTable']>> | undefined;
  return {
    name: table.name,
    async list() {
      try {
        loaded = await catalog.loadTable(identifier);
      } catch (error) {
        if (error instanceof NoSuchTableError) return [];
        throw error;
      }
      const plan = await planScan(loaded.io ?? io, loaded.metadata);
      const ordered = [...plan.tasks].sort((a, b) => compare(a.data.dataSequenceNumber, b.data.dataSequenceNumber) || a.data.file.filePath.localeCompare(b.data.file.filePath));
      tasks = new Map(ordered.map((task) => [task.data.file.filePath, task]));
      return ordered.map((task) => task.data.file.filePath);
    },
    async rowCounts(items) {
      return new Map(items.map((item) => [item, Number(tasks.get(item)?.data.file.recordCount ?? 0n)]));
    },
    async stage(relation, items) {
      if (loaded === undefined) throw new InvalidInputError(`flow ${flowName}: ${formatIdentifier(identifier)} does not exist yet`, { context: { flow: flowName } });
      const chosen = items.map((item) => tasks.get(item)).filter((task): task is ScanTask => task !== undefined);
      const rows = await openLiveRows({ session, io: loaded.io, schema: currentSchema(loaded.metadata), tasks: chosen });
      try {
        await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(relation)} AS ${rows.sql}`);
      } finally {
        await rows.release();
      }
      const [row] = await session.queryJson(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${quoteIdentifier(relation)}`);
      return Number(row?.['n'] ?? 0);
    },
  };
}

/** Items processed before that the input no longer has: the input was not append-only. */
export function vanished(items: readonly string[], processed: ReadonlySet<string>): string[] {
  const now = new Set(items);
  return [...processed].filter((item) => !now.has(item));
}

const compare = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
