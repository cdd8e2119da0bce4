/**
 * The HTTP layer of the REST catalog client (ICEBERG.md §7.2, §7.6): `{uri}/v1/{prefix}/…` URLs,
 * int64-safe JSON bodies, pluggable auth (auth.ts; a 401/419 refreshes and retries once),
 * per-request timeouts, zod validation of every response, and the mapping of `{"error":{message,type,code}}` + status onto typed errors.
 * When the server supports `Idempotency-Key`, every POST/DELETE carries one, and the same key is
 * sent again on each transport-level retry of that request (transport-retry.ts).
 */
import type { z } from 'zod';
import {
  AlreadyExistsError,
  CommitConflictError,
  CommitStateUnknownError,
  InvalidInputError,
  NoSuchNamespaceError,
  NoSuchTableError,
  ThundError,
  type ErrorContext,
  NamespaceNotEmptyError,
} from '../../src/errors.js';
import { parseJson, stringifyJson } from '../../src/iceberg/json.js';
import { BearerAuth, type AuthProvider } from './auth.js';
import { prefixPath } from './prefix.js';
import { uuidv7 } from './idempotency-key.js';
import { resolveRetry, RETRYABLE_STATUSES, retryDelayMs, sleep, type ResolvedRetry, type TransportRetryOptions } from './transport-retry.js';
import { errorResponseWire } from './wire.js';

/** What the call does: decides how 404/409/5xx are reported. */
export type RestOperation = 'read' | 'create' | 'update' | 'rename' | 'commit' | 'drop';

/** Which missing thing a 404 without a recognisable error `type` means. */
export type NotFoundKind = 'table' | 'namespace';

export interface RestHttpOptions {
  /** Catalog base URI, without `/v1`. */
  readonly uri: string;
  /** Sent as `Authorization: Bearer <token>`; never logged or put into error context. */
  readonly token?: string;
  /** Adds auth headers per request; on 401/419 it may refresh once. Takes precedence over `token`. */
  readonly auth?: AuthProvider;
  /** Per-request timeout; default 60 s. */
  readonly timeoutMs?: number;
  /** Replaceable for tests (fault injection). */
  readonly fetch?: typeof fetch;
  /** Resends of idempotency-keyed mutations after 429/502/503/504 or no response. */
  readonly retry?: TransportRetryOptions;
}

export interface RestRequest<T> {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'HEAD';
  /** Path after `/v1/{prefix}`, starting with `/`, already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** A JSON value (serialised with stringifyJson) or ready JSON text. */
  readonly body?: unknown;
  readonly bodyText?: string;
  /** Validates the JSON response; omit for calls answered with 204 / no body. */
  readonly response?: z.ZodType<T>;
  readonly operation: RestOperation;
  readonly notFound?: NotFoundKind;
  /** Names the namespace/table in errors. */
  readonly context?: ErrorContext;
  /** Do not prefix the path with `{prefix}` (the config call). */
  readonly unprefixed?: boolean;
  /** Extra request headers (e.g. `X-Iceberg-Access-Delegation`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A per-table bearer token (a load response's `config.token`); replaces the catalog's auth. */
  readonly bearer?: string;
}

/** The answer of one HTTP exchange, body read. */
interface Exchange {
  readonly status: number;
  readonly ok: boolean;
  readonly text: string;
  readonly retryAfter: string | null;
}

/** No answer arrived (connection refused or reset, timeout); `cause` is what fetch threw. */
class NoResponse {
  constructor(readonly cause: unknown) {}
}

const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const DEFAULT_TIMEOUT_MS = 60_000;
const COMMIT_UNKNOWN_STATUSES = new Set([500, 502, 503, 504]);

export class RestHttp {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly auth: AuthProvider | undefined;
  private readonly retry: ResolvedRetry;
  private prefix = '';
  private idempotencyKeys = false;

  constructor(options: RestHttpOptions) {
    this.base = options.uri.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchFn = options.fetch ?? fetch;
    this.auth = options.auth ?? (options.token === undefined ? undefined : new BearerAuth(options.token));
    this.retry = resolveRetry(options.retry);
  }

  /** From now on, POST and DELETE requests carry an `Idempotency-Key` (the server advertised support). */
  useIdempotencyKeys(enabled: boolean): void {
    this.idempotencyKeys = enabled;
  }

  /** The config's `prefix`, inserted as `/v1/{prefix}/…` as the server sent it (prefix.ts). */
  setPrefix(prefix: string | undefined): void {
    this.prefix = prefixPath(prefix);
  }

