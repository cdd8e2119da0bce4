/**
 * One row-level workload for every independent reader (pyiceberg, Spark, Trino, Thund's scan):
 * tables in a given catalog get three appends, a deleteWhere and three upserts over the same
 * keys (merge-on-read and copy-on-write, unpartitioned, by identity(region), by bucket[16](id)).
 * The expected rows after the deletes and at the end are computed by DuckDB from the generated
 * data, never read from the tables.
 */
import { expect } from 'vitest';
import type { Catalog, TableIdentifier } from '../../catalog/catalog.js';
import type { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { primitive } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { dataLocation } from '../../src/table/locations.js';
import type { RowOperationTarget } from '../../src/table/row-operation.js';
import { upsert } from '../../src/table/upsert.js';
import { writePartitionedDataFiles } from '../../src/write/partitioned-data-file-writer.js';
import type { ColumnType, Row } from './verify.js';

export const ROW_LEVEL_COLUMNS: readonly ColumnType[] = [
  { name: 'id', type: 'long' },
  { name: 'label', type: 'string' },
  { name: 'region', type: 'string' },
];

/** Rows id in [from, from + count): label 'v<version>-<id>', region by id % 3. */
const rowsSql = (from: number, count: number, version: number): string =>
  `SELECT range::BIGINT AS id, 'v${version}-' || range AS label, ['a', 'b', 'c'][range % 3 + 1] AS region FROM range(${from}, ${from + count})`;
const DELETE_PREDICATE = "id % 10 = 3 OR id BETWEEN 60 AND 89 OR (region = 'b' AND id < 20)";
const UPSERTS = [rowsSql(20, 50, 1), rowsSql(40, 80, 2), rowsSql(30, 60, 3)];

export interface RowLevelCase {
  readonly name: string;
  /** Partition transform and source column, or none. */
  readonly partitionBy?: { readonly transform: string; readonly column: 'id' | 'region' };
  readonly properties: Readonly<Record<string, string>>;
}

const COPY_ON_WRITE = { 'write.delete.mode': 'copy-on-write', 'write.update.mode': 'copy-on-write' };

export const ROW_LEVEL_CASES: readonly RowLevelCase[] = [
  { name: 'mor', properties: {} },
  { name: 'mor_by_region', partitionBy: { transform: 'identity', column: 'region' }, properties: {} },
  { name: 'mor_by_bucket', partitionBy: { transform: 'bucket[16]', column: 'id' }, properties: {} },
  { name: 'cow_by_bucket', partitionBy: { transform: 'bucket[16]', column: 'id' }, properties: COPY_ON_WRITE },
  { name: 'cow', properties: COPY_ON_WRITE },
];

export const isCopyOnWrite = (c: RowLevelCase): boolean => c.properties['write.update.mode'] === 'copy-on-write';

/** Data files of a query's rows under the table's current schema and default spec (fanned out by partition). */
export function writeUnderDefaultSpec(
  target: { readonly session: DuckDbSession; readonly io: FileIO },
  query: string,
  metadata: TableMetadata,
  writerName: string,
): Promise<DataFile[]> {
  return writePartitionedDataFiles({
    session: target.session,
    query,
    schema: currentSchema(metadata),
    spec: defaultSpec(metadata),
    dataLocation: dataLocation(metadata),
    io: target.io,
    properties: metadata.properties,
    writerName,
  });
}

export interface RowLevelTables {
  /** Per case name: the snapshot of the deleteWhere and the rows live at it. */
  readonly afterDelete: ReadonlyMap<string, { readonly snapshotId: bigint; readonly rows: Row[] }>;
  /** The rows every table holds at the end (id as text). */
  readonly final: Row[];
}

/** Creates `namespace.<case name>` for every case and runs the workload on it. */
export async function buildRowLevelTables(request: {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly session: DuckDbSession;
  readonly namespace: readonly string[];
}): Promise<RowLevelTables> {
  const { catalog, io, session } = request;
  const keyedRows = (sql: string): Promise<Row[]> => session.queryJson(`SELECT id::VARCHAR AS id, label, region FROM (${sql})`);
  const writeRows = (query: string, metadata: TableMetadata, writerName: string): Promise<DataFile[]> => writeUnderDefaultSpec({ session, io }, query, metadata, writerName);
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'label', required: false, type: primitive('string') },
    { name: 'region', required: false, type: primitive('string') },
  ]);
  const afterDelete = new Map<string, { snapshotId: bigint; rows: Row[] }>();
  for (const c of ROW_LEVEL_CASES) {
    const identifier: TableIdentifier = { namespace: request.namespace, name: c.name };
    const by = c.partitionBy;
    const source = fields.find((f) => f.name === by?.column);
    const partitionSpec =
      by === undefined || source === undefined
        ? undefined
        : { specId: 0, fields: [{ sourceId: source.id, fieldId: 1000, name: `${by.column}_part`, transform: by.transform }] };
    await catalog.createTable(identifier, {
      schema: { schemaId: 0, identifierFieldIds: [], fields },
      properties: { ...c.properties },
      ...(partitionSpec === undefined ? {} : { partitionSpec }),
    });
    for (const from of [0, 30, 60]) {
      const { metadata } = await catalog.loadTable(identifier);
      const files = await writeRows(rowsSql(from, 30, 0), metadata, c.name);
      await commitSnapshot({ catalog, identifier, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    }
    const target: RowOperationTarget = { catalog, identifier, io, session };
    const deleted = await deleteWhere(target, DELETE_PREDICATE);
    expect(deleted.snapshot).toBeDefined();
    afterDelete.set(c.name, {
      snapshotId: deleted.snapshot!.snapshotId,
      rows: await keyedRows(`SELECT * FROM (${rowsSql(0, 90, 0)}) WHERE NOT (${DELETE_PREDICATE})`),
    });
    for (const sourceQuery of UPSERTS) await upsert(target, { keyColumns: ['id'], sourceQuery });
  }
  // Independently: the surviving seed rows, replaced key by key by the latest upsert holding it.
  const stages = [`SELECT *, 0 AS stage FROM (${rowsSql(0, 90, 0)}) WHERE NOT (${DELETE_PREDICATE})`, ...UPSERTS.map((s, i) => `SELECT *, ${i + 1} AS stage FROM (${s})`)];
  const final = await keyedRows(`SELECT id, label, region FROM (${stages.join(' UNION ALL ')}) QUALIFY row_number() OVER (PARTITION BY id ORDER BY stage DESC) = 1`);
  return { afterDelete, final };
}
