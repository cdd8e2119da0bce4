/**
 * What a table holds, read back through our own catalog and FileIO: the live data files of the
 * current snapshot, copied locally and read by DuckDB, as (partition, offset, key) rows, plus
 * the positions its summaries record.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import type { TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { committedOffsets } from '../../../src/engine/graph/streaming/offset-positions.js';
import { openCatalog } from '../../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../../src/app/serve/connection-file.js';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { TablePositions } from '../../../src/engine/graph/streaming/table-positions.js';
import { liveDataFiles } from '../../../src/table/scan.js';

export interface TableContents {
  readonly rows: Array<Record<string, unknown>>;
  readonly positions: TablePositions;
  readonly snapshots: number;
}

/** Rows of `select` (DuckDB select list) over the table the pipeline file's catalog holds; empty when it does not exist. */
export async function readTable(pipelinePath: string, identifier: TableIdentifier, select: string): Promise<TableContents> {
  const opened = await openCatalog(await loadConnectionFile(pipelinePath));
  const dir = await mkdtemp(join(tmpdir(), 'thund-eo-read-'));
  const session = await DuckDbSession.open({ threads: 1 });
  try {
    if (!(await opened.catalog.tableExists(identifier))) return { rows: [], positions: TablePositions.none(), snapshots: 0 };
    const table = await opened.catalog.loadTable(identifier);
    const files = await liveDataFiles(table.io, table.metadata);
    const local: string[] = [];
    for (const [i, file] of files.entries()) {
      const path = join(dir, `${i}.parquet`);
      await writeFile(path, await table.io.read(file.filePath));
      local.push(path);
    }
    const rows =
      local.length === 0
        ? []
        : await session.queryJson(`SELECT ${select} FROM read_parquet([${local.map(quoteLiteral).join(', ')}])`);
    return { rows, positions: servedPositions(table.metadata, identifier), snapshots: table.metadata.snapshots.length };
  } finally {
    session.close();
    await opened.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The positions the table's summaries record (none when the table does not exist). */
export async function readPositions(pipelinePath: string, identifier: TableIdentifier): Promise<TablePositions> {
  const opened = await openCatalog(await loadConnectionFile(pipelinePath));
  try {
    if (!(await opened.catalog.tableExists(identifier))) return TablePositions.none();
    return servedPositions((await opened.catalog.loadTable(identifier)).metadata, identifier);
  } finally {
    await opened.close();
  }
}

/** The positions `thund serve --topic --table` keeps: its flow is named after the table and reads the source kafka_records. */
export function servedPositions(metadata: TableMetadata, identifier: TableIdentifier): TablePositions {
  return committedOffsets(metadata, formatIdentifier(identifier), 'kafka_records');
}

/** Sum over partitions of the recorded next offsets. */
export function positionTotal(positions: TablePositions): bigint {
  return positions.list.reduce((sum, p) => sum + p.nextOffset, 0n);
}
