/**
 * AWS Glue Data Catalog as an Iceberg catalog, laid out as Iceberg's Java GlueCatalog lays it
 * out: one Glue database per (single-level) namespace, one EXTERNAL_TABLE per Iceberg table whose
 * parameters `metadata_location` / `previous_metadata_location` point at metadata JSON files we
 * write through the FileIO. A commit is a compare-and-swap on the Glue table: UpdateTable with
 * the VersionId read by GetTable, so a writer that read an older version loses.
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
  UpdateTableCommand,
  type Table as GlueTable,
  type TableInput,
} from '@aws-sdk/client-glue';
import { AlreadyExistsError, CommitConflictError, IcebergFormatError, InvalidInputError, NoSuchTableError, ThundError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { applyUpdates, newTableMetadata, tableMetadataFromUpdates } from '../../src/iceberg/metadata-builder.js';
import { readTableMetadata } from '../../src/iceberg/metadata-json.js';
import { validateRequirements, type TableRequirement } from '../../src/iceberg/requirements.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import { formatIdentifier, type Catalog, type CreateTableRequest, type LoadedTable, type TableIdentifier } from '../catalog.js';
import {
  checkTableName,
  databaseName,
  glueError,
  isClientRejection,
  isNotFound,
  unknownOutcome,
} from './glue-errors.js';
import { alreadyExists, createdConcurrently, noSuchNamespace, noSuchTable } from '../catalog-errors.js';
import { encodeMetadata, newMetadataFileLocation, parseMetadataVersion, stripTrailingSlash } from '../metadata-files.js';

const TABLE_TYPE = 'table_type';
const ICEBERG = 'ICEBERG';
const METADATA_LOCATION = 'metadata_location';
const PREVIOUS_METADATA_LOCATION = 'previous_metadata_location';
const LOCATION_PROPERTY = 'location';

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

export class GlueCatalog implements Catalog {
  readonly name: string;
  private readonly warehouse: string;
  private readonly io: FileIO;
  private readonly client: GlueClient;

  constructor(options: GlueCatalogOptions) {
    this.name = options.name ?? 'glue';
    this.warehouse = stripTrailingSlash(options.warehouse);
    this.io = options.io;
    this.client = new GlueClient({
      region: options.glue.region,
      ...(options.glue.endpoint === undefined ? {} : { endpoint: options.glue.endpoint }),
      ...(options.glue.credentials === undefined ? {} : { credentials: { ...options.glue.credentials } }),
    });
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
    const { [LOCATION_PROPERTY]: location, ...parameters } = properties;
    try {
      await this.client.send(
        new CreateDatabaseCommand({
          DatabaseInput: { Name: db, LocationUri: location ?? `${this.warehouse}/${db}.db`, Parameters: parameters },
        }),
      );
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
      throw new ThundError('NAMESPACE_NOT_EMPTY', `Namespace ${db} is not empty: it holds tables`, { context: { namespace: db } });
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

  async loadTable(identifier: TableIdentifier): Promise<LoadedTable> {
    const metadataLocation = currentMetadataLocation(identifier, await this.getGlueTable(identifier));
    return { identifier, metadataLocation, metadata: await this.readMetadata(metadataLocation), io: this.io };
  }

  async createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable> {
    const metadata = await this.stageCreateTable(identifier, request);
    return this.createGlueTable(
      identifier,
      metadata,
      (cause) => alreadyExists(identifier, cause),
    );
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

  async commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    const table = requirements.some((r) => r.type === 'assert-create')
      ? await this.getGlueTable(identifier).catch((error: unknown) => {
          if (error instanceof NoSuchTableError) return undefined;
          throw error;
        })
      : await this.getGlueTable(identifier);
    if (table === undefined) return this.commitCreate(identifier, requirements, updates);

    const baseLocation = currentMetadataLocation(identifier, table);
    const base = await this.readMetadata(baseLocation);
    validateRequirements(requirements, base);
    if (updates.length === 0) return { identifier, metadataLocation: baseLocation, metadata: base, io: this.io };

    const next = applyUpdates(base, updates, { previousMetadataLocation: baseLocation });
    const nextLocation = newMetadataFileLocation(next, parseMetadataVersion(baseLocation) + 1);
    await this.io.writeNew(nextLocation, encodeMetadata(next));
    const tableName = formatIdentifier(identifier);
    try {
      await this.client.send(
        new UpdateTableCommand({
          DatabaseName: databaseName(identifier.namespace),
          TableInput: tableInput(identifier.name, next, nextLocation, baseLocation, table),
          VersionId: table.VersionId,
        }),
      );
    } catch (error) {
      if (error instanceof ConcurrentModificationException || isNotFound(error) || isClientRejection(error)) {
        // The SDK retries UpdateTable, so a refusal may follow an attempt that did apply and whose
        // answer was lost: look before deleting anything.
        const now = await this.currentPointer(identifier);
        if (now === nextLocation) return { identifier, metadataLocation: nextLocation, metadata: next, io: this.io };
        if (now === null) throw unknownOutcome(tableName, nextLocation, error);
        await this.io.delete(nextLocation).catch(() => undefined);
        if (error instanceof ConcurrentModificationException || isNotFound(error)) {
          throw new CommitConflictError(`Cannot commit ${tableName}: it changed since ${baseLocation} was read`, {
            cause: error,
            context: { table: tableName, baseMetadataLocation: baseLocation },
          });
        }
        throw glueError(`commit ${tableName}`, error);
      }
      throw unknownOutcome(tableName, nextLocation, error);
    }
    return { identifier, metadataLocation: nextLocation, metadata: next, io: this.io };
  }

  async dropTable(identifier: TableIdentifier, purge = false): Promise<void> {
    if (purge) {
      throw new InvalidInputError(`Dropping ${formatIdentifier(identifier)} with purge is not supported yet`, {
        context: { table: formatIdentifier(identifier) },
      });
    }
    await this.getGlueTable(identifier); // NoSuchTableError when missing
    try {
      await this.client.send(new DeleteTableCommand({ DatabaseName: databaseName(identifier.namespace), Name: identifier.name }));
    } catch (error) {
      throw isNotFound(error) ? noSuchTable(identifier) : glueError(`drop table ${formatIdentifier(identifier)}`, error);
    }
  }

  async updateNamespaceProperties(
    namespace: readonly string[],
    _removals: readonly string[],
    _updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    throw new InvalidInputError(`Updating properties of ${namespace.join('.')} is not supported yet`, { context: { namespace: namespace.join('.') } });
  }

  async loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>> {
    throw new InvalidInputError(`Loading properties of ${namespace.join('.')} is not supported yet`, { context: { namespace: namespace.join('.') } });
  }

  async registerTable(identifier: TableIdentifier, _metadataLocation: string): Promise<LoadedTable> {
    throw new InvalidInputError(`Registering ${formatIdentifier(identifier)} is not supported yet`, { context: { table: formatIdentifier(identifier) } });
  }

  async renameTable(from: TableIdentifier, _to: TableIdentifier): Promise<void> {
    throw new InvalidInputError(`Renaming ${formatIdentifier(from)} is not supported yet`, { context: { table: formatIdentifier(from) } });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private async commitCreate(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    validateRequirements(requirements, undefined);
    checkTableName(identifier);
    return this.createGlueTable(
      identifier,
      tableMetadataFromUpdates(updates),
      (cause) => createdConcurrently(identifier, cause),
    );
  }

  /** Writes metadata version 0, then CreateTable; when Glue refuses, the file is removed again. */
  private async createGlueTable(
    identifier: TableIdentifier,
    metadata: TableMetadata,
    onExists: (cause: unknown) => ThundError,
  ): Promise<LoadedTable> {
    const metadataLocation = newMetadataFileLocation(metadata, 0);
    await this.io.writeNew(metadataLocation, encodeMetadata(metadata));
    try {
      await this.client.send(
        new CreateTableCommand({
          DatabaseName: databaseName(identifier.namespace),
          TableInput: tableInput(identifier.name, metadata, metadataLocation, undefined, undefined),
        }),
      );
    } catch (error) {
      if (error instanceof AlreadyExistsException) {
        // Perhaps a retried CreateTable whose first attempt did apply.
        const now = await this.currentPointer(identifier);
        if (now === metadataLocation) return { identifier, metadataLocation, metadata, io: this.io };
        if (now === null) throw unknownOutcome(formatIdentifier(identifier), metadataLocation, error);
      }
      if (error instanceof AlreadyExistsException || isNotFound(error) || isClientRejection(error)) {
        await this.io.delete(metadataLocation).catch(() => undefined);
      }
      if (error instanceof AlreadyExistsException) throw onExists(error);
      if (isNotFound(error)) throw noSuchNamespace(identifier.namespace);
      throw glueError(`create table ${formatIdentifier(identifier)}`, error);
    }
    return { identifier, metadataLocation, metadata, io: this.io };
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

  private async readMetadata(location: string): Promise<TableMetadata> {
    return readTableMetadata(await this.io.read(location), location);
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

/** Keeps whatever else the Glue table carried (other parameters, description) and swaps the pointers. */
function tableInput(
  name: string,
  metadata: TableMetadata,
  metadataLocation: string,
  previous: string | undefined,
  existing: GlueTable | undefined,
): TableInput {
  return {
    Name: name,
    TableType: 'EXTERNAL_TABLE',
    ...(existing?.Description === undefined ? {} : { Description: existing.Description }),
    Parameters: {
      ...(existing?.Parameters ?? {}),
      [TABLE_TYPE]: ICEBERG,
      [METADATA_LOCATION]: metadataLocation,
      ...(previous === undefined ? {} : { [PREVIOUS_METADATA_LOCATION]: previous }),
    },
    StorageDescriptor: { ...(existing?.StorageDescriptor ?? {}), Location: metadata.location },
  };
}

function isIcebergTable(table: GlueTable): boolean {
  return table.Parameters?.[TABLE_TYPE]?.toUpperCase() === ICEBERG;
}

function currentMetadataLocation(identifier: TableIdentifier, table: GlueTable): string {
  if (!isIcebergTable(table)) {
    throw new NoSuchTableError(`Glue table ${formatIdentifier(identifier)} is not an Iceberg table`, {
      context: { table: formatIdentifier(identifier), tableType: table.Parameters?.[TABLE_TYPE] ?? '' },
    });
  }
  const location = table.Parameters?.[METADATA_LOCATION];
  if (location === undefined || location === '') {
    throw new IcebergFormatError(`Glue table ${formatIdentifier(identifier)} has no ${METADATA_LOCATION} parameter`, {
      context: { table: formatIdentifier(identifier) },
    });
  }
  return location;
}
