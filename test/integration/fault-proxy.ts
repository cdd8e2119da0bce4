/**
 * A loopback HTTP proxy between a client and a real server, scriptable per request: a rule
 * matches a method and path and fires on chosen occurrences, answering without forwarding,
 * forwarding and then dropping the connection, forwarding and then answering something other
 * than what the server said, or forwarding only after a delay. Optionally it is also an OAuth2 token endpoint (client credentials)
 * that demands a live bearer token on every other call, so token expiry and revocation can be
 * tested against a server that itself has no auth.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultAction =
  /** Answer with this status and an Iceberg error body; the server never sees the request. */
  | { readonly kind: 'respond'; readonly status: number; readonly errorType?: string }
  /** Forward, wait for the server's whole answer, then destroy the client's socket (no response). */
  | { readonly kind: 'forward-then-drop' }
  /** Forward, swallow the server's answer and send this status instead. */
  | { readonly kind: 'forward-then-respond'; readonly status: number; readonly errorType?: string }
  /** Revoke every token issued so far, then treat the request as usual (so it is refused for its token). */
  | { readonly kind: 'revoke-tokens' }
  /** Hold the request this long, then forward it (a request delivered late, after its client gave up) and answer if the client still listens. */
  | { readonly kind: 'delay-then-forward'; readonly ms: number };

export interface FaultRule {
  readonly method: string;
  /** Matched against the request path without its query; a string must be equal, a RegExp must match. */
  readonly path: string | RegExp;
  /** 1-based occurrences of matching requests the action applies to (counted per rule, as they arrive, before auth). */
  readonly occurrences: readonly number[];
  readonly action: FaultAction;
}

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  /** The status the client got; undefined when its socket was destroyed. */
  readonly status: number | undefined;
  /** Whether the upstream server received the request. */
  readonly forwarded: boolean;
  /** The fault applied, if any. */
  readonly fault: FaultAction['kind'] | undefined;
}

export interface OAuthSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Lifetime of issued tokens (`expires_in`), in seconds. */
  readonly ttlSeconds: number;
  /** How long tokens really stay valid, when the server ends them sooner than it said; default ttlSeconds. */
  readonly enforcedTtlMs?: number;
  /** Status for a missing, expired or revoked token: 401, or 419 as some servers send. */
  readonly unauthorizedStatus?: 401 | 419;
}

interface IssuedToken {
  readonly expiresAt: number;
  revoked: boolean;
}

export interface OAuthCounters {
  /** Tokens handed out by the token endpoint. */
  readonly issued: number;
  /** Token requests refused (wrong client credentials). */
  readonly refusedTokenRequests: number;
  /** Catalog calls refused for a missing, expired or revoked token. */
  readonly unauthorized: number;
  /** Catalog calls that arrived with a token past its expiry (a subset of `unauthorized`). */
  readonly expiredSeen: number;
  /** Catalog calls that arrived with a revoked token (a subset of `unauthorized`). */
  readonly revokedSeen: number;
}

export const TOKEN_PATH = '/v1/oauth/tokens';

// Hop-by-hop and length headers are recomputed on each side; authorization is the proxy's own business.
const DROPPED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'authorization', 'proxy-connection']);

