/**
 * The catalog contract every implementation (embedded SQL, REST, Glue) fulfils. Commits are
 * plain data: requirements checked against the current metadata, then updates applied.
 */
import type { TableMetadata } from '../src/iceberg/table-metadata.js';
import type { Schema } from '../src/iceberg/types.js';
import type { PartitionSpec, SortOrder } from '../src/iceberg/table-metadata.js';
import type { TableRequirement } from '../src/iceberg/requirements.js';
import type { TableUpdate } from '../src/iceberg/updates.js';
import type { FileIO } from '../src/iceberg/file-io.js';

export interface TableIdentifier {
  readonly namespace: readonly string[];
  readonly name: string;
}

export interface LoadedTable {
  readonly identifier: TableIdentifier;
  readonly metadataLocation: string;
  readonly metadata: TableMetadata;
  readonly io: FileIO;
}

export interface CreateTableRequest {
  readonly schema: Schema;
  readonly partitionSpec?: PartitionSpec;
  readonly sortOrder?: SortOrder;
  readonly location?: string;
  readonly properties?: Readonly<Record<string, string>>;
}

export interface Catalog {
  readonly name: string;
  listNamespaces(parent?: readonly string[]): Promise<string[][]>;
  createNamespace(namespace: readonly string[], properties?: Readonly<Record<string, string>>): Promise<void>;
  namespaceExists(namespace: readonly string[]): Promise<boolean>;
  /** Removes an empty namespace; fails with a conflict when it still holds tables. */
  dropNamespace(namespace: readonly string[]): Promise<void>;
  /** The namespace's properties; NoSuchNamespaceError when it does not exist. */
  loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>>;
  /** Removes then sets properties; a key in both lists is an InvalidInputError. */
  updateNamespaceProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void>;
  listTables(namespace: readonly string[]): Promise<TableIdentifier[]>;
  tableExists(identifier: TableIdentifier): Promise<boolean>;
  loadTable(identifier: TableIdentifier): Promise<LoadedTable>;
  createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable>;
  /**
   * Metadata for a table that does not exist yet, at the catalog's default location, persisted
   * nowhere (REST stage-create). The caller writes data against it and creates the table with
   * its first snapshot in one step: commitTable with `assert-create` and the create updates
   * (updatesForCreate) followed by the snapshot updates.
   */
  stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata>;
  /**
   * The FileIO for a table's files, for catalogs that hand out storage access per table (REST
   * vended credentials, a stage-create answer's included, before the table exists).
   */
  tableIO?(identifier: TableIdentifier): FileIO;
  /**
   * Atomically checks `requirements` against the current metadata and applies `updates`.
   * Throws CommitConflictError when a requirement fails (refresh and retry),
   * CommitStateUnknownError when the outcome cannot be known.
   */
  commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable>;
  /**
   * Adds an existing table by its metadata file (e.g. written elsewhere or restored).
   * AlreadyExistsError when the identifier is taken.
   */
  registerTable(identifier: TableIdentifier, metadataLocation: string): Promise<LoadedTable>;
  /** NoSuchTableError when `from` is missing, AlreadyExistsError when `to` exists. Files stay where they are. */
  renameTable(from: TableIdentifier, to: TableIdentifier): Promise<void>;
  /**
   * Removes the catalog entry. With `purge`, also deletes every file the table's metadata
   * references (data, delete, manifest, manifest list, metadata files); REST servers do this
   * server-side (`purgeRequested=true`).
   */
  dropTable(identifier: TableIdentifier, purge?: boolean): Promise<void>;
  close(): Promise<void>;
}

export function formatIdentifier(identifier: TableIdentifier): string {
  return [...identifier.namespace, identifier.name].join('.');
}
