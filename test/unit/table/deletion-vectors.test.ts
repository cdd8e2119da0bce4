/**
 * Merge-on-read deletes and upserts on a v3 table write deletion vectors: one Puffin blob per
 * data file, merged with the file's earlier vector, which the same snapshot removes; a data file
 * removed whole takes its vector with it; copy-on-write removes the vectors of the files it
 * rewrites, keeping the rewritten rows' ids (row lineage). Rows are read back through Thund's scan and compared with DuckDB over the same data;
 * the vectors' positions are decoded from the Puffin bytes on disk.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { DataFileContent, isDeletionVector, type DataFile } from '../../../src/iceberg/data-file.js';
import { decodeDeletionVector } from '../../../src/iceberg/puffin/deletion-vector.js';
import { readPuffinFooter } from '../../../src/iceberg/puffin/puffin-file.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { liveFilesOf } from '../../../src/table/delete-planning.js';
import { deleteWhere } from '../../../src/table/delete-where.js';
import { dataLocation } from '../../../src/table/locations.js';
import type { RowOperationTarget } from '../../../src/table/row-operation.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { upsert } from '../../../src/table/upsert.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'v3' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;
beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'dv', namespaces: [['db']] })));
afterEach(() => warehouse.close());

const rowsSql = (from: number, count: number, version = 0): string =>
  `SELECT range::BIGINT AS id, 'v${version}-' || range AS label FROM range(${from}, ${from + count})`;

async function createV3(properties: Record<string, string> = {}): Promise<void> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'label', required: false, type: primitive('string') },
  ]);
  await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: { 'format-version': '3', ...properties } });
  // Three data files: ids 0–29, 30–59, 60–89.
  for (const from of [0, 30, 60]) {
    const { metadata } = await catalog.loadTable(ID);
    const files = await writeDataFiles({ session, query: rowsSql(from, 30), schema: currentSchema(metadata), specId: 0, dataLocation: dataLocation(metadata), io, properties: metadata.properties, writerName: 'test' });
    await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
  }
}

const target = (): RowOperationTarget => ({ catalog, identifier: ID, io, session });

async function scanRows(): Promise<Record<string, unknown>[]> {
  const { metadata } = await catalog.loadTable(ID);
  const rows = await openTableRows({ session, io, metadata });
  try {
    return await session.queryJson(`SELECT * FROM (${rows.sql}) ORDER BY id`);
  } finally {
    await rows.release();
  }
}

const expected = (sql: string): Promise<Record<string, unknown>[]> => session.queryJson(`SELECT * FROM (${sql}) ORDER BY id`);

/** The table's live delete files, and each vector's positions decoded from its Puffin file's bytes. */
async function liveDeletes(): Promise<{ deletes: DataFile[]; vectors: Map<string, number[]> }> {
  const { metadata } = await catalog.loadTable(ID);
  const snapshot = metadata.snapshots.find((s) => s.snapshotId === metadata.currentSnapshotId)!;
  const { deletes } = await liveFilesOf(io, snapshot);
  const vectors = new Map<string, number[]>();
  for (const { file } of deletes) {
    if (!isDeletionVector(file)) continue;
    const bytes = readFileSync(io.localPathFor(file.filePath)!);
    const footer = readPuffinFooter(bytes, file.filePath);
    const blob = footer.blobs.find((b) => b.offset === file.contentOffset)!;
    expect(blob).toMatchObject({ type: 'deletion-vector-v1', length: file.contentSizeInBytes, properties: { 'referenced-data-file': file.referencedDataFile, cardinality: String(file.recordCount) } });
    const at = Number(file.contentOffset);
    vectors.set(file.referencedDataFile!, [...decodeDeletionVector(bytes.subarray(at, at + Number(file.contentSizeInBytes)), file.filePath)].map(Number));
  }
  return { deletes: deletes.map((d) => d.file), vectors };
}

