/**
 * The embedded catalog: Iceberg's JDBC-catalog tables in a SQLite file (see schema.ts), table
 * metadata as JSON files through a FileIO. A commit writes a new metadata file, then swaps the
 * table's pointer with one compare-and-swap UPDATE (`… WHERE metadata_location = <base>`), the
 * same statement Java's JdbcTableOperations runs; SQLite's busy timeout serializes writers from
 * several processes. The commit, create, register and drop flow is PointerSwapCatalog's; this
 * file supplies the row operations.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import {
  AlreadyExistsError,
  CommitConflictError,
  CommitStateUnknownError,
  IcebergFormatError,
  InvalidInputError,
  NamespaceNotEmptyError,
} from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { newTableMetadata } from '../../src/iceberg/metadata-builder.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { formatIdentifier, type CreateTableRequest, type TableIdentifier } from '../catalog.js';
import { alreadyExists, checkPropertyChanges, messageOf, noSuchNamespace, noSuchTable } from '../catalog-errors.js';
import { escapeGlob, namespaceToString, normalizeWarehouse, stripTrailingSlash } from '../metadata-files.js';
import {
  PointerSwapCatalog,
  type InsertOutcome,
  type RemoveOutcome,
  type SwapOutcome,
  type TablePointer,
} from '../pointer-swap-catalog.js';
import { checkTableName, runSql, sqlError, sqliteCode } from './catalog-errors.js';
import {
  CATALOG_TABLE,
  NAMESPACE_EXISTS_PROPERTY,
  NAMESPACE_PROPERTIES_TABLE,
  TABLE_RECORD_TYPE,
  ensureCatalogSchema,
} from './schema.js';

/** pyiceberg's documented `load_catalog("default", type="sql", …)` name; Spark must use the same. */
export const DEFAULT_CATALOG_NAME = 'default';
const LOCATION_PROPERTY = 'location';
const IS_TABLE = `(iceberg_type = '${TABLE_RECORD_TYPE}' OR iceberg_type IS NULL)`;

export interface SqlCatalogOptions {
  /** The `catalog_name` column; several catalogs can share one file. Default "default". */
  readonly name?: string;
  /** The SQLite file (created with its parent folder when missing). */
  readonly databasePath: string;
  /** Root for default table locations: a URI (file:///…, s3://…) or an absolute path. */
  readonly warehouse: string;
  readonly io: FileIO;
  /** How long a write waits for another process's lock before failing. Default 30 s. */
  readonly busyTimeoutMs?: number;
}

interface TableRow {
  readonly metadata_location: string | null;
}

export class SqlCatalog extends PointerSwapCatalog<undefined> {
  readonly name: string;
  private readonly db: BetterSqlite3.Database;
  private readonly warehouse: string;

  constructor(options: SqlCatalogOptions) {
    super(options.io);
    this.name = options.name ?? DEFAULT_CATALOG_NAME;
    this.warehouse = normalizeWarehouse(options.warehouse);
    mkdirSync(dirname(options.databasePath), { recursive: true });
    this.db = new Database(options.databasePath, { timeout: options.busyTimeoutMs ?? 30_000 });
    ensureCatalogSchema(this.db);
  }

  async listNamespaces(parent: readonly string[] = []): Promise<string[][]> {
    if (parent.length > 0 && !(await this.namespaceExists(parent))) throw noSuchNamespace(parent);
    const rows = this.db
      .prepare(
        `SELECT table_namespace AS ns FROM ${CATALOG_TABLE} WHERE catalog_name = ? ` +
          `UNION SELECT namespace AS ns FROM ${NAMESPACE_PROPERTIES_TABLE} WHERE catalog_name = ?`,
      )
      .all(this.name, this.name) as { ns: string }[];
    const children = new Map<string, string[]>(); // keyed by the dot-joined child
    for (const { ns } of rows) {
      const levels = ns.split('.');
      if (levels.length <= parent.length || !parent.every((level, i) => levels[i] === level)) continue;
      const child = levels.slice(0, parent.length + 1);
      children.set(child.join('.'), child);
    }
    return [...children.keys()].sort().map((key) => children.get(key) ?? []);
  }

