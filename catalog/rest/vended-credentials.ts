/**
 * Storage access a REST catalog hands out with a table (ICEBERG.md §7.3): `storage-credentials`
 * (each for the locations under its prefix) and legacy `s3.*` keys in the load response's
 * `config`. This file turns them into VendedStorage for the app's FileIOFactory; vended-file-io.ts
 * decides which applies.
 */
import type { VendedStorage } from '../../src/iceberg/file-io.js';

export interface StorageCredential {
  readonly prefix: string;
  readonly config: Readonly<Record<string, string>>;
}

/** What one load (or credentials) response granted for a table. */
export interface TableStorageAccess {
  readonly credentials: readonly StorageCredential[];
  /** The load response's `config` (may carry `s3.*` keys and a `token`). */
  readonly config: Readonly<Record<string, string>>;
}

export const S3_ACCESS_KEY_ID = 's3.access-key-id';
export const S3_SECRET_ACCESS_KEY = 's3.secret-access-key';
export const S3_SESSION_TOKEN = 's3.session-token';
export const S3_SESSION_TOKEN_EXPIRES_AT_MS = 's3.session-token-expires-at-ms';
export const S3_ENDPOINT = 's3.endpoint';
export const S3_PATH_STYLE_ACCESS = 's3.path-style-access';
export const CLIENT_REGION = 'client.region';
/** A per-table bearer token in the load response's config. */
export const TABLE_TOKEN = 'token';

/** True when the response granted anything this client can use for S3. */
export function grantsAccess(access: TableStorageAccess): boolean {
  return access.credentials.length > 0 || hasKeys(access.config);
}

export function hasKeys(config: Readonly<Record<string, string>>): boolean {
  return nonEmpty(config[S3_ACCESS_KEY_ID]) && nonEmpty(config[S3_SECRET_ACCESS_KEY]);
}

/** The instant (ms since the epoch) the keys stop working, when the server said. */
export function expiresAtMs(config: Readonly<Record<string, string>>): number | undefined {
  const raw = config[S3_SESSION_TOKEN_EXPIRES_AT_MS];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The vended storage `keys` grant (a credential's config, or the table config itself). Endpoint,
 * region and path style come from the keys' own config, then the table config (what neither says
 * is the FileIOFactory's setting); the key id, secret and session token only ever from `keys`.
 */
export function vendedStorageFor(keys: Readonly<Record<string, string>>, tableConfig: Readonly<Record<string, string>>): VendedStorage {
  const setting = (name: string): string | undefined => firstNonEmpty(keys[name], tableConfig[name]);
  const endpoint = setting(S3_ENDPOINT);
  const region = setting(CLIENT_REGION);
  const pathStyle = setting(S3_PATH_STYLE_ACCESS);
  const sessionToken = keys[S3_SESSION_TOKEN];
  return {
    accessKeyId: keys[S3_ACCESS_KEY_ID] ?? '',
    secretAccessKey: keys[S3_SECRET_ACCESS_KEY] ?? '',
    ...(nonEmpty(sessionToken) ? { sessionToken } : {}),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    ...(pathStyle === undefined ? {} : { pathStyle: pathStyle.toLowerCase() === 'true' }),
  };
}

/** `s3a://` and `s3n://` name the same objects as `s3://`; prefixes are compared in that form. */
export function normaliseScheme(location: string): string {
  return location.replace(/^s3[an]:\/\//, 's3://');
}

/** The credential whose prefix is the longest match for `location`, if any. */
export function longestPrefixMatch(credentials: readonly StorageCredential[], location: string): StorageCredential | undefined {
  const target = normaliseScheme(location);
  let best: StorageCredential | undefined;
  for (const credential of credentials) {
    const prefix = normaliseScheme(credential.prefix);
    if (!target.startsWith(prefix) || !hasKeys(credential.config)) continue;
    if (best === undefined || prefix.length > normaliseScheme(best.prefix).length) best = credential;
  }
  return best;
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function firstNonEmpty(...values: (string | undefined)[]): string | undefined {
  return values.find(nonEmpty);
}
