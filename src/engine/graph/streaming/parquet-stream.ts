/**
 * A Parquet source read as a stream: its position is the set of files already processed; each
 * run lists the files matching the source's paths, takes the ones not processed yet in sorted
 * order and cuts them into micro-batches of at most `maxFiles` files and, when a row limit is
 * set, at most that many rows (a file larger than the limit is a batch of its own). Local paths
 * and globs only.
 */
import { InvalidInputError } from '../../../errors.js';
import { duckDbMessage, quoteIdentifier, quoteLiteral, type DuckDbSession } from '../../../duckdb/session.js';
import type { SourceDataset } from '../../../pipeline/ir/dataset.js';

/** Table property: the most new files one micro-batch of a streamed Parquet source takes. */
export const MAX_FILES_PER_BATCH_PROPERTY = 'thund.stream.max-files-per-batch';
export const DEFAULT_MAX_FILES_PER_BATCH = 100;
/** Table property: the most rows one micro-batch takes (files: counted from their Parquet footers, no limit by default; Kafka: records, 100,000 by default). */
export const MAX_ROWS_PER_BATCH_PROPERTY = 'thund.stream.max-rows-per-batch';

/** Table property: the most key and value bytes one micro-batch of a Kafka source reads (default 64 MiB). */
export const MAX_BYTES_PER_BATCH_PROPERTY = 'thund.stream.max-bytes-per-batch';

export interface BatchLimits {
  readonly maxFiles: number;
  /** Rows of files (from their footers), or records (offsets) of a Kafka source. */
  readonly maxRows?: number;
  readonly maxBytes?: number;
}

const isRemote = (path: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(path) && !path.startsWith('file://');

export function batchLimits(properties: Readonly<Record<string, string>>, flowName: string): BatchLimits {
  const maxFiles = positiveInteger(properties, MAX_FILES_PER_BATCH_PROPERTY, flowName) ?? DEFAULT_MAX_FILES_PER_BATCH;
  const maxRows = positiveInteger(properties, MAX_ROWS_PER_BATCH_PROPERTY, flowName);
  const maxBytes = positiveInteger(properties, MAX_BYTES_PER_BATCH_PROPERTY, flowName);
  return { maxFiles, ...(maxRows === undefined ? {} : { maxRows }), ...(maxBytes === undefined ? {} : { maxBytes }) };
}

function positiveInteger(properties: Readonly<Record<string, string>>, property: string, flowName: string): number | undefined {
  const text = properties[property];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidInputError(`flow ${flowName}: table property ${property} must be a positive integer, got "${text}"`, {
      context: { flow: flowName, property },
    });
  }
  return value;
}

/** Every file the source's paths match now, sorted, without duplicates. */
export async function listSourceFiles(session: DuckDbSession, flowName: string, source: SourceDataset): Promise<string[]> {
  if (source.source.format !== 'parquet') throw new InvalidInputError(`flow ${flowName}: source ${source.name} is not Parquet`);
  const files = new Set<string>();
  for (const path of source.source.paths) {
    if (isRemote(path)) {
      throw new InvalidInputError(
        `flow ${flowName}: streaming reads of Parquet files on object storage (${path}, source ${source.name}) are not supported yet; use a local path`,
        { context: { flow: flowName, source: source.name, path } },
      );
    }
    const local = path.startsWith('file://') ? new URL(path).pathname : path;
    for (const row of await session.queryJson(`SELECT file FROM glob(${quoteLiteral(local)})`)) files.add(String(row['file']));
  }
  return [...files].sort();
}

/**
 * The new items cut into batches in the order given: at most `maxFiles` items and, with
 * `rowsOf`, at most `maxRows` rows (an item with more rows than that is a batch alone).
 */
export function fileBatches(
  items: readonly string[],
  processed: ReadonlySet<string>,
  limits: BatchLimits,
  rowsOf: ReadonlyMap<string, number> = new Map(),
): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let rows = 0;
  for (const item of items.filter((i) => !processed.has(i))) {
    const itemRows = rowsOf.get(item) ?? 0;
    const full = current.length >= limits.maxFiles || (limits.maxRows !== undefined && current.length > 0 && rows + itemRows > limits.maxRows);
    if (full) {
      batches.push(current);
      current = [];
      rows = 0;
    }
    current.push(item);
    rows += itemRows;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Row counts of Parquet files from their footers. */
export async function parquetRowCounts(session: DuckDbSession, files: readonly string[]): Promise<Map<string, number>> {
  if (files.length === 0) return new Map();
  const rows = await session.queryJson(
    `SELECT file_name, sum(num_rows)::BIGINT::VARCHAR AS n FROM parquet_file_metadata([${files.map(quoteLiteral).join(', ')}]) GROUP BY file_name`,
  );
  return new Map(rows.map((row) => [String(row['file_name']), Number(row['n'])]));
}

/**
 * A table `relation` with the rows of `files`; with no files, the columns of `shapeFile` and no
 * rows (a source that gets no new file in a batch still has its columns).
 */
export async function stageFiles(session: DuckDbSession, flowName: string, relation: string, files: readonly string[], shapeFile: string): Promise<number> {
  const read = (list: readonly string[]): string => `read_parquet([${list.map(quoteLiteral).join(', ')}], union_by_name = true)`;
  const sql = files.length === 0 ? `SELECT * FROM ${read([shapeFile])} LIMIT 0` : `SELECT * FROM ${read(files)}`;
  try {
    await session.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(relation)} AS ${sql}`);
  } catch (error) {
    throw new InvalidInputError(`flow ${flowName}: cannot read ${files.join(', ') || shapeFile} as Parquet: ${duckDbMessage(error)}`, {
      cause: error,
      context: { flow: flowName },
    });
  }
  const [row] = await session.queryJson(`SELECT count(*)::BIGINT::VARCHAR AS n FROM ${quoteIdentifier(relation)}`);
  return Number(row?.['n'] ?? 0);
}