  url(path: string, query?: Readonly<Record<string, string | undefined>>, unprefixed = false): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, value);
    const search = params.toString();
    return `${this.base}/v1${unprefixed ? '' : this.prefix}${path}${search === '' ? '' : `?${search}`}`;
  }

  /** Sends the request; returns the validated body, or undefined for an empty (204) answer. */
  async request<T>(req: RestRequest<T>): Promise<T | undefined> {
    const key = this.idempotencyKeys && (req.method === 'POST' || req.method === 'DELETE') ? uuidv7() : undefined;
    const extra = key === undefined ? req.headers : { ...req.headers, [IDEMPOTENCY_KEY_HEADER]: key };
    // What went wrong on the attempt before a resend; after an ambiguous failure our own first
    // attempt may have landed, so a later refusal of a commit proves nothing.
    let ambiguous: string | undefined;
    for (let retry = 0; ; retry++) {
      const exchange = await this.exchange(req, extra);
      const mayRetry = key !== undefined && retry < this.retry.maxRetries;
      if (exchange instanceof NoResponse) {
        if (!mayRetry) throw this.networkError(req, exchange.cause);
        ambiguous = 'no response';
        await sleep(retryDelayMs(this.retry, retry + 1, undefined));
        continue;
      }
      if (mayRetry && RETRYABLE_STATUSES.has(exchange.status)) {
        if (exchange.status !== 429) ambiguous = `HTTP ${exchange.status}`;
        await sleep(retryDelayMs(this.retry, retry + 1, exchange.retryAfter));
        continue;
      }
      return this.answer(req, exchange, ambiguous);
    }
  }

  /** HEAD: true for 2xx, false for 404, a typed error otherwise. */
  async exists(req: Omit<RestRequest<never>, 'method' | 'response'>): Promise<boolean> {
    const full: RestRequest<never> = { ...req, method: 'HEAD' };
    const exchange = await this.exchange(full, req.headers);
    if (exchange instanceof NoResponse) throw this.networkError(full, exchange.cause);
    if (exchange.ok) return true;
    if (exchange.status === 404) return false;
    throw errorFromResponse(full, exchange.status, '');
  }

  private answer<T>(req: RestRequest<T>, exchange: Exchange, ambiguous: string | undefined): T | undefined {
    const { status, text } = exchange;
    if (!exchange.ok) {
      if (ambiguous !== undefined && req.operation === 'commit' && status === 409) {
        throw new CommitStateUnknownError(`Commit outcome unknown: a resend after ${ambiguous} was refused with HTTP 409, and the first attempt may have landed`, {
          context: { ...req.context, method: req.method, path: req.path, status },
        });
      }
      // Named so a caller can tell e.g. an "already exists" that may be its own first attempt.
      throw errorFromResponse(ambiguous === undefined ? req : { ...req, context: { ...req.context, resentAfter: ambiguous } }, status, text);
    }
    if (req.response === undefined) return undefined;
    if (text.trim() === '') {
      throw this.badResponse(req, status, 'the response has no body');
    }
    let json: unknown;
    try {
      json = parseJson(text, `${req.method} ${req.path}`);
    } catch (error) {
      throw this.badResponse(req, status, 'the response is not JSON', error);
    }
    const parsed = req.response.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? '' : ` at ${issue.path.join('.') || '(root)'}: ${issue.message}`;
      throw this.badResponse(req, status, `unexpected response shape${where}`, parsed.error);
    }
    return parsed.data;
  }

  /** One request with its body read; a 401/419 refreshes the catalog's auth and resends once. */
  private async exchange<T>(req: RestRequest<T>, extra: Readonly<Record<string, string>> | undefined): Promise<Exchange | NoResponse> {
    const base: Record<string, string> = { accept: 'application/json', ...extra };
    let body: string | undefined = req.bodyText;
    if (body === undefined && req.body !== undefined) body = stringifyJson(req.body);
    if (body !== undefined) base['content-type'] = 'application/json';
    const url = this.url(req.path, req.query, req.unprefixed);
    const auth = req.bearer === undefined ? this.auth : new BearerAuth(req.bearer, 'short-lived');
    for (let attempt = 0; ; attempt++) {
      // Auth errors (e.g. a rejected token request) propagate as they are.
      const authHeaders = auth === undefined ? {} : await auth.headers({ method: req.method, url, ...(body === undefined ? {} : { body }), headers: base });
      let response: Response;
      try {
        response = await this.fetchFn(url, {
          method: req.method,
          headers: { ...base, ...authHeaders },
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (error) {
        return new NoResponse(error);
      }
      const unauthorized = response.status === 401 || response.status === 419;
      if (unauthorized && attempt === 0 && auth !== undefined && (await auth.onUnauthorized())) {
        await response.body?.cancel().catch(() => undefined);
        continue;
      }
      try {
        const text = await response.text();
        return { status: response.status, ok: response.ok, text, retryAfter: response.headers.get('retry-after') };
      } catch (error) {
        return new NoResponse(error);
      }
    }
  }

  private networkError<T>(req: RestRequest<T>, cause: unknown): ThundError {
    const reason = networkReason(cause);
    const context = { ...req.context, method: req.method, path: req.path };
    if (req.operation === 'commit') {
      // The request may have reached the server and been applied (ICEBERG.md §7.1).
      return new CommitStateUnknownError(`Commit outcome unknown: no response from the catalog (${reason})`, { cause, context });
    }
    return new ThundError('REST_NETWORK', `REST catalog request ${req.method} ${req.path} failed: ${reason}`, {
      retryable: true,
      cause,
      context,
    });
  }

  private badResponse<T>(req: RestRequest<T>, status: number, reason: string, cause?: unknown): ThundError {
    const context = { ...req.context, method: req.method, path: req.path, status };
    if (req.operation === 'commit') {
      // A 2xx commit answer was applied, but we cannot tell the caller what the table looks like.
      return new CommitStateUnknownError(`Commit outcome unknown: ${reason}`, { cause, context });
    }
    return new ThundError('REST_BAD_RESPONSE', `REST catalog ${req.method} ${req.path}: ${reason}`, { cause, context });
  }
}

/** Maps an error status and its `{"error":{…}}` body (if any) onto the project's error types. */
export function errorFromResponse<T>(req: RestRequest<T>, status: number, text: string): ThundError {
  const detail = parseErrorBody(text);
  const type = detail?.type ?? '';
  const message = detail?.message ?? `HTTP ${status}`;
  const context: ErrorContext = { ...req.context, method: req.method, path: req.path, status, errorType: detail?.type };
  const what = `${req.method} ${req.path}`;
  if (status === 404) {
    if (/NoSuchNamespace/i.test(type)) return new NoSuchNamespaceError(`No such namespace: ${message}`, { context });
    if (/NoSuchTable|NoSuchView/i.test(type)) return new NoSuchTableError(`No such table: ${message}`, { context });
    if (req.notFound === 'namespace') return new NoSuchNamespaceError(`No such namespace: ${message}`, { context });
    if (req.notFound === 'table') return new NoSuchTableError(`No such table: ${message}`, { context });
  }
  if (status === 409) {
    if (req.operation === 'commit') return new CommitConflictError(`Commit conflict: ${message}`, { context });
    if (req.operation === 'create' || req.operation === 'rename') return new AlreadyExistsError(`Already exists: ${message}`, { context });
    if (req.operation === 'drop' && req.notFound === 'namespace') {
      return new NamespaceNotEmptyError(`Namespace ${String(req.context?.['namespace'] ?? '')} is not empty: ${message}`, { context });
    }
  }
  if (status === 422) return new InvalidInputError(`REST catalog refused ${what}: ${message}`, { context });
  if (req.operation === 'commit' && COMMIT_UNKNOWN_STATUSES.has(status)) {
    return new CommitStateUnknownError(`Commit outcome unknown: HTTP ${status}: ${message}`, { context });
  }
  return new ThundError(`REST_${status}`, `REST catalog ${what} failed with HTTP ${status}${type === '' ? '' : ` (${type})`}: ${message}`, {
    retryable: status >= 500,
    context,
  });
}

function parseErrorBody(text: string): { message?: string; type?: string } | undefined {
  if (text.trim() === '') return undefined;
  try {
    const parsed = errorResponseWire.safeParse(parseJson(text, 'REST error response'));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

/** fetch says only "fetch failed"; the system error under it (ECONNREFUSED, ENOTFOUND, …) says why. */
function networkReason(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const under = cause.cause;
  const code = typeof under === 'object' && under !== null && 'code' in under && typeof under.code === 'string' ? under.code : undefined;
  return code === undefined || cause.message.includes(code) ? cause.message : `${cause.message} (${code})`;
}
