/**
 * AWS Glue Data Catalog as an Iceberg catalog, laid out as Iceberg's Java GlueCatalog lays it
 * out: one Glue database per (single-level) namespace, one EXTERNAL_TABLE per Iceberg table whose
 * parameters `metadata_location` / `previous_metadata_location` point at metadata JSON files we
 * write through the FileIO. A commit is a compare-and-swap on the Glue table: UpdateTable with
 * the VersionId read by GetTable, so a writer that read an older version loses. The commit,
 * create, register and drop flow is PointerSwapCatalog's; this file supplies the Glue calls.
 */
import {
  AlreadyExistsException,
  ConcurrentModificationException,
  CreateDatabaseCommand,
  CreateTableCommand,
  DeleteDatabaseCommand,
  DeleteTableCommand,
  GetDatabaseCommand,
  GetDatabasesCommand,
  GetTableCommand,
  GetTablesCommand,
  GlueClient,
  UpdateDatabaseCommand,
  UpdateTableCommand,
  type Database as GlueDatabase,
  type Table as GlueTable,
} from '@aws-sdk/client-glue';
import { AlreadyExistsError, CommitConflictError, NamespaceNotEmptyError, NoSuchTableError, ThundError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { newTableMetadata } from '../../src/iceberg/metadata-builder.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { REGISTER_SENT_AWS_CREDENTIALS, registerSentAwsCredentials } from '../../src/aws-request-secrets.js';
import { registerAwsKeys } from '../../src/secrets.js';
import { formatIdentifier, type CreateTableRequest, type TableIdentifier } from '../catalog.js';
import { alreadyExists, checkPropertyChanges, messageOf, noSuchNamespace, noSuchTable } from '../catalog-errors.js';
import { stripTrailingSlash } from '../metadata-files.js';
import {
  PointerSwapCatalog,
  type InsertOutcome,
  type RemoveOutcome,
  type SwapOutcome,
  type TablePointer,
} from '../pointer-swap-catalog.js';
import { checkTableName, databaseName, glueError, isClientRejection, isNotFound, unknownOutcome } from './glue-errors.js';
import {
  copiedTableInput,
  currentMetadataLocation,
  databaseInput,
  isIcebergTable,
  METADATA_LOCATION,
  namespaceProperties,
  tableInput,
} from './glue-mapping.js';

export interface GlueCatalogOptions {
  readonly name?: string;
  /** Root of default locations, e.g. s3://bucket/prefix; tables go to `<warehouse>/<db>.db/<table>`. */
  readonly warehouse: string;
  readonly io: FileIO;
  readonly glue: {
    readonly endpoint?: string;
    readonly region: string;
    readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  };
}

export class GlueCatalog extends PointerSwapCatalog<GlueTable> {
  readonly name: string;
  private readonly warehouse: string;
  private readonly client: GlueClient;

  constructor(options: GlueCatalogOptions) {
    super(options.io);
    this.name = options.name ?? 'glue';
    this.warehouse = stripTrailingSlash(options.warehouse);
    if (options.glue.credentials !== undefined) registerAwsKeys(options.glue.credentials);
    this.client = new GlueClient({
      region: options.glue.region,
      ...(options.glue.endpoint === undefined ? {} : { endpoint: options.glue.endpoint }),
      ...(options.glue.credentials === undefined ? {} : { credentials: { ...options.glue.credentials } }),
    });
    this.client.middlewareStack.add(registerSentAwsCredentials, REGISTER_SENT_AWS_CREDENTIALS);
  }

  async listNamespaces(parent: readonly string[] = []): Promise<string[][]> {
    if (parent.length > 0) {
      if (!(await this.namespaceExists(parent))) throw noSuchNamespace(parent);
      return []; // Glue databases have no children
    }
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('list namespaces', () => this.client.send(new GetDatabasesCommand({ NextToken: token })));
      for (const db of page.DatabaseList ?? []) if (db.Name !== undefined) names.push(db.Name);
      token = page.NextToken;
    } while (token !== undefined && token !== '');
    return names.sort().map((n) => [n]);
  }

  async createNamespace(namespace: readonly string[], properties: Readonly<Record<string, string>> = {}): Promise<void> {
    const db = databaseName(namespace);
    const input = databaseInput(db, properties);
    try {
      const LocationUri = input.LocationUri ?? `${this.warehouse}/${db}.db`;
      await this.client.send(new CreateDatabaseCommand({ DatabaseInput: { ...input, LocationUri } }));
    } catch (error) {
      if (error instanceof AlreadyExistsException) {
        throw new AlreadyExistsError(`Namespace ${db} already exists`, { cause: error, context: { namespace: db } });
      }
      throw glueError(`create namespace ${db}`, error);
    }
  }

  async namespaceExists(namespace: readonly string[]): Promise<boolean> {
    return (await this.databaseLocation(databaseName(namespace))) !== null;
  }

  /** Glue's DeleteDatabase would drop the tables too, so a database holding any table is refused. */
  async dropNamespace(namespace: readonly string[]): Promise<void> {
    const db = databaseName(namespace);
    const page = await this.call(`list tables of ${db}`, () =>
      this.client.send(new GetTablesCommand({ DatabaseName: db, MaxResults: 1 })),
    ).catch((error: unknown) => {
      throw isNotFound(error) ? noSuchNamespace(namespace) : error;
    });
    if ((page.TableList ?? []).length > 0) {
      throw new NamespaceNotEmptyError(`Namespace ${db} is not empty: it holds tables`, { context: { namespace: db } });
    }
    try {
      await this.client.send(new DeleteDatabaseCommand({ Name: db }));
    } catch (error) {
      throw isNotFound(error) ? noSuchNamespace(namespace) : glueError(`drop namespace ${db}`, error);
    }
  }

  /** Iceberg tables only (Parameters.table_type = ICEBERG), as Java's GlueCatalog lists them. */
  async listTables(namespace: readonly string[]): Promise<TableIdentifier[]> {
    const db = databaseName(namespace);
    const names: string[] = [];
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(new GetTablesCommand({ DatabaseName: db, NextToken: token }));
      } catch (error) {
        throw isNotFound(error) ? noSuchNamespace(namespace) : glueError(`list tables of ${db}`, error);
      }
      for (const t of page.TableList ?? []) if (t.Name !== undefined && isIcebergTable(t)) names.push(t.Name);
      token = page.NextToken;
    } while (token !== undefined && token !== '');
    return names.sort().map((name) => ({ namespace: [db], name }));
  }

  async tableExists(identifier: TableIdentifier): Promise<boolean> {
    const table = await this.getGlueTable(identifier).catch((error: unknown) => {
      if (error instanceof NoSuchTableError) return undefined;
      throw error;
    });
    return table !== undefined && isIcebergTable(table);
  }

  async stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata> {
    const db = databaseName(identifier.namespace);
    checkTableName(identifier);
    const dbLocation = await this.databaseLocation(db);
    if (dbLocation === null) throw noSuchNamespace(identifier.namespace);
    if (await this.tableExists(identifier)) {
      throw alreadyExists(identifier);
    }
    const location = request.location ?? `${dbLocation === '' ? `${this.warehouse}/${db}.db` : stripTrailingSlash(dbLocation)}/${identifier.name}`;
    return newTableMetadata({
      location: stripTrailingSlash(location),
      schema: request.schema,
      partitionSpec: request.partitionSpec,
      sortOrder: request.sortOrder,
      properties: request.properties ?? {},
    });
  }

  protected async readPointer(identifier: TableIdentifier): Promise<TablePointer<GlueTable> | undefined> {
    const table = await this.getGlueTable(identifier).catch((error: unknown) => {
      if (error instanceof NoSuchTableError) return undefined;
      throw error;
    });
    return table === undefined ? undefined : { metadataLocation: currentMetadataLocation(identifier, table), token: table };
  }

  /** UpdateTable with the VersionId that was read; a refusal is re-checked, as the SDK may have retried an applied call. */
  protected async swapPointer(
    identifier: TableIdentifier,
    base: TablePointer<GlueTable>,
    nextLocation: string,
    next: TableMetadata,
  ): Promise<SwapOutcome> {
    const tableName = formatIdentifier(identifier);
    try {
      await this.client.send(
        new UpdateTableCommand({
          DatabaseName: databaseName(identifier.namespace),
          TableInput: tableInput(identifier.name, next, nextLocation, base.metadataLocation, base.token),
          VersionId: base.token.VersionId,
        }),
      );
      return { kind: 'done' };
    } catch (error) {
      if (!(error instanceof ConcurrentModificationException || isNotFound(error) || isClientRejection(error))) {
        throw unknownOutcome(tableName, nextLocation, error);
      }
      const now = await this.currentPointer(identifier);
      if (now === nextLocation) return { kind: 'done' };
      if (now === null) throw unknownOutcome(tableName, nextLocation, error);
      if (error instanceof ConcurrentModificationException || isNotFound(error)) {
        const conflict = new CommitConflictError(`Cannot commit ${tableName}: it changed since ${base.metadataLocation} was read`, {
          cause: error,
          context: { table: tableName, baseMetadataLocation: base.metadataLocation },
        });
        return { kind: 'refused', error: conflict };
      }
      return { kind: 'refused', error: glueError(`commit ${tableName}`, error) };
    }
  }

  /** CreateTable; "already exists" is re-checked, as it may answer a retried CreateTable whose first attempt applied. */
  protected async insertPointer(identifier: TableIdentifier, metadataLocation: string, metadata: TableMetadata): Promise<InsertOutcome> {
    try {
      await this.client.send(
        new CreateTableCommand({
          DatabaseName: databaseName(identifier.namespace),
          TableInput: tableInput(identifier.name, metadata, metadataLocation, undefined, undefined),
        }),
      );
      return { kind: 'done' };
    } catch (error) {
      if (error instanceof AlreadyExistsException) {
        const now = await this.currentPointer(identifier);
        if (now === metadataLocation) return { kind: 'done' };
        if (now === null) throw unknownOutcome(formatIdentifier(identifier), metadataLocation, error);
        return { kind: 'exists', cause: error };
      }
      if (isNotFound(error)) return { kind: 'refused', error: noSuchNamespace(identifier.namespace) };
      const failure = glueError(`create table ${formatIdentifier(identifier)}`, error);
      if (isClientRejection(error)) return { kind: 'refused', error: failure };
      throw failure;
    }
  }

  /** DeleteTable has no condition: `expected` is compared by VersionId just before, which narrows the race without closing it. */
  protected async removePointer(identifier: TableIdentifier, expected: TablePointer<GlueTable> | undefined): Promise<RemoveOutcome> {
    if (expected !== undefined) {
      const now = await this.getGlueTable(identifier).catch((error: unknown) => {
        if (error instanceof NoSuchTableError) return undefined;
        throw error;
      });
      if (now === undefined) return 'missing';
      if (now.VersionId !== expected.token.VersionId) return 'changed';
    }
    try {
      await this.client.send(new DeleteTableCommand({ DatabaseName: databaseName(identifier.namespace), Name: identifier.name }));
      return 'removed';
    } catch (error) {
      if (isNotFound(error)) return 'missing';
      throw glueError(`drop table ${formatIdentifier(identifier)}`, error);
    }
  }

  protected async checkCreatable(identifier: TableIdentifier): Promise<void> {
    checkTableName(identifier);
    if ((await this.databaseLocation(databaseName(identifier.namespace))) === null) throw noSuchNamespace(identifier.namespace);
  }

  /** The database's Parameters plus `location` (LocationUri) and `comment` (Description), as Java's GlueCatalog reports them. */
  async loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>> {
    return namespaceProperties(await this.getDatabase(namespace));
  }

  /** Read, change, UpdateDatabase with the whole input (Glue replaces it); `location` and `comment` map as on create. */
  async updateNamespaceProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    checkPropertyChanges(namespace, removals, updates);
    const db = databaseName(namespace);
    const database = await this.getDatabase(namespace);
    const properties = namespaceProperties(database);
    for (const key of removals) delete properties[key];
    Object.assign(properties, updates);
    const permissions = database.CreateTableDefaultPermissions;
    try {
      await this.client.send(
        new UpdateDatabaseCommand({
          Name: db,
          DatabaseInput: {
            ...databaseInput(db, properties),
            ...(permissions === undefined ? {} : { CreateTableDefaultPermissions: permissions }),
            ...(database.TargetDatabase === undefined ? {} : { TargetDatabase: database.TargetDatabase }),
          },
        }),
      );
    } catch (error) {
      throw isNotFound(error) ? noSuchNamespace(namespace) : glueError(`update properties of namespace ${db}`, error);
    }
  }

  /**
   * Glue cannot rename: CreateTable under the new name with the old table's input, then
   * DeleteTable of the old one, as Java's GlueCatalog does. The create is undone when the
   * old table changed meanwhile (its commit would be lost) or when the delete surely failed.
   */
  async renameTable(from: TableIdentifier, to: TableIdentifier): Promise<void> {
    checkTableName(to);
    const toDb = databaseName(to.namespace);
    const fromDb = databaseName(from.namespace);
    const source = await this.getGlueTable(from);
    if (!isIcebergTable(source)) throw noSuchTable(from);
    if ((await this.databaseLocation(toDb)) === null) throw noSuchNamespace(to.namespace);
    const what = `rename ${formatIdentifier(from)} to ${formatIdentifier(to)}`;
    try {
      await this.client.send(new CreateTableCommand({ DatabaseName: toDb, TableInput: copiedTableInput(to.name, source) }));
    } catch (error) {
      if (error instanceof AlreadyExistsException) throw alreadyExists(to, error);
      throw isNotFound(error) ? noSuchNamespace(to.namespace) : glueError(what, error);
    }
    const undo = async (cause: ThundError): Promise<never> => {
      try {
        await this.client.send(new DeleteTableCommand({ DatabaseName: toDb, Name: to.name }));
      } catch (error) {
        throw new ThundError(
          'RENAME_INCOMPLETE',
          `Cannot ${what}: ${cause.message}; undoing it failed too (${messageOf(error)}), so both names now point at the same table`,
          { cause, context: { table: formatIdentifier(from), destination: formatIdentifier(to) } },
        );
      }
      throw cause;
    };
    const now = await this.getGlueTable(from).catch((error: unknown) => (error instanceof ThundError ? error : glueError(what, error)));
    if (now instanceof ThundError) await undo(now);
    else if (now.VersionId !== source.VersionId) {
      await undo(new CommitConflictError(`Cannot ${what}: the table changed during the rename`, { context: { table: formatIdentifier(from) } }));
    }
    try {
      await this.client.send(new DeleteTableCommand({ DatabaseName: fromDb, Name: from.name }));
    } catch (error) {
      // A retried DeleteTable whose first attempt applied answers "not found": the old name is gone either way.
      const old = await this.currentPointer(from);
      if (old === undefined) return;
      const failure = glueError(what, error);
      if (old === null) {
        throw new ThundError('RENAME_STATE_UNKNOWN', `Cannot ${what}: ${failure.message}; both names may now exist`, {
          cause: error,
          context: { table: formatIdentifier(from), destination: formatIdentifier(to) },
        });
      }
      await undo(failure);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private async getDatabase(namespace: readonly string[]): Promise<GlueDatabase> {
    const db = databaseName(namespace);
    try {
      const { Database } = await this.client.send(new GetDatabaseCommand({ Name: db }));
      if (Database === undefined) throw noSuchNamespace(namespace);
      return Database;
    } catch (error) {
      if (error instanceof ThundError) throw error;
      throw isNotFound(error) ? noSuchNamespace(namespace) : glueError(`look up namespace ${db}`, error);
    }
  }

  private async getGlueTable(identifier: TableIdentifier): Promise<GlueTable> {
    const db = databaseName(identifier.namespace);
    try {
      const { Table } = await this.client.send(new GetTableCommand({ DatabaseName: db, Name: identifier.name }));
      if (Table === undefined) throw noSuchTable(identifier);
      return Table;
    } catch (error) {
      if (error instanceof ThundError) throw error;
      throw isNotFound(error) ? noSuchTable(identifier) : glueError(`load table ${formatIdentifier(identifier)}`, error);
    }
  }

  /** The table's metadata_location now; undefined when the table is gone, null when Glue cannot tell. */
  private async currentPointer(identifier: TableIdentifier): Promise<string | undefined | null> {
    return this.getGlueTable(identifier).then(
      (t) => t.Parameters?.[METADATA_LOCATION],
      (error: unknown) => (error instanceof NoSuchTableError ? undefined : null),
    );
  }

  /** The database's LocationUri ('' when it has none), or null when the database does not exist. */
  private async databaseLocation(db: string): Promise<string | null> {
    try {
      const { Database } = await this.client.send(new GetDatabaseCommand({ Name: db }));
      return Database?.LocationUri ?? '';
    } catch (error) {
      if (isNotFound(error)) return null;
      throw glueError(`look up namespace ${db}`, error);
    }
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isNotFound(error)) throw error;
      throw glueError(what, error);
    }
  }
}
