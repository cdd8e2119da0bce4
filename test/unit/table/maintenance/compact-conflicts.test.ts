/**
 * Commits between a compaction's plan and its commit: an append survives (the compaction is
 * committed on top of it); a delete from a rewritten file, or its removal, ends the compaction
 * with COMPACTION_CONFLICT, removes the files it wrote, and the deleted row stays deleted.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromFileUri } from '../../../../connectors/storage/local-file-io.js';
import { CompactionConflictError } from '../../../../src/errors.js';
import { currentSnapshot } from '../../../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../../../src/table/delete-where.js';
import { commitCompaction, prepareCompaction } from '../../../../src/table/maintenance/compact.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../local-warehouse.js';
import { append, appendMany, createEvents, ID, liveFiles, maintenanceTarget, rowsSql, scanRows } from './maintenance-table.js';

let warehouse: LocalWarehouse;
beforeEach(async () => (warehouse = await openLocalWarehouse({ prefix: 'compact-conflict', namespaces: [['db']] })));
afterEach(() => warehouse.close());

const rowTarget = () => ({ catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session });

describe.each(['2', '3'])('compaction against concurrent commits (v%s)', (formatVersion) => {
  beforeEach(async () => {
    await createEvents(warehouse, { properties: { 'format-version': formatVersion } });
    await appendMany(warehouse, 6, 20);
    await deleteWhere(rowTarget(), 'id % 9 = 0');
  });

  it('an append committed between plan and commit survives', async () => {
    const prepared = await prepareCompaction(maintenanceTarget(warehouse));
    const appended = await append(warehouse, rowsSql(500, 10));
    const outcome = await commitCompaction(maintenanceTarget(warehouse), prepared);
    expect(outcome.counts).toMatchObject({ dataFilesIn: 6, dataFilesOut: 1 });
    const { metadata } = await warehouse.catalog.loadTable(ID);
    expect(currentSnapshot(metadata)!.summary.operation).toBe('replace');
    const live = await liveFiles(warehouse);
    expect(live.data.map((d) => d.file.filePath).sort()).toEqual([...prepared.addedDataFiles, ...appended].map((f) => f.filePath).sort());
    const rows = await scanRows(warehouse);
    expect(rows.map((row) => row['id'])).toEqual([...Array.from({ length: 120 }, (_, id) => id).filter((id) => id % 9 !== 0), ...Array.from({ length: 10 }, (_, i) => 500 + i)]);
  });

  it('a delete from a rewritten file committed between plan and commit is a conflict and no deleted row comes back', async () => {
    const prepared = await prepareCompaction(maintenanceTarget(warehouse));
    await deleteWhere(rowTarget(), 'id = 10');
    const before = await scanRows(warehouse);
    const error = await commitCompaction(maintenanceTarget(warehouse), prepared).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompactionConflictError);
    expect(error).toMatchObject({ code: 'COMPACTION_CONFLICT', retryable: false });
    expect((error as Error).message).toMatch(/^compact of db\.events conflicts with a concurrent commit: .*delete file/);
    expect(await scanRows(warehouse)).toEqual(before);
    expect(before.some((row) => row['id'] === 10)).toBe(false);
    for (const file of prepared.addedDataFiles) expect(existsSync(fromFileUri(file.filePath))).toBe(false);
  });

  it('a rewritten file removed between plan and commit is a conflict', async () => {
    const prepared = await prepareCompaction(maintenanceTarget(warehouse));
    // Every live row of the first file (ids 0–19) goes: the file is removed whole.
    await deleteWhere(rowTarget(), 'id < 20');
    const error = await commitCompaction(maintenanceTarget(warehouse), prepared).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'COMPACTION_CONFLICT' });
    expect((await scanRows(warehouse)).some((row) => Number(row['id']) < 20)).toBe(false);
  });
});