export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly rules: { readonly rule: FaultRule; seen: number }[] = [];
  private readonly tokens = new Map<string, IssuedToken>();
  private counters = { issued: 0, refusedTokenRequests: 0, unauthorized: 0, expiredSeen: 0, revokedSeen: 0 };

  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    readonly uri: string,
    private readonly oauth: OAuthSettings | undefined,
  ) {}

  /** Listens on 127.0.0.1 on a free port in front of `upstreamUri`. */
  static async start(upstreamUri: string, options: { readonly oauth?: OAuthSettings } = {}): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((req, res) => {
      proxy?.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 502, { error: { message: `fault proxy: ${String(error)}`, type: 'ProxyError', code: 502 } });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    proxy = new FaultProxy(server, new URL(upstreamUri), `http://127.0.0.1:${port}`, options.oauth);
    return proxy;
  }

  /** Adds a rule; earlier rules win when several match the same request. */
  inject(rule: FaultRule): void {
    this.rules.push({ rule, seen: 0 });
  }

  clearRules(): void {
    this.rules.length = 0;
  }

  /** Marks every token issued so far as revoked: the next catalog call with one gets 401/419. */
  revokeAll(): void {
    for (const token of this.tokens.values()) token.revoked = true;
  }

  get oauthCounters(): OAuthCounters {
    return { ...this.counters };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve, reject) => this.server.close((error) => (error === undefined ? resolve() : reject(error))));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://proxy');
    const path = url.pathname;
    const log = (status: number | undefined, forwarded: boolean, fault?: FaultAction['kind']): void => {
      this.requests.push({ method, path, status, forwarded, fault });
    };

    const action = this.match(method, path);
    if (action?.kind === 'revoke-tokens') this.revokeAll();
    if (action?.kind === 'respond') {
      sendJson(res, action.status, faultBody(action.status, action.errorType));
      return log(action.status, false, action.kind);
    }
    if (this.oauth !== undefined) {
      if (method === 'POST' && path === TOKEN_PATH) {
        const status = this.issueToken(this.oauth, body, res);
        return log(status, false);
      }
      const refusal = this.checkBearer(req.headers);
      if (refusal !== undefined) {
        const status = this.oauth.unauthorizedStatus ?? 401;
        sendJson(res, status, { error: { message: refusal, type: 'NotAuthorizedException', code: status } });
        return log(status, false, action?.kind);
      }
    }

    if (action?.kind === 'delay-then-forward') await new Promise((resolve) => setTimeout(resolve, action.ms));
    const answer = await this.forward(method, url, req.headers, body);
    if (action?.kind === 'forward-then-drop') {
      res.socket?.destroy();
      return log(undefined, true, action.kind);
    }
    if (action?.kind === 'forward-then-respond') {
      sendJson(res, action.status, faultBody(action.status, action.errorType));
      return log(action.status, true, action.kind);
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
    log(answer.status, true, action?.kind);
  }

  private match(method: string, path: string): FaultAction | undefined {
    for (const entry of this.rules) {
      const { rule } = entry;
      if (rule.method !== method) continue;
      if (typeof rule.path === 'string' ? rule.path !== path : !rule.path.test(path)) continue;
      entry.seen += 1;
      if (rule.occurrences.includes(entry.seen)) return rule.action;
    }
    return undefined;
  }

  private forward(
    method: string,
    url: URL,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const outgoing: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && !DROPPED_HEADERS.has(name)) outgoing[name] = value;
    if (body.byteLength > 0) outgoing['content-length'] = String(body.byteLength);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(
        { host: this.upstream.hostname, port: this.upstream.port, method, path: `${url.pathname}${url.search}`, headers: outgoing },
        (response) => {
          readBody(response).then((answer) => {
            const responseHeaders: Record<string, string | string[]> = {};
            for (const [name, value] of Object.entries(response.headers)) {
              if (value !== undefined && !DROPPED_HEADERS.has(name)) responseHeaders[name] = value;
            }
            responseHeaders['content-length'] = String(answer.byteLength);
            resolve({ status: response.statusCode ?? 502, headers: responseHeaders, body: answer });
          }, reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  private issueToken(oauth: OAuthSettings, body: Buffer, res: ServerResponse): number {
    const form = new URLSearchParams(body.toString('utf8'));
    const valid =
      form.get('grant_type') === 'client_credentials' && form.get('client_id') === oauth.clientId && form.get('client_secret') === oauth.clientSecret;
    if (!valid) {
      this.counters.refusedTokenRequests += 1;
      // Echoes what it was sent, as careless servers do: the client must still not leak it.
      sendJson(res, 401, { error: 'invalid_client', error_description: `client authentication failed for ${form.get('client_id')}:${form.get('client_secret')}` });
      return 401;
    }
    const token = randomBytes(12).toString('hex');
    this.tokens.set(token, { expiresAt: Date.now() + (oauth.enforcedTtlMs ?? oauth.ttlSeconds * 1000), revoked: false });
    this.counters.issued += 1;
    sendJson(res, 200, { access_token: token, token_type: 'bearer', expires_in: oauth.ttlSeconds, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    return 200;
  }

  /** undefined when the request carries a live token, else why it is refused. */
  private checkBearer(headers: IncomingHttpHeaders): string | undefined {
    const match = /^Bearer (\S+)$/i.exec(headers.authorization ?? '');
    const issued = match?.[1] === undefined ? undefined : this.tokens.get(match[1]);
    if (issued === undefined) return this.refuse('missing or unknown bearer token');
    if (issued.revoked) {
      this.counters.revokedSeen += 1;
      return this.refuse('token revoked');
    }
    if (Date.now() >= issued.expiresAt) {
      this.counters.expiredSeen += 1;
      return this.refuse('token expired');
    }
    return undefined;
  }

  private refuse(reason: string): string {
    this.counters.unauthorized += 1;
    return reason;
  }
}

function faultBody(status: number, errorType: string | undefined): unknown {
  const type = errorType ?? (status === 409 ? 'CommitFailedException' : status === 503 ? 'ServiceUnavailableException' : 'ServerError');
  return { error: { message: `injected by the fault proxy: HTTP ${status}`, type, code: status } };
}

function sendJson(res: ServerResponse, status: number, json: unknown): void {
  const text = JSON.stringify(json);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