describe('deletion vectors on a v3 table', () => {
  it('deleteWhere writes one vector per data file, never a position delete file, and a second delete merges into the vector and removes the old one', async () => {
    await createV3();
    const first = await deleteWhere(target(), 'id % 10 = 3');
    expect(first.mode).toBe('merge-on-read');
    expect(first.snapshot?.summary).toMatchObject({ operation: 'delete', 'added-delete-files': '3', 'added-dvs': '3', 'added-position-deletes': '9', 'total-delete-files': '3', 'total-position-deletes': '9', 'total-records': '90' });
    expect(first.snapshot?.summary['added-position-delete-files']).toBeUndefined();
    let live = await liveDeletes();
    expect(live.deletes.every((file) => file.content === DataFileContent.PositionDeletes && file.fileFormat === 'PUFFIN')).toBe(true);
    expect([...live.vectors.values()].sort()).toEqual([[3, 13, 23], [3, 13, 23], [3, 13, 23]]);
    // The three vectors share one Puffin file.
    expect(new Set(live.deletes.map((file) => file.filePath)).size).toBe(1);

    // id 33 is deleted already: 5 and 34 are new, in the first two files.
    const second = await deleteWhere(target(), 'id IN (5, 33, 34)');
    expect(second.deletedRows).toBe(2n);
    expect(second.snapshot?.summary).toMatchObject({ 'added-dvs': '2', 'removed-dvs': '2', 'added-position-deletes': '8', 'removed-position-deletes': '6', 'total-delete-files': '3', 'total-position-deletes': '11' });
    live = await liveDeletes();
    expect(live.deletes).toHaveLength(3);
    expect([...live.vectors.values()].map((positions) => positions.join(',')).sort()).toEqual(['3,13,23', '3,4,13,23', '3,5,13,23']);
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id % 10 <> 3 AND id NOT IN (5, 33, 34)`));
  });

  it('removes a data file whole with its vector when every live row goes', async () => {
    await createV3();
    await deleteWhere(target(), 'id BETWEEN 0 AND 9');
    const whole = await deleteWhere(target(), 'id BETWEEN 10 AND 29');
    expect(whole.snapshot?.summary).toMatchObject({ 'deleted-data-files': '1', 'removed-dvs': '1', 'total-delete-files': '0', 'total-position-deletes': '0', 'total-data-files': '2' });
    expect((await liveDeletes()).deletes).toEqual([]);
    expect(await scanRows()).toEqual(await expected(rowsSql(30, 60)));
  });

  it('upserts: changed keys are deleted through vectors merged across batches, and the rows read back equal the model', async () => {
    await createV3();
    const upsertRows = async (sql: string): Promise<void> => {
      await upsert(target(), { keyColumns: ['id'], sourceQuery: sql });
    };
    await upsertRows(`${rowsSql(10, 5, 1)} UNION ALL ${rowsSql(90, 5, 1)}`);
    await upsertRows(rowsSql(12, 6, 2));
    const live = await liveDeletes();
    // File 0–29 has one vector: rows 10–17 of it deleted across the two batches.
    expect([...live.vectors.entries()].filter(([, positions]) => positions.length > 0).map(([, p]) => p)).toContainEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    expect(live.deletes.filter(isDeletionVector)).toHaveLength(live.vectors.size);
    expect(await scanRows()).toEqual(
      await expected(
        `SELECT * FROM (${rowsSql(0, 90)}) WHERE id NOT BETWEEN 10 AND 17 UNION ALL SELECT * FROM (${rowsSql(10, 2, 1)}) UNION ALL SELECT * FROM (${rowsSql(12, 6, 2)}) UNION ALL SELECT * FROM (${rowsSql(90, 5, 1)})`,
      ),
    );
  });

  it('keeps the first_row_id of the files a rewritten manifest carries over', async () => {
    await createV3();
    const firstRowIds = async (): Promise<Map<string, bigint | undefined>> => {
      const { metadata } = await catalog.loadTable(ID);
      const snapshot = metadata.snapshots.find((s) => s.snapshotId === metadata.currentSnapshotId)!;
      return new Map((await liveFilesOf(io, snapshot)).data.map(({ file }) => [file.filePath, file.firstRowId]));
    };
    // One commit of two files: one manifest, whose entries inherit ids 90 and 90 + rows of the first.
    const { metadata } = await catalog.loadTable(ID);
    const files = [
      ...(await writeDataFiles({ session, query: rowsSql(100, 10), schema: currentSchema(metadata), specId: 0, dataLocation: dataLocation(metadata), io, properties: metadata.properties, writerName: 'test' })),
      ...(await writeDataFiles({ session, query: rowsSql(200, 10), schema: currentSchema(metadata), specId: 0, dataLocation: dataLocation(metadata), io, properties: metadata.properties, writerName: 'test' })),
    ];
    await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
    const before = await firstRowIds();
    expect([...before.values()].sort((a, b) => (a! < b! ? -1 : 1))).toEqual([0n, 30n, 60n, 90n, 100n]);
    // Removing the first of the two rewrites their manifest: the second keeps id 100.
    await deleteWhere(target(), 'id BETWEEN 100 AND 109');
    const after = await firstRowIds();
    expect(after.size).toBe(4);
    for (const [path, id] of after) expect(id).toBe(before.get(path));
  });

  it('copy-on-write rewrites the file and removes its vector', async () => {
    await createV3();
    await deleteWhere(target(), 'id = 1');
    const { metadata } = await catalog.loadTable(ID);
    await catalog.commitTable(ID, [], [{ action: 'set-properties', updates: { 'write.delete.mode': 'copy-on-write' } }]);
    expect(metadata.formatVersion).toBe(3);
    const rewrite = await deleteWhere(target(), 'id = 2');
    expect(rewrite.mode).toBe('copy-on-write');
    expect(rewrite.snapshot?.summary).toMatchObject({ 'removed-dvs': '1', 'total-delete-files': '0', 'added-data-files': '1', 'deleted-data-files': '1' });
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id NOT IN (1, 2)`));
    // Row lineage: the rewritten file holds each kept row's id (first_row_id 0 + its old position)
    // and the sequence number of the append that wrote it, in the spec's reserved columns.
    const [added] = rewrite.addedDataFiles;
    const lineage = await session.queryJson(
      `SELECT id::INTEGER AS id, r::INTEGER AS row_id, s::INTEGER AS seq FROM read_parquet('${io.localPathFor(added!.filePath)}', schema = map {` +
        `1: {name: 'id', type: 'BIGINT', default_value: NULL}, 2147483540: {name: 'r', type: 'BIGINT', default_value: NULL}, 2147483539: {name: 's', type: 'BIGINT', default_value: NULL}}) ORDER BY id`,
    );
    expect(lineage).toEqual(Array.from({ length: 30 }, (_, id) => id).filter((id) => id !== 1 && id !== 2).map((id) => ({ id, row_id: id, seq: 1 })));
  });
});
