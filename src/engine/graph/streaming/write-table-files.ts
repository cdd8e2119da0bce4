/**
 * Data files of a query for a loaded table: its current schema, default spec, data folder and
 * write properties.
 */
import type { LoadedTable } from '../../../../catalog/catalog.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { currentSchema, defaultSpec } from '../../../iceberg/snapshot-ancestry.js';
import { dataLocation } from '../../../table/locations.js';
import { writePartitionedDataFiles } from '../../../write/partitioned-data-file-writer.js';

export function writeTableFiles(session: DuckDbSession, table: LoadedTable, io: FileIO, query: string, writerName: string): Promise<DataFile[]> {
  return writePartitionedDataFiles({
    session,
    query,
    schema: currentSchema(table.metadata),
    spec: defaultSpec(table.metadata),
    dataLocation: dataLocation(table.metadata),
    io,
    properties: table.metadata.properties,
    writerName,
  });
}
