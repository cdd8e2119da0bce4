/**
 * SqlCatalog's namespace properties, register, rename and drop with purge, checked against the
 * catalog's raw rows (JdbcCatalog's layout) and the files on disk.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadedTable, TableIdentifier } from '../../../catalog/catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import {
  AlreadyExistsError,
  IcebergFormatError,
  InvalidInputError,
  NoSuchNamespaceError,
  NoSuchTableError,
  StorageError,
} from '../../../src/errors.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { primitive, type Schema } from '../../../src/iceberg/types.js';
import { commitSnapshot, type WriteMode } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';

const SCHEMA: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: false, type: primitive('long') },
    { id: 2, name: 'label', required: false, type: primitive('string') },
  ],
};
const T: TableIdentifier = { namespace: ['db'], name: 't' };

let work: string;
let databasePath: string;
let catalog: SqlCatalog;
let session: DuckDbSession;
const io = new LocalFileIO();

function open(fileIO: FileIO = io, name?: string): SqlCatalog {
  return new SqlCatalog({ databasePath, warehouse: toFileUri(join(work, 'warehouse')), io: fileIO, ...(name === undefined ? {} : { name }) });
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'thund-sqlmaint-'));
  databasePath = join(work, 'catalog.db');
  catalog = open();
  session = await DuckDbSession.open();
});

afterEach(async () => {
  session.close();
  await catalog.close();
  await rm(work, { recursive: true, force: true });
});

function rows<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(databasePath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Every file under `dir` (relative paths, sorted); [] when the folder is gone. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

async function commitRows(id: TableIdentifier, from: number, count: number, mode: WriteMode = 'append', via: SqlCatalog = catalog) {
  const { metadata } = await via.loadTable(id);
  const addedFiles = await writeDataFiles({
    session,
    query: `SELECT range::BIGINT AS id, 'row ' || range AS label FROM range(${from}, ${from + count})`,
    schema: SCHEMA,
    specId: 0,
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
  return commitSnapshot({ catalog: via, identifier: id, base: { metadata, io, create: false }, mode, addedFiles });
}

async function rowCount(table: LoadedTable): Promise<bigint> {
  return (await liveDataFiles(table.io, table.metadata)).reduce((n, f) => n + f.recordCount, 0n);
}

describe('SqlCatalog namespace properties', () => {
  it('sets, replaces and removes properties as JdbcCatalog rows, keeping the reserved exists marker', async () => {
    await catalog.createNamespace(['db'], { owner: 'a', team: 'x' });
    await catalog.updateNamespaceProperties(['db'], ['team'], { owner: 'b', comment: 'hello' });
    expect(await catalog.loadNamespaceProperties(['db'])).toEqual({ owner: 'b', comment: 'hello' });
    const stored = rows<{ property_key: string; property_value: string }>(
      'SELECT property_key, property_value FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? ORDER BY property_key',
      'default',
      'db',
    );
    expect(stored).toEqual([
      { property_key: 'comment', property_value: 'hello' },
      { property_key: 'exists', property_value: 'true' },
      { property_key: 'owner', property_value: 'b' },
    ]);

    // Removing a key that is not there is fine; removing everything keeps the namespace.
    await catalog.updateNamespaceProperties(['db'], ['owner', 'comment', 'never-set'], {});
    expect(await catalog.loadNamespaceProperties(['db'])).toEqual({});
    expect(await catalog.namespaceExists(['db'])).toBe(true);
    expect(await catalog.listNamespaces()).toEqual([['db']]);
  });

  it('gives properties to a namespace that exists only through its tables', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    // A namespace created implicitly, as another engine may leave it: only table rows, no property rows.
    const db = new Database(databasePath);
    db.prepare("UPDATE iceberg_tables SET table_namespace = 'implicit'").run();
    db.prepare("DELETE FROM iceberg_namespace_properties WHERE namespace = 'db'").run();
    db.close();
    await catalog.updateNamespaceProperties(['implicit'], [], { owner: 'x' });
    expect(await catalog.loadNamespaceProperties(['implicit'])).toEqual({ owner: 'x' });
  });

  it('refuses a key both removed and set, the reserved key, and a missing namespace; changes nothing then', async () => {
    await catalog.createNamespace(['db'], { owner: 'a' });
    await expect(catalog.updateNamespaceProperties(['db'], ['owner'], { owner: 'b' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(catalog.updateNamespaceProperties(['db'], ['exists'], {})).rejects.toBeInstanceOf(InvalidInputError);
    await expect(catalog.updateNamespaceProperties(['db'], [], { exists: 'false' })).rejects.toBeInstanceOf(InvalidInputError);
    const missing = catalog.updateNamespaceProperties(['nope'], [], { a: 'b' });
    await expect(missing).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(missing).rejects.toThrow('nope');
    expect(await catalog.loadNamespaceProperties(['db'])).toEqual({ owner: 'a' });
    expect(await catalog.namespaceExists(['nope'])).toBe(false);
  });
});

describe('SqlCatalog.registerTable', () => {
  it('points a new entry at an existing metadata file, which then takes commits under either name', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    const source = await catalog.loadTable(T);

    // Another catalog name in the same file (as a second Spark catalog would see it).
    const other = open(io, 'restored');
    try {
      await other.createNamespace(['lake']);
      const id = { namespace: ['lake'], name: 'copy' };
      const registered = await other.registerTable(id, source.metadataLocation);
      expect(registered.metadataLocation).toBe(source.metadataLocation);
      expect(registered.metadata.tableUuid).toBe(source.metadata.tableUuid);
      expect(
        rows('SELECT metadata_location, previous_metadata_location, iceberg_type FROM iceberg_tables WHERE catalog_name = ?', 'restored'),
      ).toEqual([{ metadata_location: source.metadataLocation, previous_metadata_location: null, iceberg_type: 'TABLE' }]);
      const loaded = await other.loadTable(id);
      expect(await rowCount(loaded)).toBe(10n);

      await commitRows(id, 10, 5, 'append', other);
      expect(await rowCount(await other.loadTable(id))).toBe(15n);
      expect(await rowCount(await catalog.loadTable(T))).toBe(10n);
    } finally {
      await other.close();
    }
  });

  it('refuses a taken name (keeping the file), a missing namespace, and files that are not table metadata', async () => {
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, { schema: SCHEMA });
    const taken = catalog.registerTable(T, created.metadataLocation);
    await expect(taken).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(taken).rejects.toThrow('db.t');
    expect(await io.exists(created.metadataLocation)).toBe(true);

    await expect(catalog.registerTable({ namespace: ['nope'], name: 'x' }, created.metadataLocation)).rejects.toBeInstanceOf(
      NoSuchNamespaceError,
    );
    const missingFile = toFileUri(join(work, 'missing.metadata.json'));
    await expect(catalog.registerTable({ namespace: ['db'], name: 'x' }, missingFile)).rejects.toBeInstanceOf(StorageError);
    const notMetadata = toFileUri(join(work, 'bogus.metadata.json'));
    await io.writeNew(notMetadata, new TextEncoder().encode('{"format-version": 2}'));
    await expect(catalog.registerTable({ namespace: ['db'], name: 'x' }, notMetadata)).rejects.toBeInstanceOf(IcebergFormatError);
    expect(await catalog.tableExists({ namespace: ['db'], name: 'x' })).toBe(false);
  });
});

describe('SqlCatalog.renameTable', () => {
  it('moves the entry within and across namespaces; files and commits follow', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createNamespace(['other', 'deep']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 7);
    const before = await catalog.loadTable(T);

    const renamed = { namespace: ['db'], name: 'renamed' };
    await catalog.renameTable(T, renamed);
    expect(await catalog.tableExists(T)).toBe(false);
    expect(await catalog.listTables(['db'])).toEqual([renamed]);
    expect((await catalog.loadTable(renamed)).metadataLocation).toBe(before.metadataLocation);

    const moved = { namespace: ['other', 'deep'], name: 'moved' };
    await catalog.renameTable(renamed, moved);
    expect(await catalog.listTables(['db'])).toEqual([]);
    const after = await catalog.loadTable(moved);
    expect(after.metadataLocation).toBe(before.metadataLocation);
    expect(after.metadata.location).toBe(before.metadata.location);
    expect(rows('SELECT table_namespace, table_name FROM iceberg_tables')).toEqual([{ table_namespace: 'other.deep', table_name: 'moved' }]);

    await commitRows(moved, 7, 3);
    expect(await rowCount(await catalog.loadTable(moved))).toBe(10n);
  });

  it('refuses a missing source, a taken destination and a missing destination namespace, changing nothing', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    const u = { namespace: ['db'], name: 'u' };
    await catalog.createTable(u, { schema: SCHEMA });

    const missing = catalog.renameTable({ namespace: ['db'], name: 'nope' }, { namespace: ['db'], name: 'x' });
    await expect(missing).rejects.toBeInstanceOf(NoSuchTableError);
    await expect(missing).rejects.toThrow('db.nope');
    await expect(catalog.renameTable(T, u)).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(catalog.renameTable(T, T)).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(catalog.renameTable(T, { namespace: ['nope'], name: 't' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    expect(await catalog.listTables(['db'])).toEqual([T, u]);
  });
});

describe('SqlCatalog.dropTable', () => {
  it('without purge keeps every file; with purge deletes data, manifests, lists and all metadata of that table only', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    await commitRows(T, 10, 10);
    await commitRows(T, 100, 5, 'overwrite'); // the first two snapshots' files are now referenced by old snapshots only
    const kept = { namespace: ['db'], name: 'kept' };
    await catalog.createTable(kept, { schema: SCHEMA });
    await commitRows(kept, 0, 3);
    const tableDir = join(work, 'warehouse', 'db', 't');
    const keptDir = join(work, 'warehouse', 'db', 'kept');
    const keptFiles = await filesUnder(keptDir);

    const loaded = await catalog.loadTable(T);
    expect(await rowCount(loaded)).toBe(5n);
    const files = await filesUnder(tableDir);
    expect(files.filter((f) => f.startsWith('data/') && f.endsWith('.parquet'))).toHaveLength(3);
    expect(files.filter((f) => f.endsWith('.metadata.json'))).toHaveLength(4);

    // Drop without purge, register again, then drop with purge.
    await catalog.dropTable(T);
    expect(await filesUnder(tableDir)).toEqual(files);
    await catalog.registerTable(T, loaded.metadataLocation);
    await catalog.dropTable(T, true);
    expect(await catalog.tableExists(T)).toBe(false);
    expect(await filesUnder(tableDir)).toEqual([]);
    expect(await filesUnder(keptDir)).toEqual(keptFiles);
    expect(await rowCount(await catalog.loadTable(kept))).toBe(3n);
    await expect(catalog.dropTable(T, true)).rejects.toBeInstanceOf(NoSuchTableError);
  });

  it('purges past files that are already gone', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    await commitRows(T, 10, 10);
    const table = await catalog.loadTable(T);
    const [firstData] = await liveDataFiles(io, table.metadata);
    const firstList = table.metadata.snapshots[0]?.manifestList;
    if (firstData === undefined || firstList === undefined) throw new Error('expected two snapshots with data');
    await io.delete(firstData.filePath);
    await io.delete(firstList);
    await io.delete(table.metadata.metadataLog[0]?.metadataFile ?? '');
    await catalog.dropTable(T, true);
    expect(await filesUnder(join(work, 'warehouse', 'db', 't'))).toEqual([]);
  });

  it('drops the entry even when its metadata file is already gone', async () => {
    await catalog.createNamespace(['db']);
    const created = await catalog.createTable(T, { schema: SCHEMA });
    await io.delete(created.metadataLocation);
    await catalog.dropTable(T, true);
    expect(await catalog.tableExists(T)).toBe(false);
  });

  it('keeps data files when gc.enabled=false (they may belong to another table) and deletes the metadata', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA, properties: { 'gc.enabled': 'false' } });
    await commitRows(T, 0, 10);
    const data = await liveDataFiles(io, (await catalog.loadTable(T)).metadata);
    await catalog.dropTable(T, true);
    const left = await filesUnder(join(work, 'warehouse', 'db', 't'));
    expect(left).toEqual(data.map((f) => relative(join(work, 'warehouse', 'db', 't'), f.filePath.slice('file://'.length))).sort());
  });

  it('tries every file and names the ones it could not delete (PURGE_INCOMPLETE); the entry is gone', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    await commitRows(T, 10, 10);
    const failing: FileIO = {
      read: (l) => io.read(l),
      writeNew: (l, b) => io.writeNew(l, b),
      exists: (l) => io.exists(l),
      length: (l) => io.length(l),
      delete: async (l) => {
        if (l.endsWith('.parquet')) throw new StorageError(`Cannot delete ${l}: injected`, { context: { location: l } });
        await io.delete(l);
      },
    };
    const purging = open(failing);
    try {
      const error = await purging.dropTable(T, true).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'PURGE_INCOMPLETE', context: { table: 'db.t', failedFiles: 2 } });
    } finally {
      await purging.close();
    }
    expect(await catalog.tableExists(T)).toBe(false);
    const left = await filesUnder(join(work, 'warehouse', 'db', 't'));
    expect(left).toHaveLength(2);
    expect(left.every((f) => f.startsWith('data/') && f.endsWith('.parquet'))).toBe(true);
  });

  it('keeps the entry and every file when the files cannot be listed', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    const files = await filesUnder(join(work, 'warehouse', 'db', 't'));
    const unreadable: FileIO = {
      read: async (l) => {
        if (l.endsWith('.avro')) throw new StorageError(`Cannot read ${l}: injected`, { retryable: true, context: { location: l } });
        return io.read(l);
      },
      writeNew: (l, b) => io.writeNew(l, b),
      exists: (l) => io.exists(l),
      length: (l) => io.length(l),
      delete: (l) => io.delete(l),
    };
    const purging = open(unreadable);
    try {
      await expect(purging.dropTable(T, true)).rejects.toBeInstanceOf(StorageError);
    } finally {
      await purging.close();
    }
    expect(await catalog.tableExists(T)).toBe(true);
    expect(await filesUnder(join(work, 'warehouse', 'db', 't'))).toEqual(files);
  });

  it('lists again when a commit lands while the files are being listed, so that commit’s files go too', async () => {
    await catalog.createNamespace(['db']);
    await catalog.createTable(T, { schema: SCHEMA });
    await commitRows(T, 0, 10);
    // The purging catalog's first manifest-list read lets another writer commit first.
    let interfere = true;
    const racing: FileIO = {
      read: async (location) => {
        if (interfere && location.endsWith('.avro') && location.includes('/snap-')) {
          interfere = false;
          await commitRows(T, 10, 10);
        }
        return io.read(location);
      },
      writeNew: (l, b) => io.writeNew(l, b),
      exists: (l) => io.exists(l),
      length: (l) => io.length(l),
      delete: (l) => io.delete(l),
    };
    const purging = open(racing);
    try {
      await purging.dropTable(T, true);
    } finally {
      await purging.close();
    }
    expect(interfere).toBe(false);
    expect(await catalog.tableExists(T)).toBe(false);
    expect(await filesUnder(join(work, 'warehouse', 'db', 't'))).toEqual([]);
  });
});
