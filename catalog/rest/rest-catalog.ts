/**
 * The Catalog contract over the Iceberg REST protocol (ICEBERG.md §7). The server does the
 * atomic metadata swap; this client sends requirements + updates and maps failures onto
 * CommitConflictError (409) and CommitStateUnknownError (5xx / no response) for the caller's
 * retry logic. Every route is checked against the server's advertised endpoints before it is
 * called. Tables whose load response vends storage credentials get a VendedFileIO; the others
 * use the FileIO the caller gave. A server that refuses staged creation gets a plain create and
 * the first commit on the empty table (provisional-tables.ts).
 */
import { checkNoMetadataColumnNames } from '../../src/iceberg/metadata-columns.js';
import type { z } from 'zod';
import { CommitStateUnknownError, InvalidInputError, NoSuchTableError, ThundError } from '../../src/errors.js';
import type { FileIO, FileIOFactory } from '../../src/iceberg/file-io.js';
import { stringifyJson } from '../../src/iceberg/json.js';
import { parseTableMetadata, partitionSpecToJson, sortOrderToJson } from '../../src/iceberg/metadata-json.js';
import type { TableRequirement } from '../../src/iceberg/requirements.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { schemaToJson } from '../../src/iceberg/type-json.js';
import { commitRequestToJson } from '../../src/iceberg/update-json.js';
import type { TableUpdate } from '../../src/iceberg/updates.js';
import { formatIdentifier, type Catalog, type CreateTableRequest, type LoadedTable, type TableIdentifier } from '../catalog.js';
import { createAuthProvider, type RestAuthOptions } from './auth.js';
import { fetchConfig, supportsEndpoint, type RestConfig } from './config.js';
import { describeServer, ENDPOINTS, requireEndpoint, type Endpoint } from './endpoints.js';
import { RestHttp } from './http.js';
import { ProvisionalTables, refusesStagedCreate, type CommitParts } from './provisional-tables.js';
import { RestNamespaces } from './rest-namespaces.js';
import { TableSessions } from './table-sessions.js';
import type { TransportRetryOptions } from './transport-retry.js';
import type { TableStorageAccess } from './vended-credentials.js';
import { VendedFileIO } from './vended-file-io.js';
import {
  commitTableWire,
  listTablesWire,
  loadCredentialsWire,
  loadTableWire,
} from './wire.js';

/** How the client can reach table files without its own keys (`X-Iceberg-Access-Delegation`). */
export type AccessDelegation = 'vended-credentials' | 'remote-signing';

export interface RestCatalogOptions {
  /** Catalog base URI, without `/v1`. */
  readonly uri: string;
  readonly warehouse?: string;
  /** Static bearer token. */
  readonly token?: string;
  /** Bearer, OAuth2 client credentials or SigV4; takes precedence over `token`. */
  readonly auth?: RestAuthOptions;
  /** Storage access for table files no vended credential covers. */
  readonly io: FileIO;
  /** Catalog name reported by `name`; default `rest`. */
  readonly name?: string;
  /** Client properties merged between the server's defaults and overrides. */
  readonly properties?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Sent on load, create, stage-create and register. */
  readonly accessDelegation?: AccessDelegation;
  /**
   * Builds FileIOs from the storage credentials the server vends (the app's; catalog code builds
   * no storage client). Without it vended credentials go unused: every file goes through `io`.
   */
  readonly fileIOFactory?: FileIOFactory;
  /** Resends of idempotency-keyed mutations (only when the server supports `Idempotency-Key`). */
  readonly retry?: TransportRetryOptions;
  /** Clock in ms since the epoch, for credential expiry; replaceable for tests. */
  readonly now?: () => number;
}

/** One table's part of a multi-table transaction. */
export interface TableChange {
  readonly identifier: TableIdentifier;
  readonly requirements: readonly TableRequirement[];
  readonly updates: readonly TableUpdate[];
}

type LoadTableBody = z.infer<typeof loadTableWire>;

export class RestCatalog implements Catalog {
  readonly name: string;
  private readonly server: string;
  private readonly sessions: TableSessions;
  private readonly delegation: Readonly<Record<string, string>>;
  private readonly namespaces: RestNamespaces;
  private readonly provisional = new ProvisionalTables();
  /** Set once the server refused a staged create: later new tables are created plainly at once. */
  private stagingRefused = false;

