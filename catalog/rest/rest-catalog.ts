/**
 * The Catalog contract over the Iceberg REST protocol (ICEBERG.md §7). The server does the
 * atomic metadata swap; this client sends requirements + updates and maps failures onto
 * CommitConflictError (409) and CommitStateUnknownError (5xx / no response) for the caller's
 * retry logic. File access goes through the FileIO the caller gives (vended credentials: later).
 */
import { CommitStateUnknownError, InvalidInputError, ThundError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { stringifyJson } from '../../src/iceberg/json.js';
import { parseTableMetadata, partitionSpecToJson, sortOrderToJson } from '../../src/iceberg/metadata-json.js';
import type { TableRequirement } from '../../src/iceberg/requirements.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { schemaToJson } from '../../src/iceberg/type-json.js';
import { commitRequestToJson } from '../../src/iceberg/update-json.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import { formatIdentifier, type Catalog, type CreateTableRequest, type LoadedTable, type TableIdentifier } from '../catalog.js';
import { fetchConfig, type RestConfig } from './config.js';
import { createAuthProvider, type RestAuthOptions } from './auth.js';
import { RestHttp } from './http.js';
import { commitTableWire, createNamespaceWire, listNamespacesWire, listTablesWire, loadTableWire } from './wire.js';

export interface RestCatalogOptions {
  /** Catalog base URI, without `/v1`. */
  readonly uri: string;
  readonly warehouse?: string;
  /** Static bearer token. */
  readonly token?: string;
  /** Bearer, OAuth2 client credentials or SigV4; takes precedence over `token`. */
  readonly auth?: RestAuthOptions;
  /** Storage access for the tables' files. */
  readonly io: FileIO;
  /** Catalog name reported by `name`; default `rest`. */
  readonly name?: string;
  /** Client properties merged between the server's defaults and overrides. */
  readonly properties?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export class RestCatalog implements Catalog {
  readonly name: string;

  private constructor(
    private readonly http: RestHttp,
    readonly config: RestConfig,
    private readonly io: FileIO,
    name: string,
  ) {
    this.name = name;
  }

  /** Fetches `/v1/config` and returns a client using its prefix and namespace separator. */
  static async connect(options: RestCatalogOptions): Promise<RestCatalog> {
    const http = new RestHttp({
      uri: options.uri,
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.auth === undefined ? {} : { auth: createAuthProvider(options.auth, options) }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    const config = await fetchConfig(http, options.warehouse, options.properties ?? {});
    http.setPrefix(config.prefix);
    return new RestCatalog(http, config, options.io, options.name ?? 'rest');
  }

  async listNamespaces(parent?: readonly string[]): Promise<string[][]> {
    const out: string[][] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.http.request({
        method: 'GET',
        path: '/namespaces',
        query: {
          parent: parent === undefined || parent.length === 0 ? undefined : parent.join(this.config.namespaceSeparator),
          pageToken,
        },
        response: listNamespacesWire,
        operation: 'read',
        notFound: 'namespace',
        context: { namespace: parent?.join('.') },
      });
      out.push(...(page?.namespaces ?? []));
      pageToken = page?.['next-page-token'] ?? undefined;
    } while (pageToken !== undefined && pageToken !== '');
    return out;
  }

  async createNamespace(namespace: readonly string[], properties: Readonly<Record<string, string>> = {}): Promise<void> {
    await this.http.request({
      method: 'POST',
      path: '/namespaces',
      body: { namespace: [...namespace], properties: { ...properties } },
      response: createNamespaceWire,
      operation: 'create',
      context: { namespace: namespace.join('.') },
    });
  }

  namespaceExists(namespace: readonly string[]): Promise<boolean> {
    return this.http.exists({ path: this.namespacePath(namespace), operation: 'read', context: { namespace: namespace.join('.') } });
  }

  async dropNamespace(namespace: readonly string[]): Promise<void> {
    await this.http.request({
      method: 'DELETE',
      path: this.namespacePath(namespace),
      operation: 'drop',
      notFound: 'namespace',
      context: { namespace: namespace.join('.') },
    });
  }

  async listTables(namespace: readonly string[]): Promise<TableIdentifier[]> {
    const out: TableIdentifier[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.http.request({
        method: 'GET',
        path: `${this.namespacePath(namespace)}/tables`,
        query: { pageToken },
        response: listTablesWire,
        operation: 'read',
        notFound: 'namespace',
        context: { namespace: namespace.join('.') },
      });
      for (const id of page?.identifiers ?? []) out.push({ namespace: id.namespace, name: id.name });
      pageToken = page?.['next-page-token'] ?? undefined;
    } while (pageToken !== undefined && pageToken !== '');
    return out;
  }

  tableExists(identifier: TableIdentifier): Promise<boolean> {
    return this.http.exists({ path: this.tablePath(identifier), operation: 'read', context: { table: formatIdentifier(identifier) } });
  }

  async loadTable(identifier: TableIdentifier): Promise<LoadedTable> {
    const body = await this.http.request({
      method: 'GET',
      path: this.tablePath(identifier),
      query: { snapshots: 'all' },
      response: loadTableWire,
      operation: 'read',
      notFound: 'table',
      context: { table: formatIdentifier(identifier) },
    });
    return this.loaded(identifier, body?.['metadata-location'], body?.metadata, 'load');
  }

  async createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable> {
    const body = await this.postCreate(identifier, request, false);
    return this.loaded(identifier, body?.['metadata-location'], body?.metadata, 'create');
  }

  async stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata> {
    const body = await this.postCreate(identifier, request, true);
    return this.parseMetadata(identifier, body?.metadata, 'stage-create');
  }

  async commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    // A staged create (assert-create) is committed on the same table route.
    const body = await this.http.request({
      method: 'POST',
      path: this.tablePath(identifier),
      bodyText: commitRequestToJson({ requirements, updates }),
      response: commitTableWire,
      operation: 'commit',
      notFound: 'table',
      context: { table: formatIdentifier(identifier) },
    });
    try {
      return this.loaded(identifier, body?.['metadata-location'], body?.metadata, 'commit');
    } catch (error) {
      // The server accepted the commit, but its answer is unusable: reload to learn the state.
      throw new CommitStateUnknownError(`Commit of ${formatIdentifier(identifier)} accepted, but its metadata could not be read`, {
        cause: error,
        context: { table: formatIdentifier(identifier) },
      });
    }
  }

  async dropTable(identifier: TableIdentifier, purge = false): Promise<void> {
    await this.http.request({
      method: 'DELETE',
      path: this.tablePath(identifier),
      query: { purgeRequested: purge ? 'true' : undefined },
      operation: 'drop',
      notFound: 'table',
      context: { table: formatIdentifier(identifier) },
    });
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
    // Nothing pooled: fetch manages its own connections; the FileIO belongs to the caller.
  }

  /** `/namespaces/{ns}` with levels joined by the server's separator, then URL-encoded (0x1F → %1F). */
  namespacePath(namespace: readonly string[]): string {
    if (namespace.length === 0) throw new InvalidInputError('A namespace needs at least one level', { context: { namespace: '' } });
    return `/namespaces/${encodeURIComponent(namespace.join(this.config.namespaceSeparator))}`;
  }

  tablePath(identifier: TableIdentifier): string {
    return `${this.namespacePath(identifier.namespace)}/tables/${encodeURIComponent(identifier.name)}`;
  }

  private postCreate(identifier: TableIdentifier, request: CreateTableRequest, stage: boolean) {
    const body: Record<string, unknown> = {
      name: identifier.name,
      schema: schemaToJson(request.schema),
      location: request.location,
      'partition-spec': request.partitionSpec === undefined ? undefined : partitionSpecToJson(request.partitionSpec),
      'write-order': request.sortOrder === undefined ? undefined : sortOrderToJson(request.sortOrder),
      properties: request.properties === undefined ? undefined : { ...request.properties },
      'stage-create': stage ? true : undefined,
    };
    return this.http.request({
      method: 'POST',
      path: `${this.namespacePath(identifier.namespace)}/tables`,
      body,
      response: loadTableWire,
      operation: 'create',
      notFound: 'namespace',
      context: { table: formatIdentifier(identifier) },
    });
  }

  private loaded(
    identifier: TableIdentifier,
    metadataLocation: string | null | undefined,
    metadata: Record<string, unknown> | undefined,
    what: string,
  ): LoadedTable {
    if (metadataLocation === undefined || metadataLocation === null || metadataLocation === '') {
      throw new ThundError('REST_BAD_RESPONSE', `REST catalog ${what} of ${formatIdentifier(identifier)} returned no metadata-location`, {
        context: { table: formatIdentifier(identifier), operation: what },
      });
    }
    return { identifier, metadataLocation, metadata: this.parseMetadata(identifier, metadata, what), io: this.io };
  }

  private parseMetadata(identifier: TableIdentifier, metadata: Record<string, unknown> | undefined, what: string): TableMetadata {
    // Re-serialising keeps int64 values exact (parseJson produced bigint for them).
    return parseTableMetadata(stringifyJson(metadata ?? {}), `REST ${what} ${formatIdentifier(identifier)}`);
  }
}
