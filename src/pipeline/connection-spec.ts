/**
 * The spec's `catalog` and `storage` blocks after parsing: still unresolved (no environment read
 * yet), every value carrying the place it was written, so that resolving it later can name
 * `file:line:column: field` for a missing variable or a bad value. No secret is ever held here,
 * only the names of the variables that hold them.
 */
import type { CatalogWire, StorageWire } from './connection-schema.js';
import { formatFieldPath, type FieldPath, type SourcePosition } from './yaml-locator.js';

/** A field of the spec: its dotted path and where its value is written. */
export interface SpecField extends SourcePosition {
  readonly file: string;
  /** e.g. `catalog.auth.token_env`. */
  readonly field: string;
}

/** A text value that may contain `${NAME}` references. */
export interface SpecText {
  readonly template: string;
  readonly at: SpecField;
}

/** A secret, by the name of the environment variable that holds it. */
export interface SecretRef {
  readonly variable: string;
  readonly at: SpecField;
}

export interface AwsKeysSpec {
  readonly accessKeyId: SecretRef;
  readonly secretAccessKey: SecretRef;
  readonly sessionToken?: SecretRef;
}

export type RestAuthSpec =
  | { readonly type: 'bearer'; readonly token: SecretRef }
  | {
      readonly type: 'oauth2';
      readonly clientId: SecretRef;
      readonly clientSecret: SecretRef;
      readonly tokenUri?: SpecText;
      readonly scope?: SpecText;
    }
  /** Without keys, the AWS SDK's default credential chain signs. */
  | { readonly type: 'sigv4'; readonly region: SpecText; readonly service?: SpecText; readonly keys?: AwsKeysSpec };

/** The embedded SQLite catalog; without a warehouse, ./warehouse of the working directory. */
export interface SqlCatalogSpec {
  readonly type: 'sql';
  readonly name?: SpecText;
  readonly warehouse?: SpecText;
}

export interface RestCatalogSpec {
  readonly type: 'rest';
  readonly name?: SpecText;
  readonly uri: SpecText;
  readonly warehouse?: SpecText;
  /** Client-side `prefix` for `/v1/{prefix}/…` (a server's own prefix overrides it only as an override). */
  readonly prefix?: SpecText;
  /** Client-side catalog properties, merged by `/v1/config` between the server's defaults and overrides. */
  readonly properties?: Readonly<Record<string, SpecText>>;
  readonly auth?: RestAuthSpec;
  readonly accessDelegation?: 'vended-credentials';
  readonly requestTimeoutMs?: number;
}

export interface GlueCatalogSpec {
  readonly type: 'glue';
  readonly name?: SpecText;
  readonly warehouse: SpecText;
  readonly region: SpecText;
  readonly endpoint?: SpecText;
  readonly keys?: AwsKeysSpec;
}

export type CatalogSpec = SqlCatalogSpec | RestCatalogSpec | GlueCatalogSpec;

export interface S3StorageSpec {
  readonly endpoint?: SpecText;
  readonly region: SpecText;
  readonly pathStyle: boolean;
  readonly connectTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  /** Without keys, the AWS SDK's default credential chain is used. */
  readonly keys?: AwsKeysSpec;
}

export interface StorageSpec {
  readonly s3?: S3StorageSpec;
}

/** Where a value at a field path is written; the locator of the spec file. */
export type Locate = (path: FieldPath) => SourcePosition;

/** The embedded default when the spec has no catalog block. */
export const DEFAULT_CATALOG: CatalogSpec = { type: 'sql' };

