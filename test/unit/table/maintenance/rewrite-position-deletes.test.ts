/**
 * Position delete rewrite: on v2 the small position delete files of a partition become one
 * holding only positions of live data files; on a table upgraded to v3 they become deletion
 * vectors. The rows read back are the same; dry runs change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataFileContent, isDeletionVector } from '../../../../src/iceberg/data-file.js';
import { currentSnapshot } from '../../../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../../../src/table/delete-where.js';
import { commitDeleteRewrite, prepareDeleteRewrite, rewritePositionDeletes } from '../../../../src/table/maintenance/rewrite-position-deletes.js';
import { openLocalWarehouse, type LocalWarehouse } from '../../local-warehouse.js';
import { append, appendMany, createEvents, ID, liveFiles, maintenanceTarget, rowsSql, scanRows } from './maintenance-table.js';

let warehouse: LocalWarehouse;
beforeEach(async () => (warehouse = await openLocalWarehouse({ prefix: 'rewrite-deletes', namespaces: [['db']] })));
afterEach(() => warehouse.close());

const rowTarget = () => ({ catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session });

describe('rewrite-position-deletes', () => {
  beforeEach(async () => {
    await createEvents(warehouse);
    await appendMany(warehouse, 4, 25);
    for (const id of [3, 30, 31, 77]) await deleteWhere(rowTarget(), `id = ${id}`);
  });

  it('v2: merges the position delete files into one with the same positions', async () => {
    const before = await scanRows(warehouse);
    expect((await liveFiles(warehouse)).deletes).toHaveLength(4);
    const dry = await rewritePositionDeletes(maintenanceTarget(warehouse, true));
    expect(dry.summary).toBe('rewrite-position-deletes (dry run): would rewrite 4 position delete files into files');
    expect((await liveFiles(warehouse)).deletes).toHaveLength(4);

    const outcome = await rewritePositionDeletes(maintenanceTarget(warehouse));
    expect(outcome.summary).toBe('rewrite-position-deletes: 4 position delete files → 1 files');
    const { metadata } = await warehouse.catalog.loadTable(ID);
    expect(currentSnapshot(metadata)!.summary).toMatchObject({ operation: 'replace', 'total-delete-files': '1', 'total-position-deletes': '4' });
    const { deletes } = await liveFiles(warehouse);
    expect(deletes.map((d) => d.file.content)).toEqual([DataFileContent.PositionDeletes]);
    expect(await scanRows(warehouse)).toEqual(before);
    expect((await rewritePositionDeletes(maintenanceTarget(warehouse))).summary).toBe('rewrite-position-deletes: nothing to rewrite');
  });

  it('v3: turns the position delete files into one deletion vector per data file', async () => {
    await warehouse.catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    const before = await scanRows(warehouse);
    const outcome = await rewritePositionDeletes(maintenanceTarget(warehouse));
    expect(outcome.summary).toBe('rewrite-position-deletes: 4 position delete files → 3 deletion vectors');
    const { deletes } = await liveFiles(warehouse);
    expect(deletes).toHaveLength(3);
    expect(deletes.every((d) => isDeletionVector(d.file))).toBe(true);
    expect(await scanRows(warehouse)).toEqual(before);
  });

  it.each(['2', '3'])('v%s: an append between plan and commit survives', async (version) => {
    if (version === '3') await warehouse.catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    const prepared = (await prepareDeleteRewrite(maintenanceTarget(warehouse)))!;
    await append(warehouse, rowsSql(500, 5));
    const before = await scanRows(warehouse);
    await commitDeleteRewrite(maintenanceTarget(warehouse), prepared);
    expect(await scanRows(warehouse)).toEqual(before);
  });

  it.each(['2', '3'])('v%s: a delete from a data file the rewrite touches, between plan and commit, is a conflict', async (version) => {
    if (version === '3') await warehouse.catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    const prepared = (await prepareDeleteRewrite(maintenanceTarget(warehouse)))!;
    // ids 25–49 are one data file, which has position deletes (30, 31).
    await deleteWhere(rowTarget(), 'id = 41');
    const before = await scanRows(warehouse);
    const error = await commitDeleteRewrite(maintenanceTarget(warehouse), prepared).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'COMPACTION_CONFLICT' });
    expect(await scanRows(warehouse)).toEqual(before);
    expect(before.some((row) => row['id'] === 41)).toBe(false);
  });
});
