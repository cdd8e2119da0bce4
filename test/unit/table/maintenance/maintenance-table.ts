/**
 * Tables for maintenance tests on a local warehouse: many small appends through the partitioned
 * writer, equality deletes as a foreign writer (Flink) commits them, and reads of the live rows,
 * of their v3 lineage and of the live files.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TableIdentifier } from '../../../../catalog/catalog.js';
import { fromFileUri } from '../../../../connectors/storage/local-file-io.js';
import { quoteLiteral } from '../../../../src/duckdb/session.js';
import { DataFileContent, type DataFile } from '../../../../src/iceberg/data-file.js';
import { fieldIdsClause } from '../../../../src/iceberg/duckdb-types.js';
import { assignFreshIds } from '../../../../src/iceberg/schema.js';
import { currentSchema, currentSnapshot, defaultSpec } from '../../../../src/iceberg/snapshot-ancestry.js';
import type { PartitionSpec } from '../../../../src/iceberg/table-metadata.js';
import { primitive } from '../../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../../src/table/commit-snapshot.js';
import { liveFilesOf, planScan, type LiveFile } from '../../../../src/table/delete-planning.js';
import { dataLocation } from '../../../../src/table/locations.js';
import { LAST_UPDATED_COLUMN, openLiveRows, ROW_ID_COLUMN } from '../../../../src/table/read-rows.js';
import { openTableRows } from '../../../../src/table/table-rows.js';
import type { MaintenanceTarget } from '../../../../src/table/maintenance/maintenance-action.js';
import { writePartitionedDataFiles } from '../../../../src/write/partitioned-data-file-writer.js';
import type { LocalWarehouse } from '../../local-warehouse.js';

export const ID: TableIdentifier = { namespace: ['db'], name: 'events' };

/** id, grp ('g0'…'g2' by id % 3), label. */
export async function createEvents(
  warehouse: LocalWarehouse,
  options: { properties?: Record<string, string>; partitionSpec?: PartitionSpec } = {},
): Promise<void> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'grp', required: false, type: primitive('string') },
    { name: 'label', required: false, type: primitive('string') },
  ]);
  await warehouse.catalog.createTable(ID, {
    schema: { schemaId: 0, identifierFieldIds: [], fields },
    ...(options.partitionSpec === undefined ? {} : { partitionSpec: options.partitionSpec }),
    properties: options.properties ?? {},
  });
}

export const rowsSql = (from: number, count: number, version = 0): string =>
  `SELECT range::BIGINT AS id, 'g' || (range % 3) AS grp, 'v${version}-' || range AS label FROM range(${from}, ${from + count})`;

/** One append commit of the rows of `sql` under the table's default spec. */
export async function append(warehouse: LocalWarehouse, sql: string): Promise<DataFile[]> {
  const { catalog, io, session } = warehouse;
  const { metadata } = await catalog.loadTable(ID);
  const files = await writePartitionedDataFiles({
    session,
    query: sql,
    schema: currentSchema(metadata),
    spec: defaultSpec(metadata),
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
  await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
  return files;
}

/** `appends` commits of `rowsPerAppend` consecutive ids from 0. */
export async function appendMany(warehouse: LocalWarehouse, appends: number, rowsPerAppend: number): Promise<void> {
  for (let i = 0; i < appends; i++) await append(warehouse, rowsSql(i * rowsPerAppend, rowsPerAppend));
}

/**
 * Commits an equality delete file on `id` (unpartitioned spec only) deleting `ids`, as Flink
 * writes them.
 */
export async function equalityDelete(warehouse: LocalWarehouse, ids: readonly number[]): Promise<void> {
  const { catalog, io, session } = warehouse;
  const { metadata } = await catalog.loadTable(ID);
  const id = currentSchema(metadata).fields.find((field) => field.name === 'id')!;
  const location = `${dataLocation(metadata)}/eq-${randomUUID()}.parquet`;
  mkdirSync(dirname(fromFileUri(location)), { recursive: true });
  const values = ids.map((value) => `(${value}::BIGINT)`).join(', ');
  await session.run(`COPY (SELECT * FROM (VALUES ${values}) v(id)) TO ${quoteLiteral(fromFileUri(location))} (FORMAT parquet, ${fieldIdsClause({ fields: [id] })})`);
  const deletes: DataFile = {
    content: DataFileContent.EqualityDeletes,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: metadata.defaultSpecId,
    partition: new Map(),
    recordCount: BigInt(ids.length),
    fileSizeInBytes: BigInt(statSync(fromFileUri(location)).size),
    equalityIds: [id.id],
  };
  await commitSnapshot({
    catalog,
    identifier: ID,
    base: { metadata, io, create: false },
    mode: 'row-delta',
    addedFiles: [],
    rowDelta: { addedDataFiles: [], addedDeleteFiles: [deletes], removedDataFiles: [], removedDeleteFiles: [], validate: async () => {} },
  });
}

export function maintenanceTarget(warehouse: LocalWarehouse, dryRun = false): MaintenanceTarget {
  return { catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session, dryRun };
}

/** The live rows read through Thund's scan, ordered by id. */
export async function scanRows(warehouse: LocalWarehouse): Promise<Record<string, unknown>[]> {
  const { metadata } = await warehouse.catalog.loadTable(ID);
  const rows = await openTableRows({ session: warehouse.session, io: warehouse.io, metadata });
  try {
    return await warehouse.session.queryJson(`SELECT id::INTEGER AS id, grp, label FROM (${rows.sql}) ORDER BY id`);
  } finally {
    await rows.release();
  }
}

/** v3: each live row's id with its row id and last updated sequence number. */
export async function lineageRows(warehouse: LocalWarehouse): Promise<Record<string, unknown>[]> {
  const { session, io } = warehouse;
  const { metadata } = await warehouse.catalog.loadTable(ID);
  const plan = await planScan(io, metadata);
  const rows = await openLiveRows({ session, io, schema: currentSchema(metadata), tasks: plan.tasks, lineage: true });
  try {
    return await session.queryJson(
      `SELECT id::INTEGER AS id, ${ROW_ID_COLUMN}::INTEGER AS row_id, ${LAST_UPDATED_COLUMN}::INTEGER AS seq FROM (${rows.sql}) ORDER BY id`,
    );
  } finally {
    await rows.release();
  }
}

/** The live data and delete files of the current snapshot. */
export async function liveFiles(warehouse: LocalWarehouse): Promise<{ data: LiveFile[]; deletes: LiveFile[] }> {
  const { metadata } = await warehouse.catalog.loadTable(ID);
  const snapshot = currentSnapshot(metadata);
  return snapshot === undefined ? { data: [], deletes: [] } : liveFilesOf(warehouse.io, snapshot);
}
