/**
 * Compaction on the embedded catalog with local files: many small appends with position
 * deletes, deletion vectors (v3) and equality deletes are rewritten into few files holding the
 * same live rows (read back through Thund's scan), the delete files go with them, row lineage
 * stays, sort order and spec evolution are honoured; dry runs change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromFileUri } from '../../../../connectors/storage/local-file-io.js';
import { isDeletionVector } from '../../../../src/iceberg/data-file.js';
import { currentSnapshot } from '../../../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../../../src/table/delete-where.js';
import { compact } from '../../../../src/table/maintenance/compact.js';
import { upsert } from '../../../../src/table/upsert.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../local-warehouse.js';
import { append, appendMany, createEvents, equalityDelete, ID, lineageRows, liveFiles, maintenanceTarget, rowsSql, scanRows } from './maintenance-table.js';

let warehouse: LocalWarehouse;
beforeEach(async () => (warehouse = await openLocalWarehouse({ prefix: 'compact', namespaces: [['db']] })));
afterEach(() => warehouse.close());

const rowTarget = () => ({ catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session });

describe('compact', () => {
  it('v2: rewrites 12 small files with position and equality deletes into one file of the live rows and drops the delete files', async () => {
    await createEvents(warehouse);
    await appendMany(warehouse, 12, 50);
    await deleteWhere(rowTarget(), 'id % 7 = 0');
    await equalityDelete(warehouse, [1, 2, 3, 599]);
    const before = await scanRows(warehouse);
    expect(before).toHaveLength(600 - 86 - 4);
    const start = currentSnapshot((await warehouse.catalog.loadTable(ID)).metadata)!;

    const dry = await compact(maintenanceTarget(warehouse, true));
    expect(dry).toMatchObject({ action: 'compact', dryRun: true, counts: { partitions: 1, dataFilesIn: 12, estimatedFilesOut: 1 } });
    expect(dry.summary).toMatch(/^compact \(dry run\): would rewrite 12 files \(.+\) in 1 partition into about 1 files/);
    expect(currentSnapshot((await warehouse.catalog.loadTable(ID)).metadata)!.snapshotId).toBe(start.snapshotId);

    const outcome = await compact(maintenanceTarget(warehouse));
    expect(outcome.counts).toMatchObject({ partitions: 1, dataFilesIn: 12, dataFilesOut: 1, rowsOut: before.length });
    expect(outcome.summary).toMatch(/^compact: 12 files \(.+\) → 1 files \(.+\) in 1 partition, \d+ delete files removed$/);
    const { metadata } = await warehouse.catalog.loadTable(ID);
    const snapshot = currentSnapshot(metadata)!;
    expect(snapshot.snapshotId).toBe(outcome.snapshotId);
    expect(snapshot.summary).toMatchObject({ operation: 'replace', 'added-data-files': '1', 'deleted-data-files': '12', 'total-delete-files': '0', 'total-data-files': '1', 'total-records': String(before.length) });
    const live = await liveFiles(warehouse);
    expect(live.deletes).toEqual([]);
    expect(live.data).toHaveLength(1);
    // The new file carries the sequence number of the snapshot compaction read.
    expect(live.data[0]!.dataSequenceNumber).toBe(start.sequenceNumber);
    expect(await scanRows(warehouse)).toEqual(before);

    // An equality delete committed after the compaction applies to the rewritten rows.
    await equalityDelete(warehouse, [4, 5]);
    expect(await scanRows(warehouse)).toEqual(before.filter((row) => row['id'] !== 4 && row['id'] !== 5));
    // The one file has deletes now: compacting again applies them, then nothing is left to do.
    expect((await compact(maintenanceTarget(warehouse))).counts).toMatchObject({ dataFilesIn: 1, dataFilesOut: 1, deleteFilesRemoved: 1 });
    expect((await liveFiles(warehouse)).deletes).toEqual([]);
    expect(await scanRows(warehouse)).toEqual(before.filter((row) => row['id'] !== 4 && row['id'] !== 5));
    expect((await compact(maintenanceTarget(warehouse))).summary).toBe('compact: nothing to compact');
  });

  it('v3: deletion vectors are applied, rows keep their ids and last updated sequence numbers', async () => {
    await createEvents(warehouse, { properties: { 'format-version': '3' } });
    await appendMany(warehouse, 6, 40);
    await deleteWhere(rowTarget(), 'id % 5 = 1');
    await upsert(rowTarget(), { keyColumns: ['id'], sourceQuery: rowsSql(100, 10, 1) });
    await equalityDelete(warehouse, [7, 8]);
    expect((await liveFiles(warehouse)).deletes.some((d) => isDeletionVector(d.file))).toBe(true);
    const before = await scanRows(warehouse);
    const lineage = await lineageRows(warehouse);

    const outcome = await compact(maintenanceTarget(warehouse), { minInputFiles: 2 });
    expect(outcome.counts['dataFilesOut']).toBe(1);
    expect(await scanRows(warehouse)).toEqual(before);
    expect(await lineageRows(warehouse)).toEqual(lineage);
    expect((await liveFiles(warehouse)).deletes).toEqual([]);
  });

  it('bin-packs each partition into files of the target size: files per partition ≤ ceil(bytes / target) + 1', async () => {
    const spec = { specId: 0, fields: [{ sourceId: 2, fieldId: 1000, name: 'grp', transform: 'identity' }] };
    await createEvents(warehouse, { partitionSpec: spec, properties: { 'write.target-file-size-bytes': '16384' } });
    for (let i = 0; i < 10; i++) await append(warehouse, rowsSql(i * 2000, 2000));
    await deleteWhere(rowTarget(), 'id % 11 = 0');
    const before = await scanRows(warehouse);

    const outcome = await compact(maintenanceTarget(warehouse));
    expect(outcome.counts['partitions']).toBe(3);
    expect(await scanRows(warehouse)).toEqual(before);
    const live = await liveFiles(warehouse);
    expect(live.deletes).toEqual([]);
    const byGroup = new Map<string, { files: number; bytes: bigint }>();
    for (const { file } of live.data) {
      const key = String(file.partition.get(1000));
      const entry = byGroup.get(key) ?? { files: 0, bytes: 0n };
      byGroup.set(key, { files: entry.files + 1, bytes: entry.bytes + file.fileSizeInBytes });
      expect(file.filePath).toContain(`/grp=${key}/`);
    }
    expect([...byGroup.keys()].sort()).toEqual(['g0', 'g1', 'g2']);
    for (const { files, bytes } of byGroup.values()) expect(files).toBeLessThanOrEqual(Math.ceil(Number(bytes) / 16384) + 1);
  });

  it('takes min-input-files from the table property when no option says, and refuses a bad one naming it', async () => {
    await createEvents(warehouse, { properties: { 'thund.maintenance.compact.min-input-files': '3' } });
    for (let i = 0; i < 2; i++) await append(warehouse, rowsSql(i * 10, 10));
    expect((await compact(maintenanceTarget(warehouse))).snapshotId).toBeUndefined();
    await append(warehouse, rowsSql(20, 10));
    const before = await scanRows(warehouse);
    expect((await compact(maintenanceTarget(warehouse))).counts['dataFilesIn']).toBe(3);
    expect(await scanRows(warehouse)).toEqual(before);
    // The option wins over the property.
    for (let i = 3; i < 6; i++) await append(warehouse, rowsSql(i * 10, 10));
    expect((await compact(maintenanceTarget(warehouse), { minInputFiles: 10 })).snapshotId).toBeUndefined();
    await warehouse.catalog.commitTable(ID, [], [{ action: 'set-properties', updates: { 'thund.maintenance.compact.min-input-files': 'many' } }]);
    await expect(compact(maintenanceTarget(warehouse))).rejects.toThrow('min-input-files (option or table property thund.maintenance.compact.min-input-files) must be a positive integer (got NaN)');
  });

  it('rewrites files of an older spec into the current spec only when asked', async () => {
    await createEvents(warehouse);
    await appendMany(warehouse, 3, 30);
    await warehouse.catalog.commitTable(ID, [], [
      { action: 'add-spec', spec: { specId: -1, fields: [{ name: 'grp', transform: 'identity', sourceId: 2, fieldId: 1000 }] } },
      { action: 'set-default-spec', specId: -1 },
    ]);
    await append(warehouse, rowsSql(90, 30));
    await append(warehouse, rowsSql(120, 30));
    const before = await scanRows(warehouse);

    // Two small files per new partition, three in the old spec: nothing reaches five files.
    expect((await compact(maintenanceTarget(warehouse))).summary).toBe('compact: nothing to compact');
    const outcome = await compact(maintenanceTarget(warehouse), { includeOlderSpecs: true, minInputFiles: 2 });
    // The old spec's files are partitioned again (three files), each new partition's two become one.
    expect(outcome.counts).toMatchObject({ partitions: 4, dataFilesIn: 9, dataFilesOut: 6 });
    expect((await liveFiles(warehouse)).data.every((live) => live.file.specId === 1)).toBe(true);
    expect(await scanRows(warehouse)).toEqual(before);
    expect((await compact(maintenanceTarget(warehouse), { minInputFiles: 2 })).counts).toMatchObject({ partitions: 3, dataFilesIn: 6, dataFilesOut: 3 });
    const { data } = await liveFiles(warehouse);
    expect(data.map((live) => String(live.file.partition.get(1000))).sort()).toEqual(['g0', 'g1', 'g2']);
    expect(await scanRows(warehouse)).toEqual(before);
  });

  it('writes the rows in the table sort order', async () => {
    await createEvents(warehouse, { properties: { 'format-version': '2' } });
    await warehouse.catalog.commitTable(ID, [], [
      { action: 'add-sort-order', sortOrder: { orderId: 1, fields: [{ sourceId: 3, transform: 'identity', direction: 'desc', nullOrder: 'nulls-last' }] } },
      { action: 'set-default-sort-order', sortOrderId: -1 },
    ]);
    for (let i = 0; i < 5; i++) await append(warehouse, rowsSql(i * 20, 20));
    await compact(maintenanceTarget(warehouse));
    const { data } = await liveFiles(warehouse);
    expect(data).toHaveLength(1);
    const labels = (await warehouse.session.queryJson(`SELECT label FROM read_parquet('${fromFileUri(data[0]!.file.filePath)}')`)).map((row) => String(row['label']));
    expect(labels).toHaveLength(100);
    expect(labels).toEqual([...labels].sort().reverse());
  });
});
