/**
 * The spec's catalog and storage blocks with the environment applied: `${NAME}` references
 * substituted, secrets read from the variables their `*_env` fields name, URLs and the embedded
 * warehouse checked. Every problem names `file:line:column: field` and the variable, never a
 * variable's value; all problems are reported at once.
 */
import path from 'node:path';
import { InvalidInputError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import type {
  AwsKeysSpec,
  CatalogSpec,
  RestAuthSpec,
  S3StorageSpec,
  SecretRef,
  SpecField,
  SpecText,
  StorageSpec,
} from './connection-spec.js';
import { substituteEnv, type Environment } from './env-template.js';

export interface AwsKeys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export type ResolvedRestAuth =
  | { readonly type: 'bearer'; readonly token: string }
  | { readonly type: 'oauth2'; readonly clientId: string; readonly clientSecret: string; readonly tokenUri?: string; readonly scope?: string }
  | { readonly type: 'sigv4'; readonly region: string; readonly service?: string; readonly keys?: AwsKeys };

export type ResolvedCatalog =
  /** `warehousePath` is absolute; undefined means the default (./warehouse of the working directory). */
  | { readonly type: 'sql'; readonly name?: string; readonly warehousePath?: string }
  | {
      readonly type: 'rest';
      readonly name?: string;
      readonly uri: string;
      readonly warehouse?: string;
      /** Client-side catalog properties, `prefix` among them when the block set one. */
      readonly properties?: Readonly<Record<string, string>>;
      readonly auth?: ResolvedRestAuth;
      readonly accessDelegation?: 'vended-credentials';
      readonly requestTimeoutMs?: number;
    }
  | {
      readonly type: 'glue';
      readonly name?: string;
      readonly warehouse: string;
      readonly region: string;
      readonly endpoint?: string;
      readonly keys?: AwsKeys;
    };

export interface ResolvedS3Storage {
  readonly endpoint?: string;
  readonly region: string;
  readonly pathStyle: boolean;
  readonly connectTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly keys?: AwsKeys;
}

export interface ResolvedConnection {
  readonly catalog: ResolvedCatalog;
  readonly s3?: ResolvedS3Storage;
}

export interface ConnectionSource {
  readonly catalog: CatalogSpec;
  readonly storage: StorageSpec;
  /** Absolute path of the spec file: a relative sql warehouse resolves from its folder. */
  readonly specPath: string;
}

interface Problem {
  readonly at: SpecField;
  readonly message: string;
  readonly variable?: string;
}

export function resolveConnection(source: ConnectionSource, env: Environment): ResolvedConnection {
  const resolver = new Resolver(env, path.dirname(source.specPath));
  const catalog = resolver.catalog(source.catalog);
  const s3 = source.storage.s3 === undefined ? undefined : resolver.s3(source.storage.s3);
  resolver.throwIfProblems();
  return { catalog, ...(s3 === undefined ? {} : { s3 }) };
}

const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

class Resolver {
  private readonly problems: Problem[] = [];

  constructor(
    private readonly env: Environment,
    private readonly specDir: string,
  ) {}

  catalog(spec: CatalogSpec): ResolvedCatalog {
    const name = this.optional(spec.name, (t) => this.text(t));
    switch (spec.type) {
      case 'sql': {
        const warehousePath = this.optional(spec.warehouse, (t) => this.localDirectory(t));
        return { type: 'sql', ...defined('name', name), ...defined('warehousePath', warehousePath) };
      }
      case 'rest': {
        const auth = spec.auth === undefined ? undefined : this.auth(spec.auth);
        return {
          type: 'rest',
          ...defined('name', name),
          uri: this.url(spec.uri),
          ...defined('warehouse', this.optional(spec.warehouse, (t) => this.text(t))),
          ...defined('properties', this.restProperties(spec)),
          ...defined('auth', auth),
          ...defined('accessDelegation', spec.accessDelegation),
          ...defined('requestTimeoutMs', spec.requestTimeoutMs),
        };
      }
      case 'glue':
        return {
          type: 'glue',
          ...defined('name', name),
          warehouse: this.text(spec.warehouse),
          region: this.text(spec.region),
          ...defined('endpoint', this.optional(spec.endpoint, (t) => this.url(t))),
          ...defined('keys', this.optional(spec.keys, (k) => this.keys(k))),
        };
    }
  }

  s3(spec: S3StorageSpec): ResolvedS3Storage {
    return {
      ...defined('endpoint', this.optional(spec.endpoint, (t) => this.url(t))),
      region: this.text(spec.region),
      pathStyle: spec.pathStyle,
      ...defined('connectTimeoutMs', spec.connectTimeoutMs),
      ...defined('idleTimeoutMs', spec.idleTimeoutMs),
      ...defined('keys', this.optional(spec.keys, (k) => this.keys(k))),
    };
  }

  throwIfProblems(): void {
    if (this.problems.length === 0) return;
    const sorted = [...this.problems].sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
    const lines = sorted.map(({ at, message }) => `${at.file}:${at.line}:${at.column}: ${at.field}: ${message}`);
    const first = sorted[0] as Problem;
    throw new InvalidInputError(lines.join('\n'), {
      context: { file: first.at.file, line: first.at.line, column: first.at.column, field: first.at.field, variable: first.variable },
    });
  }

  private auth(spec: RestAuthSpec): ResolvedRestAuth {
    switch (spec.type) {
      case 'bearer':
        return { type: 'bearer', token: this.secret(spec.token) };
      case 'oauth2':
        return {
          type: 'oauth2',
          clientId: this.secret(spec.clientId),
          clientSecret: this.secret(spec.clientSecret),
          ...defined('tokenUri', this.optional(spec.tokenUri, (t) => this.url(t))),
          ...defined('scope', this.optional(spec.scope, (t) => this.text(t))),
        };
      case 'sigv4':
        return {
          type: 'sigv4',
          region: this.text(spec.region),
          ...defined('service', this.optional(spec.service, (t) => this.text(t))),
          ...defined('keys', this.optional(spec.keys, (k) => this.keys(k))),
        };
    }
  }

  /** `properties` with `${NAME}` substituted, and `prefix` (written on its own) among them. */
  private restProperties(spec: Extract<CatalogSpec, { type: 'rest' }>): Record<string, string> | undefined {
    const written = { ...spec.properties, ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }) };
    const entries = Object.entries(written);
    return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([key, value]) => [key, this.text(value)]));
  }

  private keys(spec: AwsKeysSpec): AwsKeys {
    return {
      accessKeyId: this.secret(spec.accessKeyId),
      secretAccessKey: this.secret(spec.secretAccessKey),
      ...defined('sessionToken', this.optional(spec.sessionToken, (s) => this.secret(s))),
    };
  }

  private secret(ref: SecretRef): string {
    const value = this.env[ref.variable];
    if (value === undefined) this.report(ref.at, `environment variable ${ref.variable} is not set`, ref.variable);
    else if (value === '') this.report(ref.at, `environment variable ${ref.variable} is empty`, ref.variable);
    registerSecret(value);
    return value ?? '';
  }

  /** The text with `${NAME}` substituted; '' (and a problem) when a variable is unset or it is empty. */
  private text(spec: SpecText): string {
    const substituted = substituteEnv(spec.template, this.env);
    if ('missing' in substituted) {
      const name = substituted.missing;
      this.report(spec.at, `environment variable ${name} is not set (referenced as \${${name}})`, name);
      return '';
    }
    if (substituted.value.trim() === '') {
      this.report(spec.at, `is empty after substituting ${JSON.stringify(spec.template)}`);
      return '';
    }
    return substituted.value;
  }

  /** An http(s) URL without user-info: credentials belong in auth / *_env fields, never in a URL. */
  private url(spec: SpecText): string {
    const value = this.text(spec);
    if (value === '') return value;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      this.report(spec.at, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
      return value;
    }
    if (url.username !== '' || url.password !== '') {
      this.report(spec.at, 'must not carry credentials (user:password@): name them with *_env fields instead');
    } else if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.report(spec.at, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  /** The embedded catalog's warehouse: a local directory (or file: URI), relative to the spec file. */
  private localDirectory(spec: SpecText): string {
    const value = this.text(spec);
    if (value === '') return value;
    if (value.startsWith('file://')) {
      const local = value.slice('file://'.length);
      if (!path.isAbsolute(local)) this.report(spec.at, `a file: URI must name an absolute path, got ${JSON.stringify(value)}`);
      return local;
    }
    if (URI_SCHEME.test(value)) {
      const problem = `the sql catalog keeps its warehouse in a local directory, got ${JSON.stringify(value)}`;
      this.report(spec.at, `${problem}; use a rest or glue catalog for object storage`);
      return value;
    }
    return path.resolve(this.specDir, value);
  }

  private optional<T, R>(value: T | undefined, resolve: (value: T) => R): R | undefined {
    return value === undefined ? undefined : resolve(value);
  }

  private report(at: SpecField, message: string, variable?: string): void {
    this.problems.push({ at, message, ...(variable === undefined ? {} : { variable }) });
  }
}

function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
}
