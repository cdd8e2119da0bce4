import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { CommitConflictError, NoSuchNamespaceError, NoSuchTableError } from '../../../src/errors.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { updatesForCreate } from '../../../src/iceberg/metadata-builder.js';
import type { Schema } from '../../../src/iceberg/types.js';

const SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: { kind: 'long' } },
    { id: 2, name: 'data', required: false, type: { kind: 'string' } },
  ],
};
const T: TableIdentifier = { namespace: ['db'], name: 't' };
const METADATA_FILE = /^\d{5}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.metadata\.json$/;

async function setup(io: FileIO = new LocalFileIO()) {
  const dir = await mkdtemp(join(tmpdir(), 'thund-sqlcat-'));
  const databasePath = join(dir, 'catalog.db');
  const warehouse = join(dir, 'warehouse');
  const open = (fileIO: FileIO = io) => new SqlCatalog({ databasePath, warehouse, io: fileIO });
  return { dir, databasePath, warehouse, open };
}

function row(databasePath: string): { metadata_location: string; previous_metadata_location: string | null } {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db
      .prepare('SELECT metadata_location, previous_metadata_location FROM iceberg_tables WHERE table_name = ?')
      .get('t') as { metadata_location: string; previous_metadata_location: string | null };
  } finally {
    db.close();
  }
}

function fileName(location: string): string {
  return location.slice(location.lastIndexOf('/') + 1);
}

