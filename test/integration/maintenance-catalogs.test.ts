/**
 * Every maintenance action through every catalog: the embedded SQL catalog (local files), Glue
 * (moto, files in MinIO) and REST (the Iceberg REST fixture and Project Nessie, files in MinIO).
 * A table of many small appends with rows deleted (position deletes) is compacted, its position
 * deletes and manifests rewritten, its history expired to the last snapshot and its orphans
 * removed: the rows read back are the same at every step, and afterwards the files stored under
 * the table's location are exactly the ones its metadata reaches. Nessie's tables have
 * gc.enabled=false, which refuses expiry and orphan removal there.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_ACTIONS } from '../../src/app/commands/maintenance-actions.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { deleteWhere } from '../../src/table/delete-where.js';
import type { MaintenanceActionName, MaintenanceTarget } from '../../src/table/maintenance/maintenance-action.js';
import { ManifestCache } from '../../src/table/maintenance/reachable-files.js';
import { locationKey } from '../../src/table/maintenance/location-key.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { glueCatalogUnderTest, restCatalogUnderTest, sqlCatalogUnderTest, type CatalogFactory, type CatalogUnderTest } from './behaviour/catalogs-under-test.js';
import { appendIds, SCHEMA } from './behaviour/table-rows.js';
import { REST_SERVERS } from './rest-support/rest-servers.js';

const RUN = randomUUID().replaceAll('-', '').slice(0, 8);
let tables = 0;

function maintenanceBehaviour(factory: CatalogFactory): void {
  let under: CatalogUnderTest;
  let session: DuckDbSession;
  beforeAll(async () => {
    under = await factory();
    session = await DuckDbSession.open({ threads: 1 });
  });
  afterAll(async () => {
    session?.close();
    await under?.close();
  });

  it('compacts, rewrites deletes and manifests, expires and removes orphans: same rows, and only reachable files stay', async () => {
    const { catalog, io } = under;
    const namespace = [`maint_${RUN}_${(tables += 1)}`];
    await catalog.createNamespace(namespace);
    const identifier = { namespace, name: 'events' };
    await catalog.createTable(identifier, { schema: SCHEMA, properties: { 'write.delete.mode': 'merge-on-read' } });
    for (let i = 0; i < 8; i += 1) await appendIds(catalog, io, identifier, i * 100, 100);
    const target: MaintenanceTarget = { catalog, identifier, io, session, dryRun: false };
    await deleteWhere(target, 'id % 7 = 0');
    const ids = async (): Promise<number[]> => {
      const { metadata } = await catalog.loadTable(identifier);
      const rows = await openTableRows({ session, io, metadata });
      try {
        return (await session.queryJson(`SELECT id FROM (${rows.sql}) ORDER BY id`)).map((row) => Number(row['id']));
      } finally {
        await rows.release();
      }
    };
    const expected = Array.from({ length: 800 }, (_, id) => id).filter((id) => id % 7 !== 0);
    expect(await ids()).toEqual(expected);

    const flags = { olderThanMs: 0, retainLast: 1 };
    const order: MaintenanceActionName[] = ['compact', 'rewrite-position-deletes', 'rewrite-manifests', 'expire-snapshots', 'remove-orphans'];
    // Nessie makes its tables with gc.enabled=false (branches share files): nothing may be deleted.
    const gcOff = (await catalog.loadTable(identifier)).metadata.properties['gc.enabled'] === 'false';
    const summaries: string[] = [];
    for (const action of order) {
      const run = (MAINTENANCE_ACTIONS.get(action) as NonNullable<ReturnType<typeof MAINTENANCE_ACTIONS.get>>)(target, flags);
      if (gcOff && (action === 'expire-snapshots' || action === 'remove-orphans')) await expect(run).rejects.toThrow('its property gc.enabled is false');
      else summaries.push((await run).summary);
      expect(await ids()).toEqual(expected);
    }
    expect(summaries[0]).toMatch(/^compact: 8 files .* → 1 files/);
    if (gcOff) {
      await catalog.dropTable(identifier, true);
      await catalog.dropNamespace(namespace);
      return;
    }

    const { metadata } = await catalog.loadTable(identifier);
    if (under.differences?.currentSnapshotOnly !== true) expect(metadata.snapshots).toHaveLength(1);
    const reachable = await new ManifestCache(io).reachableFrom(metadata.snapshots, { strict: true, liveOnly: true });
    const reached = new Set([...reachable.manifestLists.keys(), ...reachable.manifests.keys(), ...reachable.contentFiles.keys()]);
    const stored = (await under.filesUnder(metadata.location)).map((relative) => locationKey(`${metadata.location.replace(/\/$/, '')}/${relative}`));
    // Metadata JSON files the catalog keeps in its log are reachable too; everything stored is reached.
    expect(stored.filter((file) => !reached.has(file) && !file.endsWith('.metadata.json'))).toEqual([]);
    // And every file the metadata reaches is stored: nothing reachable was deleted.
    expect(stored.filter((file) => reached.has(file))).toHaveLength(reached.size);
    expect(reached.size).toBeGreaterThanOrEqual(3);
    await catalog.dropTable(identifier, true);
    await catalog.dropNamespace(namespace);
  });
}

describe('maintenance through SqlCatalog (SQLite, local warehouse)', () => maintenanceBehaviour(sqlCatalogUnderTest));
describe('maintenance through GlueCatalog (moto Glue, MinIO)', () => maintenanceBehaviour(glueCatalogUnderTest));
describe.each(REST_SERVERS)('maintenance through RestCatalog ($name, MinIO)', (server) => maintenanceBehaviour(restCatalogUnderTest(server)));
