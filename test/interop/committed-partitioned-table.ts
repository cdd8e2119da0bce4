/**
 * A table in a fresh local warehouse with an embedded SQLite catalog, its rows written by Thund's
 * partitioned writer and committed once, for the independent readers to read (catalog `default`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { currentSchema, defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import type { PartitionField } from '../../src/iceberg/table-metadata.js';
import type { NestedField } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';

export interface CommittedTableRequest {
  readonly session: DuckDbSession;
  /** Names the temp folder. */
  readonly prefix: string;
  /** `namespace.name`, one namespace level. */
  readonly table: string;
  readonly fields: readonly NestedField[];
  /** Field ids are assigned from 1000 in order. */
  readonly partitionBy: readonly Omit<PartitionField, 'fieldId'>[];
  /** A SELECT of the table's columns. */
  readonly query: string;
}

/** The warehouse folder (remove it when done) and the files committed. */
export async function committedPartitionedTable(request: CommittedTableRequest): Promise<{ warehouse: string; files: DataFile[] }> {
  const warehouse = mkdtempSync(join(tmpdir(), `thund-${request.prefix}-`));
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(warehouse, 'catalog.db'), warehouse: toFileUri(warehouse), io });
  try {
    const [namespace, name] = request.table.split('.') as [string, string];
    await catalog.createNamespace([namespace]);
    const identifier = { namespace: [namespace], name };
    const { metadata } = await catalog.createTable(identifier, {
      schema: { schemaId: 0, identifierFieldIds: [], fields: [...request.fields] },
      partitionSpec: { specId: 0, fields: request.partitionBy.map((f, i) => ({ ...f, fieldId: 1000 + i })) },
    });
    const files = await writePartitionedDataFiles({
      session: request.session,
      query: request.query,
      schema: currentSchema(metadata),
      spec: defaultSpec(metadata),
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: request.table,
    });
    await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    return { warehouse, files };
  } finally {
    await catalog.close();
  }
}
