/**
 * Compaction read by independent readers, and against Spark's concurrent commits: a table of
 * small appends with position deletes, compacted by Thund, reads the same rows in pyiceberg and
 * Spark; a Spark INSERT committed between the compaction's plan and its commit survives; a Spark
 * DELETE committed there (copy-on-write: the data file is rewritten; merge-on-read: a position
 * delete file) ends the compaction with COMPACTION_CONFLICT and the deleted row stays deleted.
 * "During" is the plan/commit split of compact.ts: plan and write, run the Spark statement, commit.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { currentSnapshot } from '../../src/iceberg/snapshot-ancestry.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import { commitCompaction, compact, prepareCompaction } from '../../src/table/maintenance/compact.js';
import { openLocalWarehouse, type LocalWarehouse } from '../unit/local-warehouse.js';
import { appendMany, createEvents, ID, liveFiles, maintenanceTarget, scanRows } from '../unit/table/maintenance/maintenance-table.js';
import { readWithPyiceberg } from './pyiceberg.js';
import { SparkV3Session } from './spark-v3.js';

let warehouse: LocalWarehouse;
let spark: SparkV3Session;

beforeAll(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'compact-interop', namespaces: [['db']] });
  const catalogDb = path.join(warehouse.work, 'catalog.db');
  spark = await SparkV3Session.start({ catalogDb, warehouse: pathToFileURL(warehouse.work).href, log: path.join(warehouse.work, 'spark.log') });
}, 1_200_000);
afterAll(async () => {
  await spark?.stop();
  await warehouse?.close();
});

beforeEach(async () => {
  await warehouse.catalog.dropTable(ID).catch(() => undefined);
});
afterEach(async () => {
  await warehouse.catalog.dropTable(ID).catch(() => undefined);
});

const rowTarget = () => ({ catalog: warehouse.catalog, identifier: ID, io: warehouse.io, session: warehouse.session });

async function seed(properties: Record<string, string> = {}): Promise<void> {
  await createEvents(warehouse, { properties });
  await appendMany(warehouse, 8, 25);
  await deleteWhere(rowTarget(), 'id % 6 = 0');
}

const ids = (rows: readonly Record<string, unknown>[]): number[] => rows.map((row) => Number(row['id'])).sort((a, b) => a - b);

async function pyicebergIds(): Promise<number[]> {
  const table = await readWithPyiceberg({ catalogDb: path.join(warehouse.work, 'catalog.db'), warehouse: pathToFileURL(warehouse.work).href, catalogName: 'default', table: 'db.events' });
  return ids(table.rows);
}

async function sparkIds(): Promise<number[]> {
  return ids((await spark.query(`SELECT id FROM ${spark.table('db.events')}`)).rows);
}

describe('compaction with independent readers and Spark writers', () => {
  it('pyiceberg and Spark read the same rows after a compaction of files with position deletes', async () => {
    await seed();
    const before = ids(await scanRows(warehouse));
    expect(before).toHaveLength(200 - 34);
    const outcome = await compact(maintenanceTarget(warehouse));
    expect(outcome.counts).toMatchObject({ dataFilesIn: 8, dataFilesOut: 1, deleteFilesRemoved: 1 });
    expect((await liveFiles(warehouse)).deletes).toEqual([]);
    expect(await pyicebergIds()).toEqual(before);
    expect(await sparkIds()).toEqual(before);
  }, 600_000);

  it('a Spark INSERT committed during a compaction survives it', async () => {
    await seed();
    const before = ids(await scanRows(warehouse));
    const prepared = await prepareCompaction(maintenanceTarget(warehouse));
    await spark.sql(`INSERT INTO ${spark.table('db.events')} VALUES (1000, 'g1', 'spark'), (1001, 'g2', 'spark')`);
    await commitCompaction(maintenanceTarget(warehouse), prepared);
    expect(currentSnapshot((await warehouse.catalog.loadTable(ID)).metadata)!.summary.operation).toBe('replace');
    const want = [...before, 1000, 1001];
    expect(ids(await scanRows(warehouse))).toEqual(want);
    expect(await pyicebergIds()).toEqual(want);
    expect(await sparkIds()).toEqual(want);
  }, 600_000);

  it.each(['copy-on-write', 'merge-on-read'])('a Spark DELETE (%s) committed during a compaction makes it fail, and no deleted row comes back', async (mode) => {
    await seed({ 'write.delete.mode': mode });
    const prepared = await prepareCompaction(maintenanceTarget(warehouse));
    await spark.sql(`DELETE FROM ${spark.table('db.events')} WHERE id IN (7, 133)`);
    const error = await commitCompaction(maintenanceTarget(warehouse), prepared).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'COMPACTION_CONFLICT' });
    const after = ids(await scanRows(warehouse));
    expect(after).not.toContain(7);
    expect(after).not.toContain(133);
    expect(await pyicebergIds()).toEqual(after);
    expect(await sparkIds()).toEqual(after);
    // Planned again, the compaction goes through and the rows stay deleted.
    await compact(maintenanceTarget(warehouse));
    expect(await sparkIds()).toEqual(after);
  }, 600_000);
});
