/** Writes rows into a catalog's table through commitSnapshot and counts them back two ways. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalog, LoadedTable, TableIdentifier } from '../../../catalog/catalog.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { commitSnapshot, type SnapshotCommitResult } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';

export const SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: false, type: primitive('long') },
    { id: 2, name: 'name', required: false, type: primitive('string') },
  ],
};

/** Appends ids from..from+count-1 as one snapshot on the table's current state (or replaces every row with them). */
export async function appendIds(
  catalog: Catalog,
  io: FileIO,
  identifier: TableIdentifier,
  from: number,
  count: number,
  mode: 'append' | 'overwrite' = 'append',
): Promise<SnapshotCommitResult> {
  const { metadata } = await catalog.loadTable(identifier);
  const session = await DuckDbSession.open();
  try {
    const addedFiles = await writeDataFiles({
      session,
      query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS name FROM range(${from}, ${from + count})`,
      schema: SCHEMA,
      specId: metadata.defaultSpecId,
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'catalog-behaviour-test',
    });
    return await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode, addedFiles });
  } finally {
    session.close();
  }
}

export interface RowCounts {
  /** Sum of record_count over the live data files (the manifests' view). */
  readonly manifestRows: bigint;
  /** count(*), count(DISTINCT id) and sum(id) as DuckDB reads the data files themselves. */
  readonly rows: number;
  readonly distinctIds: number;
  readonly idSum: number;
}

export async function countRows(table: LoadedTable, io: FileIO): Promise<RowCounts> {
  const files = await liveDataFiles(io, table.metadata);
  const manifestRows = files.reduce((n, file) => n + file.recordCount, 0n);
  if (files.length === 0) return { manifestRows, rows: 0, distinctIds: 0, idSum: 0 };
  const dir = await mkdtemp(join(tmpdir(), 'thund-behaviour-count-'));
  const session = await DuckDbSession.open();
  try {
    const paths: string[] = [];
    for (const [index, file] of files.entries()) {
      const path = join(dir, `${index}.parquet`);
      await writeFile(path, await io.read(file.filePath));
      paths.push(quoteLiteral(path));
    }
    const [row] = await session.queryJson(
      `SELECT count(*) AS n, count(DISTINCT id) AS d, coalesce(sum(id), 0) AS s FROM read_parquet([${paths.join(', ')}])`,
    );
    return { manifestRows, rows: Number(row?.['n']), distinctIds: Number(row?.['d']), idSum: Number(row?.['s']) };
  } finally {
    session.close();
    await rm(dir, { recursive: true, force: true });
  }
}
