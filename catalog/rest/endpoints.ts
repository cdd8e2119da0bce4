/**
 * The REST routes this client calls, spelled as servers advertise them in `/v1/config`'s
 * `endpoints` (ICEBERG.md §7.2), and the check that runs before each call.
 */
import { ThundError, type ThundErrorOptions } from '../../src/errors.js';
import { supportsEndpoint, type RestConfig } from './config.js';

export const ENDPOINTS = {
  listNamespaces: 'GET /v1/{prefix}/namespaces',
  createNamespace: 'POST /v1/{prefix}/namespaces',
  loadNamespace: 'GET /v1/{prefix}/namespaces/{namespace}',
  namespaceExists: 'HEAD /v1/{prefix}/namespaces/{namespace}',
  dropNamespace: 'DELETE /v1/{prefix}/namespaces/{namespace}',
  updateNamespaceProperties: 'POST /v1/{prefix}/namespaces/{namespace}/properties',
  listTables: 'GET /v1/{prefix}/namespaces/{namespace}/tables',
  createTable: 'POST /v1/{prefix}/namespaces/{namespace}/tables',
  loadTable: 'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  tableExists: 'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  commitTable: 'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  dropTable: 'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  loadCredentials: 'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
  registerTable: 'POST /v1/{prefix}/namespaces/{namespace}/register',
  renameTable: 'POST /v1/{prefix}/tables/rename',
  commitTransaction: 'POST /v1/{prefix}/transactions/commit',
} as const;

export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];

/** The server does not offer a route this operation needs; nothing was sent. */
export class UnsupportedOperationError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('REST_UNSUPPORTED_ENDPOINT', message, options);
  }
}

/** Throws UnsupportedOperationError naming the endpoint and the server unless it is advertised. */
export function requireEndpoint(config: RestConfig, endpoint: Endpoint, server: string): void {
  if (supportsEndpoint(config, endpoint)) return;
  throw new UnsupportedOperationError(`REST catalog ${server} does not support ${endpoint} (not in its /v1/config endpoints)`, {
    context: { endpoint, server },
  });
}

/** The catalog URI for messages: scheme, host and path, never user-info or query (may hold secrets). */
export function describeServer(uri: string): string {
  try {
    const url = new URL(uri);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(unparsable catalog URI)';
  }
}