export function catalogFromWire(wire: CatalogWire | undefined, file: string, locate: Locate): CatalogSpec {
  if (wire === undefined) return DEFAULT_CATALOG;
  const at = fieldAt(file, locate);
  const base = ['catalog'];
  const name = textField('name', wire.name, at, [...base, 'name']);
  switch (wire.type) {
    case 'sql': {
      const warehouse = textField('warehouse', wire.warehouse, at, [...base, 'warehouse']);
      return { type: 'sql', ...name, ...warehouse };
    }
    case 'rest': {
      const warehouse = textField('warehouse', wire.warehouse, at, [...base, 'warehouse']);
      const auth = wire.auth === undefined ? {} : { auth: authFromWire(wire.auth, at, [...base, 'auth']) };
      const delegation = wire.access_delegation === undefined ? {} : { accessDelegation: wire.access_delegation };
      const prefix = textField('prefix', wire.prefix, at, [...base, 'prefix']);
      const properties =
        wire.properties === undefined
          ? {}
          : {
              properties: Object.fromEntries(
                Object.entries(wire.properties).map(([key, value]) => [key, { template: value, at: at([...base, 'properties', key]) }]),
              ),
            };
      const uri = { template: wire.uri, at: at([...base, 'uri']) };
      const timeout = wire.request_timeout_ms === undefined ? {} : { requestTimeoutMs: wire.request_timeout_ms };
      return { type: 'rest', ...name, uri, ...warehouse, ...prefix, ...properties, ...auth, ...delegation, ...timeout };
    }
    case 'glue': {
      const keys = awsKeys(wire, at, base);
      return {
        type: 'glue',
        ...name,
        warehouse: { template: wire.warehouse, at: at([...base, 'warehouse']) },
        region: { template: wire.region, at: at([...base, 'region']) },
        ...textField('endpoint', wire.endpoint, at, [...base, 'endpoint']),
        ...(keys === undefined ? {} : { keys }),
      };
    }
  }
}

export function storageFromWire(wire: StorageWire | undefined, file: string, locate: Locate): StorageSpec {
  const s3 = wire?.s3;
  if (s3 === undefined) return {};
  const at = fieldAt(file, locate);
  const base = ['storage', 's3'];
  const keys = awsKeys(s3, at, base);
  return {
    s3: {
      ...textField('endpoint', s3.endpoint, at, [...base, 'endpoint']),
      region: { template: s3.region, at: at([...base, 'region']) },
      pathStyle: s3.path_style,
      ...(s3.connect_timeout_ms === undefined ? {} : { connectTimeoutMs: s3.connect_timeout_ms }),
      ...(s3.idle_timeout_ms === undefined ? {} : { idleTimeoutMs: s3.idle_timeout_ms }),
      ...(keys === undefined ? {} : { keys }),
    },
  };
}

type At = (path: FieldPath) => SpecField;

function fieldAt(file: string, locate: Locate): At {
  return (path) => ({ file, field: formatFieldPath(path), ...locate(path) });
}

function authFromWire(wire: NonNullable<Extract<CatalogWire, { type: 'rest' }>['auth']>, at: At, base: FieldPath): RestAuthSpec {
  const secret = (variable: string, key: string): SecretRef => ({ variable, at: at([...base, key]) });
  switch (wire.type) {
    case 'bearer':
      return { type: 'bearer', token: secret(wire.token_env, 'token_env') };
    case 'oauth2':
      return {
        type: 'oauth2',
        clientId: secret(wire.client_id_env, 'client_id_env'),
        clientSecret: secret(wire.client_secret_env, 'client_secret_env'),
        ...textField('tokenUri', wire.token_uri, at, [...base, 'token_uri']),
        ...textField('scope', wire.scope, at, [...base, 'scope']),
      };
    case 'sigv4': {
      const keys = awsKeys(wire, at, base);
      return {
        type: 'sigv4',
        region: { template: wire.region, at: at([...base, 'region']) },
        ...textField('service', wire.service, at, [...base, 'service']),
        ...(keys === undefined ? {} : { keys }),
      };
    }
  }
}

interface AwsKeyFields {
  readonly access_key_id_env?: string | undefined;
  readonly secret_access_key_env?: string | undefined;
  readonly session_token_env?: string | undefined;
}

/** The key pair (checked by the schema to be both or neither) and the optional session token. */
function awsKeys(wire: AwsKeyFields, at: At, base: FieldPath): AwsKeysSpec | undefined {
  if (wire.access_key_id_env === undefined || wire.secret_access_key_env === undefined) return undefined;
  return {
    accessKeyId: { variable: wire.access_key_id_env, at: at([...base, 'access_key_id_env']) },
    secretAccessKey: { variable: wire.secret_access_key_env, at: at([...base, 'secret_access_key_env']) },
    ...(wire.session_token_env === undefined
      ? {}
      : { sessionToken: { variable: wire.session_token_env, at: at([...base, 'session_token_env']) } }),
  };
}

/** `{ key: SpecText }` when the value was written, else `{}`: spread into a spec object. */
function textField<K extends string>(key: K, value: string | undefined, at: At, path: FieldPath): Partial<Record<K, SpecText>> {
  return (value === undefined ? {} : { [key]: { template: value, at: at(path) } }) as Partial<Record<K, SpecText>>;
}
