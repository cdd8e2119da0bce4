/**
 * Trino reads a table before and after Thund's maintenance: many small appends into a
 * bucket-partitioned table, a merge-on-read delete and an upsert (position deletes), then every
 * action (compaction, position delete rewrite, manifest rewrite, expiry to the last snapshot,
 * orphan removal). The rows Trino returns are the reference rows computed by DuckDB from the
 * source data each time, and Trino's `$snapshots` shows the compaction's replace snapshot as the
 * only one left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { MAINTENANCE_ACTIONS } from '../../src/app/commands/maintenance-actions.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import type { MaintenanceActionName } from '../../src/table/maintenance/maintenance-action.js';
import { upsert } from '../../src/table/upsert.js';
import { readWithTrino } from '../interop/trino.js';
import { startTrino, type RunningTrino } from '../stack/trino.js';
import { openLocalWarehouse, type LocalWarehouse } from '../unit/local-warehouse.js';
import { appendMany, createEvents, ID, maintenanceTarget, rowsSql } from '../unit/table/maintenance/maintenance-table.js';

const APPENDS = 12;
const ROWS = 50;

describe('trino reads a table before and after thund maintenance', () => {
  let warehouse: LocalWarehouse;
  let trino: RunningTrino;
  let reference: Array<[number, string, string]>;

  beforeAll(async () => {
    warehouse = await openLocalWarehouse({ prefix: 'trino-maintenance', namespaces: [['db']] });
    await createEvents(warehouse, {
      properties: { 'write.delete.mode': 'merge-on-read', 'write.update.mode': 'merge-on-read', 'write.merge.mode': 'merge-on-read' },
      partitionSpec: { specId: 0, fields: [{ sourceId: 1, fieldId: 1000, name: 'id_bucket', transform: 'bucket[4]' }] },
    });
    await appendMany(warehouse, APPENDS, ROWS);
    const target = maintenanceTarget(warehouse);
    await deleteWhere(target, 'id % 5 = 0');
    await upsert(target, { sourceQuery: rowsSql(100, 40, 1), keyColumns: ['id'] });
    const source = `SELECT * FROM (${rowsSql(0, APPENDS * ROWS)}) WHERE id % 5 <> 0 AND id NOT BETWEEN 100 AND 139 UNION ALL ${rowsSql(100, 40, 1)}`;
    reference = (await warehouse.session.queryJson(`SELECT id, grp, label FROM (${source}) ORDER BY id`)).map((row) => [Number(row['id']), String(row['grp']), String(row['label'])]);
    trino = await startTrino({ catalogs: { thund: { type: 'sqlite', catalogDb: `${warehouse.work}/catalog.db`, warehouse: pathToFileURL(warehouse.work).href, catalogName: 'default' } } });
  });

  afterAll(async () => {
    await trino?.stop();
    await warehouse?.close();
  });

  const trinoRows = async (): Promise<Array<[number, string, string]>> =>
    (await readWithTrino({ uri: trino.uri, catalog: 'thund', table: 'db.events' })).rows.map((row): [number, string, string] => [Number(row['id']), String(row['grp']), String(row['label'])]).sort((a, b) => a[0] - b[0]);

  it('returns the reference rows before and after every maintenance action, and only the compacted snapshot is left', async () => {
    expect(reference.length).toBeGreaterThan(400);
    expect(await trinoRows()).toEqual(reference);
    const order: MaintenanceActionName[] = ['compact', 'rewrite-position-deletes', 'rewrite-manifests', 'expire-snapshots', 'remove-orphans'];
    for (const action of order) await (MAINTENANCE_ACTIONS.get(action) as NonNullable<ReturnType<typeof MAINTENANCE_ACTIONS.get>>)(maintenanceTarget(warehouse), { olderThanMs: 0, retainLast: 1 });
    expect(await trinoRows()).toEqual(reference);
    const after = await readWithTrino({ uri: trino.uri, catalog: 'thund', table: 'db.events' });
    expect(after.snapshots.map((s) => s.operation)).toEqual(['replace']);
    const { metadata } = await warehouse.catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(1);
  });
});