describe('SqlCatalog', () => {
  it('creates a namespace and a table under <warehouse>/<namespace>/<table>, and loads it back', async () => {
    const { databasePath, warehouse, open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, { schema: SCHEMA, properties: { owner: 'thund' } });

    expect(created.metadata.location).toBe(`file://${warehouse}/db/t`);
    expect(created.metadataLocation.startsWith(`file://${warehouse}/db/t/metadata/`)).toBe(true);
    expect(fileName(created.metadataLocation)).toMatch(METADATA_FILE);
    expect(fileName(created.metadataLocation).startsWith('00000-')).toBe(true);
    expect(row(databasePath)).toEqual({ metadata_location: created.metadataLocation, previous_metadata_location: null });

    const loaded = await catalog.loadTable(T);
    expect(loaded.metadataLocation).toBe(created.metadataLocation);
    expect(loaded.metadata.tableUuid).toBe(created.metadata.tableUuid);
    expect(loaded.metadata.properties.owner).toBe('thund');
    expect(loaded.metadata.schemas[0]?.fields.map((f) => f.name)).toEqual(['id', 'data']);

    expect(await catalog.tableExists(T)).toBe(true);
    expect(await catalog.listTables(['db'])).toEqual([T]);
    expect(await catalog.listNamespaces()).toEqual([['db']]);
    await catalog.close();
  });

  it('commits a properties update as metadata version 00001 and swaps the pointer', async () => {
    const { databasePath, open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, { schema: SCHEMA });
    const committed = await catalog.commitTable(
      T,
      [{ type: 'assert-table-uuid', uuid: created.metadata.tableUuid }],
      [{ action: 'set-properties', updates: { 'commit.retry.num-retries': '7' } }],
    );
    expect(fileName(committed.metadataLocation).startsWith('00001-')).toBe(true);
    expect(row(databasePath)).toEqual({
      metadata_location: committed.metadataLocation,
      previous_metadata_location: created.metadataLocation,
    });
    const loaded = await catalog.loadTable(T);
    expect(loaded.metadata.properties['commit.retry.num-retries']).toBe('7');
    expect(loaded.metadata.metadataLog.map((e) => e.metadataFile)).toEqual([created.metadataLocation]);

    const again = await catalog.commitTable(T, [], [{ action: 'remove-properties', removals: ['commit.retry.num-retries'] }]);
    expect(fileName(again.metadataLocation).startsWith('00002-')).toBe(true);
    expect((await catalog.loadTable(T)).metadata.properties['commit.retry.num-retries']).toBeUndefined();
    await catalog.close();
  });

  it('of two catalogs committing from the same base exactly one wins; the loser gets CommitConflictError', async () => {
    const gate = new GatedIO(new LocalFileIO());
    const { databasePath, dir, open } = await setup(gate);
    const first = open();
    const second = open();
    await first.createNamespace(['db']);
    const created = await first.createTable(T, { schema: SCHEMA });

    // Both commits must read the same base metadata before either swaps the pointer.
    gate.holdReads(2);
    const results = await Promise.allSettled([
      first.commitTable(T, [], [{ action: 'set-properties', updates: { writer: 'first' } }]),
      second.commitTable(T, [], [{ action: 'set-properties', updates: { writer: 'second' } }]),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toBeInstanceOf(CommitConflictError);
    expect((lost[0]?.reason as CommitConflictError).retryable).toBe(true);

    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<SqlCatalog['commitTable']>>>).value;
    expect(row(databasePath)).toEqual({
      metadata_location: winner.metadataLocation,
      previous_metadata_location: created.metadataLocation,
    });
    const table = await second.loadTable(T);
    expect(table.metadata.properties.writer).toBe(winner.metadata.properties.writer);
    // The loser's metadata file is removed; the winner's and the original remain.
    const files = await readdir(join(dir, 'warehouse', 'db', 't', 'metadata'));
    expect(files.sort()).toEqual([fileName(created.metadataLocation), fileName(winner.metadataLocation)].sort());

    // A retry after the conflict succeeds on the new base.
    const retried = await second.commitTable(T, [], [{ action: 'set-properties', updates: { retried: 'yes' } }]);
    expect(fileName(retried.metadataLocation).startsWith('00002-')).toBe(true);
    await first.close();
    await second.close();
  });

  it('rejects a commit whose requirement fails and leaves the table untouched', async () => {
    const { databasePath, open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, { schema: SCHEMA });
    const attempt = catalog.commitTable(
      T,
      [{ type: 'assert-table-uuid', uuid: '00000000-0000-0000-0000-000000000000' }],
      [{ action: 'set-properties', updates: { x: '1' } }],
    );
    await expect(attempt).rejects.toBeInstanceOf(CommitConflictError);
    await expect(
      catalog.commitTable(T, [{ type: 'assert-create' }], [{ action: 'set-properties', updates: { x: '1' } }]),
    ).rejects.toBeInstanceOf(CommitConflictError);
    expect(row(databasePath).metadata_location).toBe(created.metadataLocation);
    expect((await catalog.loadTable(T)).metadata.properties.x).toBeUndefined();
    await catalog.close();
  });

  it('refuses to create a table twice and names the identifier', async () => {
    const { open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    const again = catalog.createTable(T, { schema: SCHEMA });
    await expect(again).rejects.toMatchObject({ code: 'ALREADY_EXISTS', context: { table: 'db.t' } });
    await expect(again).rejects.toThrow('db.t');
    await catalog.close();
  });

  it('reports missing tables and namespaces naming them', async () => {
    const { open } = await setup();
    const catalog = open();
    const missing = { namespace: ['db', 'sub'], name: 'nope' };
    await expect(catalog.loadTable(missing)).rejects.toBeInstanceOf(NoSuchTableError);
    await expect(catalog.loadTable(missing)).rejects.toThrow('db.sub.nope');
    await expect(catalog.commitTable(missing, [], [])).rejects.toBeInstanceOf(NoSuchTableError);
    await expect(catalog.dropTable(missing)).rejects.toThrow('db.sub.nope');
    await expect(catalog.createTable(missing, { schema: SCHEMA })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(catalog.listTables(['db', 'sub'])).rejects.toThrow('db.sub');
    await catalog.close();
  });

  it('places metadata under write.metadata.path and tables under the namespace location', async () => {
    const { dir, open } = await setup();
    const catalog = open();
    const nsLocation = `file://${join(dir, 'elsewhere')}`;
    await catalog.createNamespace(['db'], { location: `${nsLocation}/` });
    const metaDir = `file://${join(dir, 'meta-here')}`;
    const created = await catalog.createTable(T, { schema: SCHEMA, properties: { 'write.metadata.path': metaDir } });
    expect(created.metadata.location).toBe(`${nsLocation}/t`);
    expect(created.metadataLocation.startsWith(`${metaDir}/00000-`)).toBe(true);
    const committed = await catalog.commitTable(T, [], [{ action: 'set-properties', updates: { a: 'b' } }]);
    expect(committed.metadataLocation.startsWith(`${metaDir}/00001-`)).toBe(true);
    await catalog.close();
  });

  it('creates a staged table with its first commit (assert-create + create updates)', async () => {
    const { databasePath, warehouse, open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    const staged = await catalog.stageCreateTable(T, { schema: SCHEMA, properties: { owner: 'thund' } });
    expect(staged.location).toBe(`file://${warehouse}/db/t`);
    expect(await catalog.tableExists(T)).toBe(false);

    const created = await catalog.commitTable(T, [{ type: 'assert-create' }], [
      ...updatesForCreate(staged),
      { action: 'set-properties', updates: { extra: '1' } },
    ]);
    expect(fileName(created.metadataLocation).startsWith('00000-')).toBe(true);
    expect(row(databasePath)).toEqual({ metadata_location: created.metadataLocation, previous_metadata_location: null });
    const loaded = await catalog.loadTable(T);
    expect(loaded.metadata.tableUuid).toBe(staged.tableUuid);
    expect(loaded.metadata.properties).toMatchObject({ owner: 'thund', extra: '1' });

    // A second create of the same table fails its assert-create requirement.
    await expect(
      catalog.commitTable(T, [{ type: 'assert-create' }], updatesForCreate(staged)),
    ).rejects.toBeInstanceOf(CommitConflictError);
    await expect(catalog.stageCreateTable(T, { schema: SCHEMA })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(
      catalog.commitTable({ namespace: ['nope'], name: 't' }, [{ type: 'assert-create' }], updatesForCreate(staged)),
    ).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await catalog.close();
  });

  it('writes gzip metadata (.gz.metadata.json) when write.metadata.compression-codec is gzip', async () => {
    const { databasePath, open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, {
      schema: SCHEMA,
      properties: { 'write.metadata.compression-codec': 'gzip' },
    });
    expect(created.metadataLocation.endsWith('.gz.metadata.json')).toBe(true);
    const bytes = await new LocalFileIO().read(created.metadataLocation);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const committed = await catalog.commitTable(T, [], [{ action: 'set-properties', updates: { a: '1' } }]);
    expect(fileName(committed.metadataLocation)).toMatch(/^00001-.*\.gz\.metadata\.json$/);
    expect(row(databasePath).metadata_location).toBe(committed.metadataLocation);
    expect((await catalog.loadTable(T)).metadata.properties.a).toBe('1');
    await catalog.close();
  });

  it('drops a table (catalog entry only)', async () => {
    const { open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await catalog.dropTable(T);
    expect(await catalog.tableExists(T)).toBe(false);
    expect(await catalog.namespaceExists(['db'])).toBe(true);
    await expect(catalog.dropTable(T)).rejects.toBeInstanceOf(NoSuchTableError);
    await catalog.close();
  });

  it('drops only empty namespaces', async () => {
    const { open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['db']);
    await catalog.createNamespace(['db', 'inner']);
    await catalog.createTable(T, { schema: SCHEMA });
    await expect(catalog.dropNamespace(['db'])).rejects.toMatchObject({ code: 'NAMESPACE_NOT_EMPTY', context: { namespace: 'db' } });
    await catalog.dropNamespace(['db', 'inner']);
    expect(await catalog.namespaceExists(['db', 'inner'])).toBe(false);
    await expect(catalog.dropNamespace(['db'])).rejects.toMatchObject({ code: 'NAMESPACE_NOT_EMPTY' });
    await catalog.dropTable(T);
    await catalog.dropNamespace(['db']);
    expect(await catalog.namespaceExists(['db'])).toBe(false);
    await expect(catalog.dropNamespace(['db'])).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await catalog.close();
  });

  it('lists nested namespaces one level at a time', async () => {
    const { open } = await setup();
    const catalog = open();
    await catalog.createNamespace(['a']);
    await catalog.createNamespace(['a', 'b']);
    await catalog.createNamespace(['a', 'b', 'c']);
    await catalog.createNamespace(['ab']);
    expect(await catalog.listNamespaces()).toEqual([['a'], ['ab']]);
    expect(await catalog.listNamespaces(['a'])).toEqual([['a', 'b']]);
    expect(await catalog.listNamespaces(['a', 'b'])).toEqual([['a', 'b', 'c']]);
    expect(await catalog.listNamespaces(['a', 'b', 'c'])).toEqual([]);
    await expect(catalog.listNamespaces(['zz'])).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await catalog.close();
  });
});

/** Holds the next `n` reads until all `n` have started, so concurrent commits share one base. */
class GatedIO implements FileIO {
  private waiting: (() => void)[] = [];
  private remaining = 0;

  constructor(private readonly inner: FileIO) {}

  holdReads(n: number): void {
    this.remaining = n;
  }

  async read(location: string): Promise<Uint8Array> {
    const bytes = await this.inner.read(location);
    if (this.remaining > 0) {
      this.remaining -= 1;
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        if (this.remaining === 0) for (const release of this.waiting.splice(0)) release();
      });
    }
    return bytes;
  }

  writeNew(location: string, bytes: Uint8Array): Promise<void> {
    return this.inner.writeNew(location, bytes);
  }

  exists(location: string): Promise<boolean> {
    return this.inner.exists(location);
  }

  length(location: string): Promise<bigint> {
    return this.inner.length(location);
  }

  delete(location: string): Promise<void> {
    return this.inner.delete(location);
  }
}
