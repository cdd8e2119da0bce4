/**
 * One behaviour suite for every Catalog implementation: call `catalogBehaviour(factory)` inside a
 * describe. Names are lower-case letters, digits and '_' (Glue's rule) and unique per run, so
 * the suite can share a long-running catalog with other tests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import {
  AlreadyExistsError,
  CommitConflictError,
  InvalidInputError,
  NoSuchNamespaceError,
  NoSuchTableError,
  ThundError,
} from '../../../src/errors.js';
import type { CatalogFactory, CatalogUnderTest } from './catalogs-under-test.js';
import { appendIds, countRows, SCHEMA } from './table-rows.js';

const RUN = randomUUID().slice(0, 8);

/** 0 + 1 + … + (n - 1). */
const idSum = (n: number): number => (n * (n - 1)) / 2;

export function catalogBehaviour(factory: CatalogFactory): void {
  let under: CatalogUnderTest;
  let namespaces = 0;
  const fresh = (what: string): string[] => [`beh_${what}_${RUN}_${(namespaces += 1)}`];

  beforeAll(async () => {
    under = await factory();
  });

  afterAll(async () => {
    await under?.close();
  });

  it('creates, finds, lists, describes, updates and drops namespaces', async () => {
    const { catalog } = under;
    const ns = fresh('ns');
    expect(await catalog.namespaceExists(ns)).toBe(false);
    await catalog.createNamespace(ns, { owner: 'thund', purpose: 'behaviour' });
    expect(await catalog.namespaceExists(ns)).toBe(true);
    expect(await catalog.listNamespaces()).toContainEqual(ns);
    await expect(catalog.createNamespace(ns)).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(await catalog.loadNamespaceProperties(ns)).toMatchObject({ owner: 'thund', purpose: 'behaviour' });

    await catalog.updateNamespaceProperties(ns, ['purpose'], { owner: 'ops', team: 'lake' });
    const updated = await catalog.loadNamespaceProperties(ns);
    expect(updated).toMatchObject({ owner: 'ops', team: 'lake' });
    expect(updated).not.toHaveProperty('purpose');
    await expect(catalog.updateNamespaceProperties(ns, ['team'], { team: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    expect(await catalog.loadNamespaceProperties(ns)).toMatchObject({ owner: 'ops', team: 'lake' });

    const missing = fresh('missing');
    await expect(catalog.loadNamespaceProperties(missing)).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(catalog.updateNamespaceProperties(missing, [], { a: 'b' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await catalog.dropNamespace(ns);
    expect(await catalog.namespaceExists(ns)).toBe(false);
    expect(await catalog.listNamespaces()).not.toContainEqual(ns);
    await expect(catalog.dropNamespace(ns)).rejects.toBeInstanceOf(NoSuchNamespaceError);
  });

  it('creates, finds, lists and loads tables; refuses duplicates and non-empty namespace drops; reports missing tables', async () => {
    const { catalog, io } = under;
    const ns = fresh('tables');
    await catalog.createNamespace(ns);
    const id = { namespace: ns, name: 'events' };
    expect(await catalog.tableExists(id)).toBe(false);
    const created = await catalog.createTable(id, { schema: SCHEMA, properties: { 'created-by': 'behaviour' } });
    expect(await catalog.tableExists(id)).toBe(true);
    expect(await catalog.listTables(ns)).toEqual([id]);
    expect(await io.exists(created.metadataLocation)).toBe(true);

    const loaded = await catalog.loadTable(id);
    expect(loaded.metadataLocation).toBe(created.metadataLocation);
    expect(loaded.metadata.tableUuid).toBe(created.metadata.tableUuid);
    expect(loaded.metadata.properties['created-by']).toBe('behaviour');
    const schema = loaded.metadata.schemas.find((s) => s.schemaId === loaded.metadata.currentSchemaId);
    expect(schema?.fields.map((f) => [f.id, f.name, f.type])).toEqual(SCHEMA.fields.map((f) => [f.id, f.name, f.type]));

    await expect(catalog.createTable(id, { schema: SCHEMA })).rejects.toBeInstanceOf(AlreadyExistsError);
    const absent = { namespace: ns, name: 'absent' };
    expect(await catalog.tableExists(absent)).toBe(false);
    const error = await catalog.loadTable(absent).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoSuchTableError);
    expect((error as NoSuchTableError).message).toContain('absent');

    const notEmpty = await catalog.dropNamespace(ns).catch((e: unknown) => e);
    expect(notEmpty).toBeInstanceOf(ThundError);
    expect((notEmpty as ThundError).code).toBe('NAMESPACE_NOT_EMPTY');
    expect(await catalog.namespaceExists(ns)).toBe(true);

    await catalog.dropTable(id, true);
    await catalog.dropNamespace(ns);
  });

  it('rejects stale requirements with CommitConflictError and leaves the table unchanged', async () => {
    const { catalog } = under;
    const ns = fresh('stale');
    await catalog.createNamespace(ns);
    const id = { namespace: ns, name: 'guarded' };
    const created = await catalog.createTable(id, { schema: SCHEMA });
    const set = (value: string) => [{ action: 'set-properties' as const, updates: { marker: value } }];

    await expect(catalog.commitTable(id, [{ type: 'assert-table-uuid', uuid: randomUUID() }], set('a'))).rejects.toBeInstanceOf(
      CommitConflictError,
    );
    await expect(
      catalog.commitTable(id, [{ type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: 123456789n }], set('b')),
    ).rejects.toBeInstanceOf(CommitConflictError);
    await expect(catalog.commitTable(id, [{ type: 'assert-current-schema-id', currentSchemaId: 7 }], set('c'))).rejects.toBeInstanceOf(
      CommitConflictError,
    );
    const unchanged = await catalog.loadTable(id);
    expect(unchanged.metadataLocation).toBe(created.metadataLocation);
    expect(unchanged.metadata.properties['marker']).toBeUndefined();

    const committed = await catalog.commitTable(id, [{ type: 'assert-table-uuid', uuid: created.metadata.tableUuid }], set('d'));
    expect(committed.metadataLocation).not.toBe(created.metadataLocation);
    expect((await catalog.loadTable(id)).metadata.properties['marker']).toBe('d');
    await catalog.dropTable(id, true);
    await catalog.dropNamespace(ns);
  });

  it('appends snapshots through commitSnapshot; the manifests and DuckDB agree on the rows', async () => {
    const { catalog, io } = under;
    const ns = fresh('append');
    await catalog.createNamespace(ns);
    const id = { namespace: ns, name: 'numbers' };
    await catalog.createTable(id, { schema: SCHEMA });
    const first = await appendIds(catalog, io, id, 0, 1000);
    const second = await appendIds(catalog, io, id, 1000, 500);
    expect(second.snapshot.parentSnapshotId).toBe(first.snapshot.snapshotId);

    const table = await catalog.loadTable(id);
    expect(table.metadata.currentSnapshotId).toBe(second.snapshot.snapshotId);
    const history = under.differences?.currentSnapshotOnly === true ? [second] : [first, second];
    expect(table.metadata.snapshots.map((s) => s.snapshotId)).toEqual(history.map((commit) => commit.snapshot.snapshotId));
    expect(await countRows(table, io)).toEqual({ manifestRows: 1500n, rows: 1500, distinctIds: 1500, idSum: idSum(1500) });
    await catalog.dropTable(id, true);
    await catalog.dropNamespace(ns);
  });

  it('registers a table from its metadata file, which then takes commits; refuses a taken name', async () => {
    const { catalog, io } = under;
    const ns = fresh('register');
    await catalog.createNamespace(ns);
    const id = { namespace: ns, name: 'original' };
    await catalog.createTable(id, { schema: SCHEMA });
    await appendIds(catalog, io, id, 0, 100);
    const original = await catalog.loadTable(id);
    await catalog.dropTable(id); // the files stay: the metadata can be registered again

    const restored = { namespace: ns, name: 'restored' };
    const registered = await catalog.registerTable(restored, original.metadataLocation);
    expect(registered.metadata.tableUuid).toBe(original.metadata.tableUuid);
    expect(await catalog.listTables(ns)).toEqual([restored]);
    const loaded = await catalog.loadTable(restored);
    expect(loaded.metadataLocation).toBe(original.metadataLocation);
    expect(await countRows(loaded, io)).toMatchObject({ rows: 100, manifestRows: 100n });

    await appendIds(catalog, io, restored, 100, 20);
    expect(await countRows(await catalog.loadTable(restored), io)).toEqual({ manifestRows: 120n, rows: 120, distinctIds: 120, idSum: idSum(120) });
    await expect(catalog.registerTable(restored, original.metadataLocation)).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(await io.exists(original.metadataLocation)).toBe(true);
    await catalog.dropTable(restored, true);
    await catalog.dropNamespace(ns);
  });

  it('renames a table within and across namespaces; refuses a missing source, a taken name and a missing namespace', async () => {
    const { catalog, io } = under;
    const ns = fresh('rename');
    const other = fresh('rename_to');
    await catalog.createNamespace(ns);
    await catalog.createNamespace(other);
    const id = { namespace: ns, name: 'before' };
    await catalog.createTable(id, { schema: SCHEMA });
    await appendIds(catalog, io, id, 0, 40);
    const before = await catalog.loadTable(id);

    const renamed = { namespace: ns, name: 'after' };
    await catalog.renameTable(id, renamed);
    expect(await catalog.tableExists(id)).toBe(false);
    expect(await catalog.listTables(ns)).toEqual([renamed]);
    const after = await catalog.loadTable(renamed);
    expect(after.metadata.tableUuid).toBe(before.metadata.tableUuid);
    expect(after.metadata.currentSnapshotId).toBe(before.metadata.currentSnapshotId);

    const moved: TableIdentifier = { namespace: other, name: 'moved' };
    await catalog.renameTable(renamed, moved);
    expect(await catalog.listTables(ns)).toEqual([]);
    expect(await catalog.listTables(other)).toEqual([moved]);
    await appendIds(catalog, io, moved, 40, 10);
    expect(await countRows(await catalog.loadTable(moved), io)).toEqual({ manifestRows: 50n, rows: 50, distinctIds: 50, idSum: idSum(50) });

    const taken = { namespace: other, name: 'taken' };
    await catalog.createTable(taken, { schema: SCHEMA });
    await expect(catalog.renameTable(moved, taken)).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(catalog.renameTable({ namespace: ns, name: 'gone' }, { namespace: ns, name: 'x' })).rejects.toBeInstanceOf(
      NoSuchTableError,
    );
    await expect(catalog.renameTable(moved, { namespace: fresh('missing'), name: 'x' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    expect(await catalog.listTables(other)).toEqual([moved, taken]);

    await catalog.dropTable(moved, true);
    await catalog.dropTable(taken, true);
    await catalog.dropNamespace(ns);
    await catalog.dropNamespace(other);
  });

  it('drops a table without purge (every file stays) and with purge (every file goes, unless the server leaves that to its GC)', async () => {
    const { catalog, io } = under;
    const ns = fresh('drop');
    await catalog.createNamespace(ns);
    const kept = { namespace: ns, name: 'kept' };
    const purged = { namespace: ns, name: 'purged' };
    for (const id of [kept, purged]) {
      await catalog.createTable(id, { schema: SCHEMA });
      await appendIds(catalog, io, id, 0, 30);
      await appendIds(catalog, io, id, 30, 30);
    }
    const keptTable = await catalog.loadTable(kept);
    const purgedTable = await catalog.loadTable(purged);
    const keptFiles = await under.filesUnder(keptTable.metadata.location);
    const purgedFiles = await under.filesUnder(purgedTable.metadata.location);
    expect(keptFiles.filter((f) => f.endsWith('.parquet'))).toHaveLength(2);
    expect(purgedFiles.filter((f) => f.endsWith('.parquet'))).toHaveLength(2);

    await catalog.dropTable(kept);
    expect(await catalog.tableExists(kept)).toBe(false);
    expect(await under.filesUnder(keptTable.metadata.location)).toEqual(keptFiles);
    await expect(catalog.dropTable(kept)).rejects.toBeInstanceOf(NoSuchTableError);

    await catalog.dropTable(purged, true);
    expect(await catalog.tableExists(purged)).toBe(false);
    expect(await under.filesUnder(purgedTable.metadata.location)).toEqual(under.differences?.purgeLeavesFiles === true ? purgedFiles : []);
    expect(await under.filesUnder(keptTable.metadata.location)).toEqual(keptFiles);
    await expect(catalog.dropTable(purged, true)).rejects.toBeInstanceOf(NoSuchTableError);
    await catalog.dropNamespace(ns);
  });
}
