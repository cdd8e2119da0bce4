/**
 * `GET /v1/config[?warehouse=]` (ICEBERG.md §7.2): the effective configuration is the server's
 * defaults, then the client's properties, then the server's overrides.
 */
import type { RestHttp } from './http.js';
import { configResponseWire } from './wire.js';

/**
 * The endpoints a server supports when its config response does not list them (the spec's default
 * set, as the Java client assumes it: no HEAD routes, so existence checks fall back to GET).
 */
export const DEFAULT_ENDPOINTS: readonly string[] = [
  'GET /v1/{prefix}/namespaces',
  'POST /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'DELETE /v1/{prefix}/namespaces/{namespace}',
  'POST /v1/{prefix}/namespaces/{namespace}/properties',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'POST /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/register',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'POST /v1/{prefix}/tables/rename',
  'POST /v1/{prefix}/transactions/commit',
];

/** The unit separator 0x1F, joining namespace levels in paths unless the server says otherwise. */
export const DEFAULT_NAMESPACE_SEPARATOR = '\u001f';

export interface RestConfig {
  /** defaults ← client properties ← overrides. */
  readonly properties: Readonly<Record<string, string>>;
  /** The merged `prefix`, if any (without slashes around it). */
  readonly prefix?: string;
  readonly endpoints: readonly string[];
  /** Raw (unencoded) separator for multi-level namespaces in paths. */
  readonly namespaceSeparator: string;
  /** Present when the server supports `Idempotency-Key` (ISO-8601 duration). */
  readonly idempotencyKeyLifetime?: string;
}

export async function fetchConfig(
  http: RestHttp,
  warehouse?: string,
  clientProperties: Readonly<Record<string, string>> = {},
): Promise<RestConfig> {
  const body = await http.request({
    method: 'GET',
    path: '/config',
    query: { warehouse },
    response: configResponseWire,
    operation: 'read',
    unprefixed: true,
    context: warehouse === undefined ? {} : { warehouse },
  });
  const properties: Record<string, string> = {
    ...(body?.defaults ?? {}),
    ...clientProperties,
    ...(warehouse === undefined ? {} : { warehouse }),
    ...(body?.overrides ?? {}),
  };
  const prefix = properties['prefix'];
  const separator = properties['namespace-separator'];
  return {
    properties,
    ...(prefix === undefined || prefix === '' ? {} : { prefix }),
    endpoints: body?.endpoints ?? DEFAULT_ENDPOINTS,
    namespaceSeparator: separator === undefined || separator === '' ? DEFAULT_NAMESPACE_SEPARATOR : decodeSeparator(separator),
    ...(body?.['idempotency-key-lifetime'] === undefined ? {} : { idempotencyKeyLifetime: body['idempotency-key-lifetime'] }),
  };
}

/** Servers send the separator URL-encoded (`%1F`) or raw; keep the raw form. */
function decodeSeparator(separator: string): string {
  try {
    return decodeURIComponent(separator);
  } catch {
    return separator;
  }
}

/** True when the server advertises `method path` (path in the spec's `/v1/{prefix}/…` template form). */
export function supportsEndpoint(config: RestConfig, endpoint: string): boolean {
  return config.endpoints.includes(endpoint);
}