  async createNamespace(
    namespace: readonly string[],
    properties: Readonly<Record<string, string>> = {},
  ): Promise<void> {
    const ns = namespaceToString(namespace);
    if (NAMESPACE_EXISTS_PROPERTY in properties) {
      throw new InvalidInputError(`Cannot set reserved namespace property "${NAMESPACE_EXISTS_PROPERTY}"`, {
        context: { namespace: ns, property: NAMESPACE_EXISTS_PROPERTY },
      });
    }
    const insert = this.db.prepare(
      `INSERT INTO ${NAMESPACE_PROPERTIES_TABLE} (catalog_name, namespace, property_key, property_value) ` +
        'VALUES (?, ?, ?, ?)',
    );
    const create = this.db.transaction(() => {
      if (this.namespaceExistsSync(ns)) {
        throw new AlreadyExistsError(`Namespace ${ns} already exists`, { context: { namespace: ns } });
      }
      for (const [key, value] of Object.entries(properties)) insert.run(this.name, ns, key, value);
      insert.run(this.name, ns, NAMESPACE_EXISTS_PROPERTY, 'true');
    });
    runSql(this.name, `create namespace ${ns}`, () => create.immediate());
  }

  /** Fails with NoSuchNamespaceError, or NAMESPACE_NOT_EMPTY while it holds tables, views or child namespaces. */
  async dropNamespace(namespace: readonly string[]): Promise<void> {
    const ns = namespaceToString(namespace);
    const drop = this.db.transaction(() => {
      if (!this.namespaceRowExists(ns)) throw noSuchNamespace(namespace);
      const held = this.db
        .prepare(
          `SELECT table_name AS name FROM ${CATALOG_TABLE} WHERE catalog_name = ? AND ` +
            '(table_namespace = ? OR table_namespace GLOB ?) LIMIT 1',
        )
        .get(this.name, ns, `${escapeGlob(ns)}.*`) as { name: string } | undefined;
      const child = this.db
        .prepare(`SELECT namespace FROM ${NAMESPACE_PROPERTIES_TABLE} WHERE catalog_name = ? AND namespace GLOB ? LIMIT 1`)
        .get(this.name, `${escapeGlob(ns)}.*`);
      if (held !== undefined || child !== undefined) {
        throw new NamespaceNotEmptyError(`Namespace ${ns} is not empty: it holds tables, views or namespaces`, {
          context: { namespace: ns },
        });
      }
      this.db.prepare(`DELETE FROM ${NAMESPACE_PROPERTIES_TABLE} WHERE catalog_name = ? AND namespace = ?`).run(this.name, ns);
    });
    runSql(this.name, `drop namespace ${ns}`, () => drop.immediate());
  }

  async namespaceExists(namespace: readonly string[]): Promise<boolean> {
    return this.namespaceExistsSync(namespaceToString(namespace));
  }

  /** Properties of a namespace, without the reserved `exists` marker. */
  async loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>> {
    const ns = namespaceToString(namespace);
    if (!this.namespaceExistsSync(ns)) throw noSuchNamespace(namespace);
    const rows = this.db
      .prepare(
        `SELECT property_key AS k, property_value AS v FROM ${NAMESPACE_PROPERTIES_TABLE} ` +
          'WHERE catalog_name = ? AND namespace = ?',
      )
      .all(this.name, ns) as { k: string | null; v: string | null }[];
    const properties: Record<string, string> = {};
    for (const { k, v } of rows) if (k !== null && k !== NAMESPACE_EXISTS_PROPERTY) properties[k] = v ?? '';
    return properties;
  }

  async listTables(namespace: readonly string[]): Promise<TableIdentifier[]> {
    const ns = namespaceToString(namespace);
    if (!this.namespaceExistsSync(ns)) throw noSuchNamespace(namespace);
    const rows = this.db
      .prepare(
        `SELECT table_name AS name FROM ${CATALOG_TABLE} WHERE catalog_name = ? AND table_namespace = ? ` +
          `AND ${IS_TABLE} ORDER BY table_name`,
      )
      .all(this.name, ns) as { name: string }[];
    return rows.map(({ name }) => ({ namespace: [...namespace], name }));
  }

  async tableExists(identifier: TableIdentifier): Promise<boolean> {
    return this.tableRow(identifier) !== undefined;
  }

  /** New-table metadata at the default (or requested) location; nothing is written. */
  async stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata> {
    const ns = namespaceToString(identifier.namespace);
    checkTableName(identifier);
    if (!this.namespaceExistsSync(ns)) throw noSuchNamespace(identifier.namespace);
    if (this.anyRowExists(identifier)) throw alreadyExists(identifier);
    const location = stripTrailingSlash(request.location ?? (await this.defaultTableLocation(identifier)));
    return newTableMetadata({
      location,
      schema: request.schema,
      partitionSpec: request.partitionSpec,
      sortOrder: request.sortOrder,
      properties: request.properties ?? {},
    });
  }

