/**
 * The SQLite file must hold exactly the tables of Iceberg's JDBC catalog (JdbcUtil's DDL, schema
 * version V1), which pyiceberg's SqlCatalog also creates. Expected values are transcribed from
 * that DDL, not from our code.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

function columns(db: Database.Database, table: string): ColumnInfo[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as ColumnInfo[]).map(({ name, type, notnull, pk }) => ({
    name,
    type,
    notnull,
    pk,
  }));
}

async function newCatalogFile(): Promise<{ dir: string; dbPath: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'thund-sqlcat-'));
  return { dir, dbPath: join(dir, 'catalog.db') };
}

describe('SqlCatalog SQLite schema', () => {
  it('matches the JDBC catalog DDL (columns, types, nullability, primary keys)', async () => {
    const { dir, dbPath } = await newCatalogFile();
    const catalog = new SqlCatalog({ databasePath: dbPath, warehouse: join(dir, 'wh'), io: new LocalFileIO() });
    await catalog.close();

    const db = new Database(dbPath, { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]).map((r) => r.name);
    expect(tables).toEqual(['iceberg_namespace_properties', 'iceberg_tables']);

    expect(columns(db, 'iceberg_tables')).toEqual([
      { name: 'catalog_name', type: 'VARCHAR(255)', notnull: 1, pk: 1 },
      { name: 'table_namespace', type: 'VARCHAR(255)', notnull: 1, pk: 2 },
      { name: 'table_name', type: 'VARCHAR(255)', notnull: 1, pk: 3 },
      { name: 'metadata_location', type: 'VARCHAR(1000)', notnull: 0, pk: 0 },
      { name: 'previous_metadata_location', type: 'VARCHAR(1000)', notnull: 0, pk: 0 },
      { name: 'iceberg_type', type: 'VARCHAR(5)', notnull: 0, pk: 0 },
    ]);
    expect(columns(db, 'iceberg_namespace_properties')).toEqual([
      { name: 'catalog_name', type: 'VARCHAR(255)', notnull: 1, pk: 1 },
      { name: 'namespace', type: 'VARCHAR(255)', notnull: 1, pk: 2 },
      { name: 'property_key', type: 'VARCHAR(255)', notnull: 0, pk: 3 },
      { name: 'property_value', type: 'VARCHAR(1000)', notnull: 0, pk: 0 },
    ]);
    db.close();
  });

  it('migrates a V0 catalog (no iceberg_type) in place and keeps its rows as tables', async () => {
    const { dir, dbPath } = await newCatalogFile();
    const db = new Database(dbPath);
    // Java's V0 DDL, as an older JdbcCatalog or pyiceberg < 0.10 left it.
    db.exec(
      'CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace VARCHAR(255) NOT NULL,' +
        'table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),previous_metadata_location VARCHAR(1000),' +
        'PRIMARY KEY (catalog_name, table_namespace, table_name))',
    );
    db.prepare('INSERT INTO iceberg_tables VALUES (?, ?, ?, ?, NULL)').run(
      'default',
      'db.sub',
      'legacy',
      'file:///nowhere/metadata/00000-x.metadata.json',
    );
    db.close();

    const catalog = new SqlCatalog({ databasePath: dbPath, warehouse: join(dir, 'wh'), io: new LocalFileIO() });
    expect(await catalog.tableExists({ namespace: ['db', 'sub'], name: 'legacy' })).toBe(true);
    expect(await catalog.listTables(['db', 'sub'])).toEqual([{ namespace: ['db', 'sub'], name: 'legacy' }]);
    expect(await catalog.namespaceExists(['db'])).toBe(true);
    expect(await catalog.listNamespaces()).toEqual([['db']]);
    expect(await catalog.listNamespaces(['db'])).toEqual([['db', 'sub']]);
    await catalog.close();

    const check = new Database(dbPath, { readonly: true });
    expect(columns(check, 'iceberg_tables').map((c) => c.name)).toContain('iceberg_type');
    expect(check.prepare('SELECT iceberg_type FROM iceberg_tables').get()).toEqual({ iceberg_type: null });
    check.close();
  });

  it('hides views (iceberg_type VIEW) from table operations but refuses a table of the same name', async () => {
    const { dir, dbPath } = await newCatalogFile();
    const catalog = new SqlCatalog({ databasePath: dbPath, warehouse: join(dir, 'wh'), io: new LocalFileIO() });
    await catalog.createNamespace(['ns']);
    const db = new Database(dbPath);
    db.prepare('INSERT INTO iceberg_tables VALUES (?, ?, ?, ?, NULL, ?)').run('default', 'ns', 'v', 'file:///x', 'VIEW');
    db.close();
    expect(await catalog.tableExists({ namespace: ['ns'], name: 'v' })).toBe(false);
    expect(await catalog.listTables(['ns'])).toEqual([]);
    await expect(catalog.dropTable({ namespace: ['ns'], name: 'v' })).rejects.toMatchObject({ code: 'NO_SUCH_TABLE' });
    await catalog.close();
  });

  it('stores namespaces dot-joined with the exists marker the JDBC catalog writes', async () => {
    const { dir, dbPath } = await newCatalogFile();
    const catalog = new SqlCatalog({
      name: 'cat1',
      databasePath: dbPath,
      warehouse: join(dir, 'wh'),
      io: new LocalFileIO(),
    });
    await catalog.createNamespace(['a', 'b'], { owner: 'me' });
    await expect(catalog.createNamespace(['a', 'b'])).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(catalog.createNamespace(['a.b'])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await catalog.namespaceExists(['a'])).toBe(true);
    expect(await catalog.namespaceExists(['a', 'b'])).toBe(true);
    expect(await catalog.namespaceExists(['a', 'c'])).toBe(false);
    // Wildcards in a name match only literally, and case matters.
    expect(await catalog.namespaceExists(['_'])).toBe(false);
    expect(await catalog.namespaceExists(['*'])).toBe(false);
    expect(await catalog.namespaceExists(['A'])).toBe(false);
    await catalog.createNamespace(['x*[y?'], {});
    expect(await catalog.namespaceExists(['x*[y?'])).toBe(true);
    expect(await catalog.namespaceExists(['xz[y?'])).toBe(false);
    expect(await catalog.loadNamespaceProperties(['a', 'b'])).toEqual({ owner: 'me' });
    await catalog.close();

    const db = new Database(dbPath, { readonly: true });
    const rows = db
      .prepare('SELECT catalog_name, namespace, property_key, property_value FROM iceberg_namespace_properties ORDER BY property_key')
      .all();
    expect(rows.filter((r) => (r as { namespace: string }).namespace === 'a.b')).toEqual([
      { catalog_name: 'cat1', namespace: 'a.b', property_key: 'exists', property_value: 'true' },
      { catalog_name: 'cat1', namespace: 'a.b', property_key: 'owner', property_value: 'me' },
    ]);
    db.close();

    // Another catalog name in the same file sees nothing.
    const other = new SqlCatalog({ name: 'cat2', databasePath: dbPath, warehouse: join(dir, 'wh'), io: new LocalFileIO() });
    expect(await other.namespaceExists(['a'])).toBe(false);
    expect(await other.listNamespaces()).toEqual([]);
    await other.close();
  });
});