  private constructor(
    private readonly http: RestHttp,
    readonly config: RestConfig,
    private readonly io: FileIO,
    options: RestCatalogOptions,
  ) {
    this.name = options.name ?? 'rest';
    this.server = describeServer(options.uri);
    this.namespaces = new RestNamespaces(http, config, this.server);
    this.delegation = options.accessDelegation === undefined ? {} : { 'x-iceberg-access-delegation': options.accessDelegation };
    const factory = options.fileIOFactory;
    this.sessions = new TableSessions(
      factory === undefined
        ? undefined
        : (identifier, access) =>
            new VendedFileIO({
              access,
              fallback: io,
              refresh: (current) => this.refreshAccess(identifier, current),
              factory,
              ...(options.now === undefined ? {} : { now: options.now }),
            }),
    );
  }

  /** Fetches `/v1/config` and returns a client using its prefix, namespace separator and endpoints. */
  static async connect(options: RestCatalogOptions): Promise<RestCatalog> {
    const http = new RestHttp({
      uri: options.uri,
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.auth === undefined ? {} : { auth: createAuthProvider(options.auth, options) }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
    const config = await fetchConfig(http, options.warehouse, options.properties ?? {});
    http.setPrefix(config.prefix);
    http.useIdempotencyKeys(config.idempotencyKeyLifetime !== undefined);
    return new RestCatalog(http, config, options.io, options);
  }

  /** True when the server advertises multi-table transactions (`commitTransaction`). */
  get supportsTransactions(): boolean {
    return supportsEndpoint(this.config, ENDPOINTS.commitTransaction);
  }

  listNamespaces(parent?: readonly string[]): Promise<string[][]> {
    return this.namespaces.list(parent);
  }

  createNamespace(namespace: readonly string[], properties: Readonly<Record<string, string>> = {}): Promise<void> {
    return this.namespaces.create(namespace, properties);
  }

  namespaceExists(namespace: readonly string[]): Promise<boolean> {
    return this.namespaces.exists(namespace);
  }

  dropNamespace(namespace: readonly string[]): Promise<void> {
    return this.namespaces.drop(namespace);
  }

  loadNamespaceProperties(namespace: readonly string[]): Promise<Record<string, string>> {
    return this.namespaces.loadProperties(namespace);
  }

  updateNamespaceProperties(
    namespace: readonly string[],
    removals: readonly string[],
    updates: Readonly<Record<string, string>>,
  ): Promise<void> {
    return this.namespaces.updateProperties(namespace, removals, updates);
  }

  async listTables(namespace: readonly string[]): Promise<TableIdentifier[]> {
    this.route(ENDPOINTS.listTables);
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

  async tableExists(identifier: TableIdentifier): Promise<boolean> {
    if (supportsEndpoint(this.config, ENDPOINTS.tableExists)) {
      return this.http.exists({ path: this.tablePath(identifier), operation: 'read', ...this.tableAuth(identifier), context: this.context(identifier) });
    }
    return this.fetchTable(identifier, 'refs').then(
      () => true,
      (error: unknown) => (error instanceof NoSuchTableError ? false : Promise.reject(error)),
    );
  }

  async loadTable(identifier: TableIdentifier): Promise<LoadedTable> {
    return this.loaded(identifier, await this.fetchTable(identifier, 'all'), 'load');
  }

  async createTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<LoadedTable> {
    const body = await this.postCreate(identifier, request, false);
    return this.loaded(identifier, body, 'create');
  }

  /**
   * Staged metadata for a new table; on a server that refuses staged creation, the metadata of
   * an empty table created plainly instead, which the first commit then fills (see
   * provisional-tables.ts: if that commit fails, the table stays, empty).
   */
  async stageCreateTable(identifier: TableIdentifier, request: CreateTableRequest): Promise<TableMetadata> {
    const provisional = this.provisional.get(identifier);
    if (provisional !== undefined) return this.respecProvisional(identifier, provisional, request);
    if (!this.stagingRefused) {
      try {
        const body = await this.postCreate(identifier, request, true);
        // Remember vended access and token: the commit that creates the table, and tableIO, use them.
        this.sessions.record(identifier, accessOf(body), this.io);
        return this.parseMetadata(identifier, body?.metadata, 'stage-create');
      } catch (error) {
        if (!refusesStagedCreate(error)) throw error;
        this.stagingRefused = true;
      }
    }
    const created = await this.createTable(identifier, request);
    this.provisional.remember(identifier, created.metadata);
    return created.metadata;
  }

  /** The FileIO for a table's files: vended by the catalog for it, else the catalog's own (e.g. for a staged create). */
  tableIO(identifier: TableIdentifier): FileIO {
    return this.sessions.ioFor(identifier) ?? this.io;
  }

  async commitTable(
    identifier: TableIdentifier,
    requirements: readonly TableRequirement[],
    updates: readonly TableUpdate[],
  ): Promise<LoadedTable> {
    const provisional = this.provisional.get(identifier);
    if (provisional === undefined) return this.postCommit(identifier, { requirements, updates });
    // Whatever its outcome, the staged create is over: the next stage-create finds the table.
    this.provisional.forget(identifier);
    return this.postCommit(identifier, ProvisionalTables.asFirstCommit(provisional, { requirements, updates }));
  }

  private async postCommit(identifier: TableIdentifier, { requirements, updates }: CommitParts): Promise<LoadedTable> {
    this.route(ENDPOINTS.commitTable);
    // A staged create (assert-create) is committed on the same table route.
    const body = await this.http.request({
      method: 'POST',
      path: this.tablePath(identifier),
      bodyText: commitRequestToJson({ requirements, updates }),
      response: commitTableWire,
      operation: 'commit',
      notFound: 'table',
      ...this.tableAuth(identifier),
      context: this.context(identifier),
    });
    try {
      const metadataLocation = requireLocation(identifier, body?.['metadata-location'], 'commit');
      return { identifier, metadataLocation, metadata: this.parseMetadata(identifier, body?.metadata, 'commit'), io: this.tableIO(identifier) };
    } catch (error) {
      // The server accepted the commit, but its answer is unusable: reload to learn the state.
      throw new CommitStateUnknownError(`Commit of ${formatIdentifier(identifier)} accepted, but its metadata could not be read`, {
        cause: error,
        context: this.context(identifier),
      });
    }
  }

  /**
   * Commits changes to several tables atomically (`POST /transactions/commit`): all apply or
   * none. CommitConflictError when a requirement fails, CommitStateUnknownError on 5xx or no
   * response. The server answers 204, so reload the tables to see them.
   */
  async commitTransaction(changes: readonly TableChange[]): Promise<void> {
    if (changes.length === 0) throw new InvalidInputError('A transaction needs at least one table change');
    this.route(ENDPOINTS.commitTransaction);
    const tables = changes.map((change) => formatIdentifier(change.identifier)).join(',');
    const bodyText = `{"table-changes":[${changes.map((change) => commitRequestToJson(change)).join(',')}]}`;
    await this.http.request({ method: 'POST', path: '/transactions/commit', bodyText, operation: 'commit', notFound: 'table', context: { tables } });
  }

  async registerTable(identifier: TableIdentifier, metadataLocation: string): Promise<LoadedTable> {
    this.route(ENDPOINTS.registerTable);
    const body = await this.http.request({
      method: 'POST',
      path: `${this.namespacePath(identifier.namespace)}/register`,
      body: { name: identifier.name, 'metadata-location': metadataLocation },
      response: loadTableWire,
      operation: 'create',
      notFound: 'namespace',
      headers: this.delegation,
      context: { ...this.context(identifier), metadataLocation },
    });
    return this.loaded(identifier, body, 'register');
  }

  async renameTable(from: TableIdentifier, to: TableIdentifier): Promise<void> {
    this.route(ENDPOINTS.renameTable);
    await this.http.request({
      method: 'POST',
      path: '/tables/rename',
      body: { source: wireIdentifier(from), destination: wireIdentifier(to) },
      operation: 'rename',
      notFound: 'table',
      context: { table: formatIdentifier(from), destination: formatIdentifier(to) },
    });
    this.sessions.forget(from);
    this.provisional.forget(from);
  }

  async dropTable(identifier: TableIdentifier, purge = false): Promise<void> {
    this.route(ENDPOINTS.dropTable);
    await this.http.request({
      method: 'DELETE',
      path: this.tablePath(identifier),
      query: { purgeRequested: purge ? 'true' : undefined },
      operation: 'drop',
      notFound: 'table',
      ...this.tableAuth(identifier),
      context: this.context(identifier),
    });
    this.sessions.forget(identifier);
    this.provisional.forget(identifier);
  }

  async close(): Promise<void> {
    // fetch manages its own connections; the caller's FileIO is the caller's to close.
    this.sessions.close();
  }

  /** `/namespaces/{ns}` with levels joined by the server's separator, then URL-encoded (0x1F → %1F). */
  namespacePath(namespace: readonly string[]): string {
    return this.namespaces.path(namespace);
  }

  tablePath(identifier: TableIdentifier): string {
    return `${this.namespacePath(identifier.namespace)}/tables/${encodeURIComponent(identifier.name)}`;
  }

  private route(endpoint: Endpoint): void {
    requireEndpoint(this.config, endpoint, this.server);
  }

  private context(identifier: TableIdentifier) {
    return { table: formatIdentifier(identifier) };
  }

  /** The per-table bearer token, when a load response gave one. */
  private tableAuth(identifier: TableIdentifier): { bearer?: string } {
    const token = this.sessions.tokenFor(identifier);
    return token === undefined ? {} : { bearer: token };
  }

  private async fetchTable(identifier: TableIdentifier, snapshots: 'all' | 'refs'): Promise<LoadTableBody | undefined> {
    this.route(ENDPOINTS.loadTable);
    return this.http.request({
      method: 'GET',
      path: this.tablePath(identifier),
      query: { snapshots },
      response: loadTableWire,
      operation: 'read',
      notFound: 'table',
      headers: this.delegation,
      ...this.tableAuth(identifier),
      context: this.context(identifier),
    });
  }

  private postCreate(identifier: TableIdentifier, request: CreateTableRequest, stage: boolean) {
    this.route(ENDPOINTS.createTable);
    checkNoMetadataColumnNames(`Table ${formatIdentifier(identifier)}`, request.schema.fields);
    const body: Record<string, unknown> = {
      name: identifier.name,
      schema: schemaToJson(request.schema),
      location: request.location,
      'partition-spec': request.partitionSpec === undefined ? undefined : partitionSpecToJson(request.partitionSpec),
      'write-order': request.sortOrder === undefined ? undefined : sortOrderToJson(request.sortOrder),
      properties: request.properties === undefined ? undefined : { ...request.properties },
      // Sent even when false: Nessie refuses a create request without it.
      'stage-create': stage,
    };
    return this.http.request({
      method: 'POST',
      path: `${this.namespacePath(identifier.namespace)}/tables`,
      body,
      response: loadTableWire,
      operation: 'create',
      notFound: 'namespace',
      headers: this.delegation,
      context: this.context(identifier),
    });
  }

  /** A later stage-create of a table created plainly in its place: its partition spec is committed to the empty table. */
  private async respecProvisional(identifier: TableIdentifier, provisional: TableMetadata, request: CreateTableRequest): Promise<TableMetadata> {
    const respec = ProvisionalTables.respec(provisional, request.partitionSpec);
    if (respec === undefined) return provisional;
    const table = await this.postCommit(identifier, respec);
    this.provisional.remember(identifier, table.metadata);
    return table.metadata;
  }

  /** Fresh storage access for a table: its credentials route when offered, else a reload. */
  private async refreshAccess(identifier: TableIdentifier, current: TableStorageAccess): Promise<TableStorageAccess> {
    if (supportsEndpoint(this.config, ENDPOINTS.loadCredentials)) {
      const body = await this.http.request({
        method: 'GET',
        path: `${this.tablePath(identifier)}/credentials`,
        response: loadCredentialsWire,
        operation: 'read',
        notFound: 'table',
        ...this.tableAuth(identifier),
        context: this.context(identifier),
      });
      const credentials = body?.['storage-credentials'] ?? [];
      if (credentials.length > 0) return { credentials, config: current.config };
    }
    const access = accessOf(await this.fetchTable(identifier, 'refs'));
    this.sessions.record(identifier, access, this.io);
    return access;
  }

  private loaded(identifier: TableIdentifier, body: LoadTableBody | undefined, what: string): LoadedTable {
    const metadataLocation = requireLocation(identifier, body?.['metadata-location'], what);
    const metadata = this.parseMetadata(identifier, body?.metadata, what);
    return { identifier, metadataLocation, metadata, io: this.sessions.record(identifier, accessOf(body), this.io) };
  }

  private parseMetadata(identifier: TableIdentifier, metadata: Record<string, unknown> | undefined, what: string): TableMetadata {
    // Re-serialising keeps int64 values exact (parseJson produced bigint for them).
    return parseTableMetadata(stringifyJson(metadata ?? {}), `REST ${what} ${formatIdentifier(identifier)}`);
  }
}

function accessOf(body: LoadTableBody | undefined): TableStorageAccess {
  return { credentials: body?.['storage-credentials'] ?? [], config: body?.config ?? {} };
}

function requireLocation(identifier: TableIdentifier, location: string | null | undefined, what: string): string {
  if (location === undefined || location === null || location === '') {
    throw new ThundError('REST_BAD_RESPONSE', `REST catalog ${what} of ${formatIdentifier(identifier)} returned no metadata-location`, {
      context: { table: formatIdentifier(identifier), operation: what },
    });
  }
  return location;
}

function wireIdentifier(identifier: TableIdentifier): { namespace: string[]; name: string } {
  return { namespace: [...identifier.namespace], name: identifier.name };
}