  protected async readPointer(identifier: TableIdentifier): Promise<TablePointer<undefined> | undefined> {
    const row = this.tableRow(identifier);
    if (row === undefined) return undefined;
    if (row.metadata_location === null || row.metadata_location === '') {
      throw new IcebergFormatError(`Table ${formatIdentifier(identifier)} has no metadata_location in the catalog`, {
        context: { table: formatIdentifier(identifier) },
      });
    }
    return { metadataLocation: row.metadata_location, token: undefined };
  }

  /** JdbcTableOperations' compare-and-swap: `UPDATE … WHERE metadata_location = <base>`. */
  protected async swapPointer(identifier: TableIdentifier, base: TablePointer<undefined>, nextLocation: string): Promise<SwapOutcome> {
    const table = formatIdentifier(identifier);
    let changed: number;
    try {
      changed = this.db
        .prepare(
          `UPDATE ${CATALOG_TABLE} SET metadata_location = ?, previous_metadata_location = ? ` +
            'WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ? ' +
            `AND ${IS_TABLE}`,
        )
        .run(nextLocation, base.metadataLocation, this.name, namespaceToString(identifier.namespace), identifier.name, base.metadataLocation)
        .changes;
    } catch (error) {
      const code = sqliteCode(error);
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        // The statement never ran: nothing references the new file.
        const busy = new CommitConflictError(`Cannot commit ${table}: the catalog database is busy`, {
          cause: error,
          context: { table, reason: 'database-busy' },
        });
        return { kind: 'refused', error: busy };
      }
      throw new CommitStateUnknownError(`Commit of ${table} failed in SQLite: ${messageOf(error)}`, {
        cause: error,
        context: { table, metadataLocation: nextLocation },
      });
    }
    if (changed === 1) return { kind: 'done' };
    const conflict = new CommitConflictError(`Cannot commit ${table}: its metadata changed since ${base.metadataLocation} was read`, {
      context: { table, baseMetadataLocation: base.metadataLocation },
    });
    return { kind: 'refused', error: conflict };
  }

  /** One INSERT: a SQLite failure is definite, a duplicate key means the name is taken. */
  protected async insertPointer(identifier: TableIdentifier, metadataLocation: string): Promise<InsertOutcome> {
    try {
      this.db
        .prepare(
          `INSERT INTO ${CATALOG_TABLE} (catalog_name, table_namespace, table_name, metadata_location, ` +
            'previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, ?)',
        )
        .run(this.name, namespaceToString(identifier.namespace), identifier.name, metadataLocation, TABLE_RECORD_TYPE);
      return { kind: 'done' };
    } catch (error) {
      if (sqliteCode(error).startsWith('SQLITE_CONSTRAINT')) return { kind: 'exists', cause: error };
      return { kind: 'refused', error: sqlError(this.name, `create table ${formatIdentifier(identifier)}`, error) };
    }
  }

  protected async removePointer(identifier: TableIdentifier, expected: TablePointer<undefined> | undefined): Promise<RemoveOutcome> {
    const where = 'WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ' + IS_TABLE;
    const key = [this.name, namespaceToString(identifier.namespace), identifier.name];
    const result = runSql(this.name, `drop table ${formatIdentifier(identifier)}`, () =>
      expected === undefined
        ? this.db.prepare(`DELETE FROM ${CATALOG_TABLE} ${where}`).run(...key)
        : this.db.prepare(`DELETE FROM ${CATALOG_TABLE} ${where} AND metadata_location = ?`).run(...key, expected.metadataLocation),
    );
    if (result.changes === 1) return 'removed';
    return expected !== undefined && this.tableRow(identifier) !== undefined ? 'changed' : 'missing';
  }

  protected async checkCreatable(identifier: TableIdentifier): Promise<void> {
    checkTableName(identifier);
    if (!this.namespaceExistsSync(namespaceToString(identifier.namespace))) throw noSuchNamespace(identifier.namespace);
  }

  /** Sets and removes namespace properties in one transaction (JdbcCatalog's property rows). */
  async updateNamespaceProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    const ns = namespaceToString(namespace);
    checkPropertyChanges(namespace, removals, updates, [NAMESPACE_EXISTS_PROPERTY]);
    const where = 'WHERE catalog_name = ? AND namespace = ? AND property_key = ?';
    const remove = this.db.prepare(`DELETE FROM ${NAMESPACE_PROPERTIES_TABLE} ${where}`);
    const update = this.db.prepare(`UPDATE ${NAMESPACE_PROPERTIES_TABLE} SET property_value = ? ${where}`);
    const insert = this.db.prepare(
      `INSERT INTO ${NAMESPACE_PROPERTIES_TABLE} (catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)`,
    );
    const apply = this.db.transaction(() => {
      if (!this.namespaceRowExists(ns)) throw noSuchNamespace(namespace);
      for (const key of removals) remove.run(this.name, ns, key);
      for (const [key, value] of Object.entries(updates)) {
        if (update.run(value, this.name, ns, key).changes === 0) insert.run(this.name, ns, key, value);
      }
    });
    runSql(this.name, `update properties of namespace ${ns}`, () => apply.immediate());
  }

  /** One UPDATE of the row's key (JdbcCatalog.renameTable), checked inside the same transaction. */
  async renameTable(from: TableIdentifier, to: TableIdentifier): Promise<void> {
    checkTableName(to);
    const toNs = namespaceToString(to.namespace);
    const rename = this.db.transaction(() => {
      if (this.tableRow(from) === undefined) throw noSuchTable(from);
      if (!this.namespaceRowExists(toNs)) throw noSuchNamespace(to.namespace);
      if (this.anyRowExists(to)) throw alreadyExists(to);
      const changed = this.db
        .prepare(
          `UPDATE ${CATALOG_TABLE} SET table_namespace = ?, table_name = ? ` +
            `WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ${IS_TABLE}`,
        )
        .run(toNs, to.name, this.name, namespaceToString(from.namespace), from.name).changes;
      if (changed !== 1) throw noSuchTable(from);
    });
    try {
      rename.immediate();
    } catch (error) {
      if (sqliteCode(error).startsWith('SQLITE_CONSTRAINT')) throw alreadyExists(to, error);
      throw sqlError(this.name, `rename table ${formatIdentifier(from)} to ${formatIdentifier(to)}`, error);
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private namespaceExistsSync(ns: string): boolean {
    return runSql(this.name, `look up namespace ${ns}`, () => this.namespaceRowExists(ns));
  }

  /** GLOB, not the JDBC catalog's LIKE: SQLite's LIKE ignores ASCII case, GLOB does not. */
  private namespaceRowExists(ns: string): boolean {
    const startsWith = `${escapeGlob(ns)}.*`;
    const inTables = this.db
      .prepare(
        `SELECT 1 FROM ${CATALOG_TABLE} WHERE catalog_name = ? AND ` +
          '(table_namespace = ? OR table_namespace GLOB ?) LIMIT 1',
      )
      .get(this.name, ns, startsWith);
    if (inTables !== undefined) return true;
    const inProperties = this.db
      .prepare(
        `SELECT 1 FROM ${NAMESPACE_PROPERTIES_TABLE} WHERE catalog_name = ? AND ` +
          '(namespace = ? OR namespace GLOB ?) LIMIT 1',
      )
      .get(this.name, ns, startsWith);
    return inProperties !== undefined;
  }

  private tableRow(identifier: TableIdentifier): TableRow | undefined {
    const ns = namespaceToString(identifier.namespace);
    const select = this.db.prepare(
      `SELECT metadata_location FROM ${CATALOG_TABLE} ` +
        `WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ${IS_TABLE}`,
    );
    return runSql(this.name, `load table ${formatIdentifier(identifier)}`, () => select.get(this.name, ns, identifier.name)) as
      | TableRow
      | undefined;
  }

  /** A table or a view of that name (they share the primary key). */
  private anyRowExists(identifier: TableIdentifier): boolean {
    const row = this.db
      .prepare(`SELECT 1 FROM ${CATALOG_TABLE} WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`)
      .get(this.name, namespaceToString(identifier.namespace), identifier.name);
    return row !== undefined;
  }

  /** `<namespace location property>/<table>`, else `<warehouse>/<level>/…/<table>` (JdbcCatalog's layout). */
  private async defaultTableLocation(identifier: TableIdentifier): Promise<string> {
    const nsLocation = (await this.loadNamespaceProperties(identifier.namespace))[LOCATION_PROPERTY];
    if (nsLocation !== undefined && nsLocation !== '') return `${stripTrailingSlash(nsLocation)}/${identifier.name}`;
    return [this.warehouse, ...identifier.namespace, identifier.name].join('/');
  }

}
