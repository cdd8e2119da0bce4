/**
 * Authentication for the REST catalog client (ICEBERG.md §7.3): a static bearer token, OAuth2
 * client credentials with a cached, proactively refreshed token, and AWS SigV4 request signing
 * (Glue's and S3 Tables' Iceberg REST endpoints). Every secret and token is registered
 * (src/secrets.ts) before it is sent, so no error or log shows it, even when a server echoes it.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { z } from 'zod';
import { ThundError } from '../../src/errors.js';
import { registerAwsKeys, registerSecret, registerShortLivedSecret } from '../../src/secrets.js';

/** The request an auth provider decorates; `url` is absolute, `body` the exact bytes sent. */
export interface AuthRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: string;
  /** Headers already on the request (signed by SigV4). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AuthProvider {
  /** Headers to add to this request. */
  headers(request: AuthRequest): Promise<Record<string, string>>;
  /** Called after a 401/419; true when new credentials were obtained and one retry is worth it. */
  onUnauthorized(): Promise<boolean>;
}

/** How long a token lives: configured for the process, or handed out at run time (per table). */
export type TokenLifetime = 'lasting' | 'short-lived';

/** `Authorization: Bearer <token>` with a fixed token; a 401 cannot be cured by retrying. */
export class BearerAuth implements AuthProvider {
  constructor(
    private readonly token: string,
    lifetime: TokenLifetime = 'lasting',
  ) {
    if (lifetime === 'lasting') registerSecret(token);
    else registerShortLivedSecret(token);
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${this.token}` };
  }

  async onUnauthorized(): Promise<boolean> {
    return false;
  }
}

export interface OAuth2Options {
  /** Catalog base URI (without `/v1`); the default token endpoint is `{uri}/v1/oauth/tokens`. */
  readonly uri: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Default `catalog` (the Java client's default). */
  readonly scope?: string;
  /** `oauth2-server-uri`: the token endpoint, e.g. an external IdP. */
  readonly serverUri?: string;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Clock in ms since the epoch; replaceable for tests. */
  readonly now?: () => number;
}

const tokenResponseWire = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().nonnegative().optional(),
  issued_token_type: z.string().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});

const oauthErrorWire = z.object({ error: z.string(), error_description: z.string().optional() });

/** Refresh when less than this much of the token's life is left (capped by half its lifetime). */
const REFRESH_MARGIN_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 60_000;

interface CachedToken {
  readonly value: string;
  /** Refresh at or after this instant; undefined when the server gave no expiry. */
  readonly refreshAt: number | undefined;
}

/** OAuth2 client-credentials grant; the token is cached and refreshed before `expires_in` ends. */
export class OAuth2ClientCredentialsAuth implements AuthProvider {
  /** The token endpoint, without any user-info, for error messages. */
  readonly tokenEndpoint: string;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private token: CachedToken | undefined;
  private pending: Promise<CachedToken> | undefined;

  constructor(private readonly options: OAuth2Options) {
    this.tokenEndpoint = options.serverUri ?? `${options.uri.replace(/\/+$/, '')}/v1/oauth/tokens`;
    registerSecret(options.clientSecret);
    this.fetchFn = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  async headers(): Promise<Record<string, string>> {
    const cached = this.token;
    const fresh = cached !== undefined && (cached.refreshAt === undefined || this.now() < cached.refreshAt);
    const token = fresh ? cached : await this.fetchToken();
    return { authorization: `Bearer ${token.value}` };
  }

  async onUnauthorized(): Promise<boolean> {
    this.token = undefined;
    await this.fetchToken();
    return true;
  }

  /** One token request at a time; concurrent callers share it. */
  private fetchToken(): Promise<CachedToken> {
    if (this.pending === undefined) {
      this.pending = this.requestToken().then(
        (token) => {
          this.token = token;
          this.pending = undefined;
          return token;
        },
        (error: unknown) => {
          this.pending = undefined;
          throw error;
        },
      );
    }
    return this.pending;
  }

  private async requestToken(): Promise<CachedToken> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
      scope: this.options.scope ?? 'catalog',
    });
    const started = this.now();
    let response: Response;
    let text: string;
    try {
      response = await this.fetchFn(this.tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // The cause is dropped on purpose: fetch errors can carry the request (and its form body).
      throw this.authError(`cannot reach the token endpoint (${reason})`, undefined, true);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const detail = oauthErrorWire.safeParse(json);
      const what = detail.success
        ? `${detail.data.error}${detail.data.error_description === undefined ? '' : `: ${detail.data.error_description}`}`
        : `HTTP ${response.status}`;
      throw this.authError(`the token request was rejected with HTTP ${response.status} (${what})`, response.status, response.status >= 500);
    }
    const parsed = tokenResponseWire.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? '' : ` at ${issue.path.join('.') || '(root)'}: ${issue.message}`;
      throw this.authError(`unexpected token response${where}`, response.status, false);
    }
    if (parsed.data.token_type.toLowerCase() !== 'bearer') {
      throw this.authError(`unsupported token_type ${JSON.stringify(parsed.data.token_type)}`, response.status, false);
    }
    registerShortLivedSecret(parsed.data.access_token);
    registerShortLivedSecret(parsed.data.refresh_token);
    const lifetimeMs = parsed.data.expires_in === undefined ? undefined : parsed.data.expires_in * 1000;
    const refreshAt =
      lifetimeMs === undefined ? undefined : started + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2);
    return { value: parsed.data.access_token, refreshAt };
  }

  private authError(reason: string, status: number | undefined, retryable: boolean): ThundError {
    const endpoint = withoutUserInfo(this.tokenEndpoint);
    return new ThundError('REST_AUTH', `OAuth2 token request to ${endpoint} failed: ${reason}`, {
      retryable,
      context: { endpoint, status, clientId: this.options.clientId },
    });
  }
}

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SigV4Options {
  readonly region: string;
  /** Signing name; default `glue` (S3 Tables uses `s3tables`). */
  readonly service?: string;
  readonly credentials: AwsCredentials | (() => Promise<AwsCredentials>);
  /** Clock for the signing date; replaceable for tests. */
  readonly now?: () => Date;
}

/** Signs method, URL, headers and body with AWS Signature Version 4. */
export class SigV4Auth implements AuthProvider {
  private readonly signer: SignatureV4;
  private readonly now: () => Date;

  constructor(options: SigV4Options) {
    const credentials = options.credentials;
    this.signer = new SignatureV4({
      service: options.service ?? 'glue',
      region: options.region,
      credentials: typeof credentials === 'function' ? registeredAsResolved(credentials) : registeredNow(credentials),
      sha256: NodeSha256,
      uriEscapePath: true,
      applyChecksum: true,
    });
    this.now = options.now ?? (() => new Date());
  }

  async headers(request: AuthRequest): Promise<Record<string, string>> {
    const url = new URL(request.url);
    const query: Record<string, string | string[]> = {};
    for (const [key, value] of url.searchParams) {
      const seen = query[key];
      query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    const signed = await this.signer.sign(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: url.pathname,
        query,
        headers: { ...request.headers, host: url.host },
        ...(request.body === undefined ? {} : { body: request.body }),
      },
      { signingDate: this.now() },
    );
    const out: Record<string, string> = {};
    // fetch sets Host itself from the URL, which is the value signed above.
    for (const [name, value] of Object.entries(signed.headers)) if (name.toLowerCase() !== 'host') out[name.toLowerCase()] = value;
    return out;
  }

  async onUnauthorized(): Promise<boolean> {
    return false;
  }
}

function registeredNow(credentials: AwsCredentials): () => Promise<AwsCredentials> {
  registerAwsKeys(credentials);
  return async () => credentials;
}

/** Keys from a provider chain rotate: each set is registered as it arrives. */
function registeredAsResolved(provider: () => Promise<AwsCredentials>): () => Promise<AwsCredentials> {
  return async () => {
    const credentials = await provider();
    registerAwsKeys(credentials, true);
    return credentials;
  };
}

/** The `sha256` constructor the signer expects: a hash, or an HMAC when given a key. */
class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.create();
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.create();
  }

  private create(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
}

function toBytes(data: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

function withoutUserInfo(uri: string): string {
  try {
    const url = new URL(uri);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return uri;
  }
}

/** `RestCatalog.connect`'s `auth` option. */
export type RestAuthOptions =
  | { readonly type: 'bearer'; readonly token: string }
  | {
      readonly type: 'oauth2';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scope?: string;
      readonly serverUri?: string;
    }
  | {
      readonly type: 'sigv4';
      readonly region: string;
      readonly service?: string;
      readonly credentials: AwsCredentials | (() => Promise<AwsCredentials>);
    };

/** Builds the provider for a catalog at `uri`; `fetch`/`timeoutMs` are shared with the catalog client. */
export function createAuthProvider(
  auth: RestAuthOptions,
  catalog: { readonly uri: string; readonly fetch?: typeof fetch; readonly timeoutMs?: number },
): AuthProvider {
  switch (auth.type) {
    case 'bearer':
      return new BearerAuth(auth.token);
    case 'oauth2':
      return new OAuth2ClientCredentialsAuth({
        uri: catalog.uri,
        clientId: auth.clientId,
        clientSecret: auth.clientSecret,
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
        ...(auth.serverUri === undefined ? {} : { serverUri: auth.serverUri }),
        ...(catalog.fetch === undefined ? {} : { fetch: catalog.fetch }),
        ...(catalog.timeoutMs === undefined ? {} : { timeoutMs: catalog.timeoutMs }),
      });
    case 'sigv4':
      return new SigV4Auth({
        region: auth.region,
        credentials: auth.credentials,
        ...(auth.service === undefined ? {} : { service: auth.service }),
      });
  }
}
