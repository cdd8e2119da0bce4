/**
 * A Confluent-compatible schema registry, read-only: the schema registered under an id
 * (GET /schemas/ids/{id}), cached for the life of the client since an id's schema never changes.
 * Basic auth credentials come from environment variables named by the caller (or the URL) and are
 * registered as secrets, so errors, which repeat the registry's own message, never show them.
 */
import { z } from 'zod';
import { InvalidInputError, ThundError, type ThundErrorOptions } from '../../src/errors.js';
import { registerBasicAuth } from '../../src/secrets.js';

export class SchemaRegistryError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('SCHEMA_REGISTRY', message, options);
  }
}

/** The registry answered that no schema has this id: records written with it cannot be decoded. */
export class SchemaNotFoundError extends SchemaRegistryError {}

export interface RegisteredSchema {
  readonly id: number;
  /** AVRO when the registry omits it (its default). */
  readonly schemaType: string;
  readonly schema: string;
  readonly references: readonly { readonly name: string; readonly subject: string; readonly version: number }[];
}

export interface BasicAuth {
  readonly username: string;
  readonly password: string;
}

export interface SchemaRegistryOptions {
  readonly url: string;
  readonly auth?: BasicAuth;
  readonly timeoutMs?: number;
}

const SCHEMA_RESPONSE = z.object({
  schema: z.string(),
  schemaType: z.string().optional(),
  references: z.array(z.object({ name: z.string(), subject: z.string(), version: z.number().int() })).optional(),
});

/** Confluent's error body: `{"error_code": 40101, "message": "…"}`. */
const ERROR_RESPONSE = z.object({ message: z.string() });

const DEFAULT_TIMEOUT_MS = 10_000;

export class SchemaRegistryClient {
  private readonly cache = new Map<number, Promise<RegisteredSchema>>();
  /** Without credentials: this is what errors show. */
  private readonly baseUrl: string;
  private readonly auth: BasicAuth | undefined;

  constructor(private readonly options: SchemaRegistryOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      // No cause: URL's error carries the input, credentials and all.
      throw new InvalidInputError('Schema registry URL is not a valid URL');
    }
    // Credentials written into the URL (https://user:pass@host) become basic auth and leave the URL.
    const fromUrl = url.username === '' ? undefined : { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = '';
    url.password = '';
    this.baseUrl = url.toString().replace(/\/+$/, '');
    this.auth = options.auth ?? fromUrl;
    if (this.auth !== undefined) registerBasicAuth(this.auth.username, this.auth.password);
  }

  schemaById(id: number): Promise<RegisteredSchema> {
    let pending = this.cache.get(id);
    if (pending === undefined) {
      pending = this.fetchSchema(id);
      this.cache.set(id, pending);
      // Failures are not cached: the next record with this id asks again.
      pending.catch(() => this.cache.delete(id));
    }
    return pending;
  }

  private async fetchSchema(id: number): Promise<RegisteredSchema> {
    const url = `${this.baseUrl}/schemas/ids/${id}`;
    const headers: Record<string, string> = { accept: 'application/vnd.schemaregistry.v1+json, application/json' };
    if (this.auth !== undefined) {
      headers['authorization'] = `Basic ${Buffer.from(`${this.auth.username}:${this.auth.password}`).toString('base64')}`;
    }
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) });
    } catch (cause) {
      throw new SchemaRegistryError(`Schema registry at ${this.baseUrl} did not answer for schema id ${id}`, { cause, retryable: true, context: { schemaId: id } });
    }
    const body = await response.text();
    if (response.status === 404) {
      throw new SchemaNotFoundError(`Schema registry at ${this.baseUrl} has no schema with id ${id}`, { context: { schemaId: id, status: 404 } });
    }
    if (!response.ok) {
      const retryable = response.status >= 500 || response.status === 429;
      throw new SchemaRegistryError(`Schema registry at ${this.baseUrl} answered ${response.status} for schema id ${id}${registryMessage(body)}`, {
        retryable,
        context: { schemaId: id, status: response.status },
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (cause) {
      throw new SchemaRegistryError(`Schema registry at ${this.baseUrl} sent a body that is not JSON for schema id ${id}`, { cause, context: { schemaId: id } });
    }
    const parsed = SCHEMA_RESPONSE.safeParse(json);
    if (!parsed.success) {
      throw new SchemaRegistryError(`Schema registry at ${this.baseUrl} sent an unexpected body for schema id ${id}: ${parsed.error.issues[0]?.message ?? 'bad shape'}`, { context: { schemaId: id } });
    }
    return { id, schemaType: parsed.data.schemaType ?? 'AVRO', schema: parsed.data.schema, references: parsed.data.references ?? [] };
  }
}

/** `: <the registry's message>` when the error body has one. */
function registryMessage(body: string): string {
  try {
    const parsed = ERROR_RESPONSE.safeParse(JSON.parse(body));
    return parsed.success ? `: ${parsed.data.message}` : '';
  } catch {
    return '';
  }
}

export interface AuthEnvNames {
  readonly usernameEnv: string;
  readonly passwordEnv: string;
}

export const DEFAULT_AUTH_ENV: AuthEnvNames = { usernameEnv: 'THUND_SCHEMA_REGISTRY_USERNAME', passwordEnv: 'THUND_SCHEMA_REGISTRY_PASSWORD' };

/** Basic auth from two environment variables; none when both are unset, an error naming the missing one otherwise. */
export function basicAuthFromEnv(env: Readonly<Record<string, string | undefined>>, names: AuthEnvNames = DEFAULT_AUTH_ENV): BasicAuth | undefined {
  const username = env[names.usernameEnv];
  const password = env[names.passwordEnv];
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined || password === undefined) {
    const missing = username === undefined ? names.usernameEnv : names.passwordEnv;
    throw new InvalidInputError(`Schema registry basic auth needs both ${names.usernameEnv} and ${names.passwordEnv}; ${missing} is not set`, { context: { variable: missing } });
  }
  return { username, password };
}

/** A registry at `url` with the basic auth the variables `names` hold, if any (both or neither). */
export function schemaRegistryOptionsFromEnv(url: string, env: Readonly<Record<string, string | undefined>>, names: AuthEnvNames): SchemaRegistryOptions {
  const auth = basicAuthFromEnv(env, names);
  return { url, ...(auth === undefined ? {} : { auth }) };
}
