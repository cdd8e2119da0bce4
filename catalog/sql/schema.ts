/**
 * The catalog's SQLite tables, identical to Iceberg's JDBC catalog (JdbcUtil) so that Spark's
 * JdbcCatalog and pyiceberg's SqlCatalog open the same file.
 *
 * `iceberg_tables` is created exactly as the JDBC catalog's V0 DDL and then migrated to its V1
 * schema with the same `ALTER TABLE … ADD COLUMN iceberg_type VARCHAR(5)` Java runs for
 * `jdbc.schema-version=V1`. Java detects V1 by the column's presence; pyiceberg's ORM names its
 * five columns explicitly, so the extra nullable column is invisible to it, and rows pyiceberg
 * inserts (iceberg_type NULL) count as tables for Java (`iceberg_type = 'TABLE' OR IS NULL`).
 */
import type BetterSqlite3 from 'better-sqlite3';

export const CATALOG_TABLE = 'iceberg_tables';
export const NAMESPACE_PROPERTIES_TABLE = 'iceberg_namespace_properties';
export const RECORD_TYPE_COLUMN = 'iceberg_type';
export const TABLE_RECORD_TYPE = 'TABLE';
export const VIEW_RECORD_TYPE = 'VIEW';
/** The reserved namespace property the JDBC catalog writes so an empty namespace exists. */
export const NAMESPACE_EXISTS_PROPERTY = 'exists';

export const CREATE_CATALOG_TABLE_SQL =
  `CREATE TABLE ${CATALOG_TABLE}(` +
  'catalog_name VARCHAR(255) NOT NULL,' +
  'table_namespace VARCHAR(255) NOT NULL,' +
  'table_name VARCHAR(255) NOT NULL,' +
  'metadata_location VARCHAR(1000),' +
  'previous_metadata_location VARCHAR(1000),' +
  'PRIMARY KEY (catalog_name, table_namespace, table_name))';

export const ADD_RECORD_TYPE_SQL = `ALTER TABLE ${CATALOG_TABLE} ADD COLUMN ${RECORD_TYPE_COLUMN} VARCHAR(5)`;

export const CREATE_NAMESPACE_PROPERTIES_TABLE_SQL =
  `CREATE TABLE ${NAMESPACE_PROPERTIES_TABLE}(` +
  'catalog_name VARCHAR(255) NOT NULL,' +
  'namespace VARCHAR(255) NOT NULL,' +
  'property_key VARCHAR(255),' +
  'property_value VARCHAR(1000),' +
  'PRIMARY KEY (catalog_name, namespace, property_key))';

/**
 * Creates the missing tables and adds `iceberg_type` to a V0 `iceberg_tables` (one written by
 * pyiceberg or an older Java catalog). Runs in one IMMEDIATE transaction so two processes
 * opening a new file at once do not both try to create it.
 */
export function ensureCatalogSchema(db: BetterSqlite3.Database): void {
  const migrate = db.transaction(() => {
    if (!tableExists(db, CATALOG_TABLE)) db.exec(CREATE_CATALOG_TABLE_SQL);
    if (!columnExists(db, CATALOG_TABLE, RECORD_TYPE_COLUMN)) db.exec(ADD_RECORD_TYPE_SQL);
    if (!tableExists(db, NAMESPACE_PROPERTIES_TABLE)) db.exec(CREATE_NAMESPACE_PROPERTIES_TABLE_SQL);
  });
  migrate.immediate();
}

function tableExists(db: BetterSqlite3.Database, name: string): boolean {
  // Case-insensitive, as JdbcCatalog also accepts upper-cased table names.
  const row = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = lower(?)")
    .get(name);
  return row !== undefined;
}

function columnExists(db: BetterSqlite3.Database, table: string, column: string): boolean {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return columns.some((c) => c.name.toLowerCase() === column.toLowerCase());
}
