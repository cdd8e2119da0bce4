/**
 * The embedded catalog: Iceberg's JDBC-catalog tables in a SQLite file (see schema.ts), table
 * metadata as JSON files through a FileIO. A commit writes a new metadata file, then swaps the
 * table's pointer with one compare-and-swap UPDATE (`… WHERE metadata_location = <base>`), the
 * same statement Java's JdbcTableOperations runs; SQLite's busy timeout serializes writers from
 * several processes.
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
  ThundError,
} from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { applyUpdates, newTableMetadata, tableMetadataFromUpdates } from '../../src/iceberg/metadata-builder.js';
import { readTableMetadata } from '../../src/iceberg/metadata-json.js';
import { validateRequirements, type TableRequirement } from '../../src/iceberg/requirements.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import {
  formatIdentifier,
  type Catalog,
  type CreateTableRequest,
  type LoadedTable,
  type TableIdentifier,
} from '../catalog.js';
import {
  CATALOG_TABLE,
  NAMESPACE_EXISTS_PROPERTY,
  NAMESPACE_PROPERTIES_TABLE,
  TABLE_RECORD_TYPE,
  ensureCatalogSchema,
} from './schema.js';
import { checkTableName, runSql, sqlError, sqliteCode } from './catalog-errors.js';
import { alreadyExists, createdConcurrently, messageOf, noSuchNamespace, noSuchTable } from '../catalog-errors.js';
import {
  encodeMetadata,
  escapeGlob,
  namespaceToString,
  newMetadataFileLocation,
  normalizeWarehouse,
  parseMetadataVersion,
  stripTrailingSlash,
} from '../metadata-files.js';

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

export class SqlCatalog implements Catalog {
  readonly name: string;
  private readonly db: BetterSqlite3.Database;
  private readonly warehouse: string;
  private readonly io: FileIO;

  constructor(options: SqlCatalogOptions) {
    this.name = options.name ?? DEFAULT_CATALOG_NAME;
    this.io = options.io;
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
        throw new ThundError('NAMESPACE_NOT_EMPTY', `Namespace ${ns} is not empty: it holds tables, views or namespaces`, {
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

  async loadTable(identifier: TableIdentifier): Promise<LoadedTable> {
    const metadataLocation = this.currentMetadataLocation(identifier);
    const metadata = await this.readMetadata(metadataLocation);
    return { identifier, metadataLocation, metadata, io: this.io };
  }

  async createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable> {
    const metadata = await this.stageCreateTable(identifier, request);
    return this.insertTable(identifier, metadata, (cause) => alreadyExists(identifier, cause));
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

  async commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    if (this.tableRow(identifier) === undefined && requirements.some((r) => r.type === 'assert-create')) {
      return this.commitCreate(identifier, requirements, updates);
    }
    const baseLocation = this.currentMetadataLocation(identifier);
    const base = await this.readMetadata(baseLocation);
    validateRequirements(requirements, base);
    if (updates.length === 0) return { identifier, metadataLocation: baseLocation, metadata: base, io: this.io };

    const next = applyUpdates(base, updates, { previousMetadataLocation: baseLocation });
    const nextLocation = newMetadataFileLocation(next, parseMetadataVersion(baseLocation) + 1);
    await this.io.writeNew(nextLocation, encodeMetadata(next));

    let changed: number;
    try {
      changed = this.db
        .prepare(
          `UPDATE ${CATALOG_TABLE} SET metadata_location = ?, previous_metadata_location = ? ` +
            'WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ? ' +
            `AND ${IS_TABLE}`,
        )
        .run(nextLocation, baseLocation, this.name, namespaceToString(identifier.namespace), identifier.name, baseLocation)
        .changes;
    } catch (error) {
      const code = sqliteCode(error);
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        // The statement never ran: nothing references the new file.
        await this.io.delete(nextLocation).catch(() => undefined);
        throw new CommitConflictError(`Cannot commit ${formatIdentifier(identifier)}: the catalog database is busy`, {
          cause: error,
          context: { table: formatIdentifier(identifier), reason: 'database-busy' },
        });
      }
      throw new CommitStateUnknownError(`Commit of ${formatIdentifier(identifier)} failed in SQLite: ${messageOf(error)}`, {
        cause: error,
        context: { table: formatIdentifier(identifier), metadataLocation: nextLocation },
      });
    }
    if (changed !== 1) {
      await this.io.delete(nextLocation).catch(() => undefined);
      throw new CommitConflictError(
        `Cannot commit ${formatIdentifier(identifier)}: its metadata changed since ${baseLocation} was read`,
        { context: { table: formatIdentifier(identifier), baseMetadataLocation: baseLocation } },
      );
    }
    return { identifier, metadataLocation: nextLocation, metadata: next, io: this.io };
  }

  /** A table created by its first commit (stage-create, then `assert-create` + create updates). */
  private async commitCreate(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    validateRequirements(requirements, undefined);
    checkTableName(identifier);
    if (!this.namespaceExistsSync(namespaceToString(identifier.namespace))) throw noSuchNamespace(identifier.namespace);
    const metadata = tableMetadataFromUpdates(updates);
    return this.insertTable(
      identifier,
      metadata,
      (cause) => createdConcurrently(identifier, cause),
    );
  }

  /** Writes metadata version 0 and inserts the catalog row; a duplicate key removes the file again. */
  private async insertTable(
    identifier: TableIdentifier,
    metadata: TableMetadata,
    onDuplicate: (cause: unknown) => ThundError,
  ): Promise<LoadedTable> {
    const metadataLocation = newMetadataFileLocation(metadata, 0);
    await this.io.writeNew(metadataLocation, encodeMetadata(metadata));
    try {
      this.db
        .prepare(
          `INSERT INTO ${CATALOG_TABLE} (catalog_name, table_namespace, table_name, metadata_location, ` +
            'previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, ?)',
        )
        .run(this.name, namespaceToString(identifier.namespace), identifier.name, metadataLocation, TABLE_RECORD_TYPE);
    } catch (error) {
      await this.io.delete(metadataLocation).catch(() => undefined);
      if (sqliteCode(error).startsWith('SQLITE_CONSTRAINT')) throw onDuplicate(error);
      throw sqlError(this.name, `create table ${formatIdentifier(identifier)}`, error);
    }
    return { identifier, metadataLocation, metadata, io: this.io };
  }

  /** Removes the catalog entry. `purge` (deleting the table's files) is not supported yet. */
  async dropTable(identifier: TableIdentifier, purge = false): Promise<void> {
    if (purge) {
      throw new InvalidInputError(`Dropping ${formatIdentifier(identifier)} with purge is not supported yet`, {
        context: { table: formatIdentifier(identifier) },
      });
    }
    const result = runSql(this.name, `drop table ${formatIdentifier(identifier)}`, () =>
      this.db
        .prepare(
          `DELETE FROM ${CATALOG_TABLE} WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ${IS_TABLE}`,
        )
        .run(this.name, namespaceToString(identifier.namespace), identifier.name),
    );
    if (result.changes === 0) throw noSuchTable(identifier);
  }

  async updateNamespaceProperties(
    namespace: readonly string[],
    _removals: readonly string[],
    _updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    throw new InvalidInputError(`Updating properties of ${namespace.join('.')} is not supported yet`, { context: { namespace: namespace.join('.') } });
  }

  async registerTable(identifier: TableIdentifier, _metadataLocation: string): Promise<LoadedTable> {
    throw new InvalidInputError(`Registering ${formatIdentifier(identifier)} is not supported yet`, { context: { table: formatIdentifier(identifier) } });
  }

  async renameTable(from: TableIdentifier, _to: TableIdentifier): Promise<void> {
    throw new InvalidInputError(`Renaming ${formatIdentifier(from)} is not supported yet`, { context: { table: formatIdentifier(from) } });
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

  private currentMetadataLocation(identifier: TableIdentifier): string {
    const row = this.tableRow(identifier);
    if (row === undefined) throw noSuchTable(identifier);
    if (row.metadata_location === null || row.metadata_location === '') {
      throw new IcebergFormatError(`Table ${formatIdentifier(identifier)} has no metadata_location in the catalog`, {
        context: { table: formatIdentifier(identifier) },
      });
    }
    return row.metadata_location;
  }

  private async readMetadata(location: string): Promise<TableMetadata> {
    return readTableMetadata(await this.io.read(location), location);
  }

  /** `<namespace location property>/<table>`, else `<warehouse>/<level>/…/<table>` (JdbcCatalog's layout). */
  private async defaultTableLocation(identifier: TableIdentifier): Promise<string> {
    const nsLocation = (await this.loadNamespaceProperties(identifier.namespace))[LOCATION_PROPERTY];
    if (nsLocation !== undefined && nsLocation !== '') return `${stripTrailingSlash(nsLocation)}/${identifier.name}`;
    return [this.warehouse, ...identifier.namespace, identifier.name].join('/');
  }

}
