/**
 * REST catalog auth against a real node:http server on 127.0.0.1: OAuth2 client credentials
 * (token fetch, bearer header, refresh on 401 once, refresh before expiry, rejected credentials
 * without leaking the secret) and SigV4 signatures verified by an independent re-computation.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { BearerAuth, OAuth2ClientCredentialsAuth, SigV4Auth } from '../../../catalog/rest/auth.js';
import { RestHttp } from '../../../catalog/rest/http.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { ThundError } from '../../../src/errors.js';

const CLIENT_ID = 'thund-client';
const CLIENT_SECRET = 'very-secret-value-42';

interface Issued {
  readonly expiresAt: number;
  revoked: boolean;
}

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly status: number;
}

interface AuthServer {
  readonly uri: string;
  readonly tokens: Map<string, Issued>;
  readonly tokenForms: URLSearchParams[];
  readonly seen: Seen[];
  /** Lifetime of newly issued tokens in seconds. */
  ttlSeconds: number;
  /** Status for refused requests: 401, or 419 (authentication timeout) as some servers send. */
  unauthorizedStatus: number;
  /** Verifies non-token requests; returns an error text or undefined when authorised. */
  check: (req: IncomingMessage, body: string) => string | undefined;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function startServer(): Promise<AuthServer> {
  const state: AuthServer = {
    uri: '',
    tokens: new Map(),
    tokenForms: [],
    seen: [],
    ttlSeconds: 3600,
    unauthorizedStatus: 401,
    check: (req) => {
      const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      const issued = match === null ? undefined : state.tokens.get(match[1] ?? '');
      if (issued === undefined) return 'unknown token';
      if (issued.revoked || Date.now() >= issued.expiresAt) return 'expired token';
      return undefined;
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, json: unknown): void => {
        state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'POST' && req.url === '/v1/oauth/tokens') {
        const form = new URLSearchParams(body);
        state.tokenForms.push(form);
        const ok =
          req.headers['content-type'] === 'application/x-www-form-urlencoded' &&
          form.get('grant_type') === 'client_credentials' &&
          form.get('client_id') === CLIENT_ID &&
          form.get('client_secret') === CLIENT_SECRET;
        if (!ok) return send(401, { error: 'invalid_client', error_description: 'client authentication failed' });
        const token = `tok-${state.tokens.size + 1}`;
        state.tokens.set(token, { expiresAt: Date.now() + state.ttlSeconds * 1000, revoked: false });
        return send(200, { access_token: token, token_type: 'bearer', expires_in: state.ttlSeconds, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
      }
      const problem = state.check(req, body);
      const refused = state.unauthorizedStatus;
      if (problem !== undefined) return send(refused, { error: { message: problem, type: 'NotAuthorizedException', code: refused } });
      if (req.url?.startsWith('/v1/config')) return send(200, { defaults: {}, overrides: { prefix: 'cat' } });
      return send(200, { namespaces: [['db']], echo: body });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { uri: `http://127.0.0.1:${port}` });
}

const namespaces = z.object({ namespaces: z.array(z.array(z.string())) });
const echo = z.object({ echo: z.string() });

function oauthHttp(server: AuthServer, secret = CLIENT_SECRET): { http: RestHttp; auth: OAuth2ClientCredentialsAuth } {
  const auth = new OAuth2ClientCredentialsAuth({ uri: server.uri, clientId: CLIENT_ID, clientSecret: secret });
  return { http: new RestHttp({ uri: server.uri, auth }), auth };
}

const listNamespaces = (http: RestHttp) => http.request({ method: 'GET', path: '/namespaces', response: namespaces, operation: 'read' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OAuth2 client credentials', () => {
  it('fetches a token with the spec form and sends it as a bearer token, cached across requests', async () => {
    const server = await startServer();
    const { http } = oauthHttp(server);
    expect(await listNamespaces(http)).toEqual({ namespaces: [['db']] });
    expect(await listNamespaces(http)).toEqual({ namespaces: [['db']] });
    expect(server.tokenForms).toHaveLength(1);
    const form = server.tokenForms[0]!;
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'catalog',
    });
    const calls = server.seen.filter((s) => s.url === '/v1/namespaces');
    expect(calls.map((s) => s.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1']);
  });

  it('on a 401 refreshes exactly once and retries the request with the new token', async () => {
    const server = await startServer();
    const { http } = oauthHttp(server);
    await listNamespaces(http);
    server.tokens.get('tok-1')!.revoked = true;
    const body = await http.request({ method: 'POST', path: '/things', body: { a: 1 }, response: echo, operation: 'create' });
    expect(body).toEqual({ echo: '{"a":1}' });
    expect(server.tokenForms).toHaveLength(2);
    const posts = server.seen.filter((s) => s.url === '/v1/things');
    expect(posts.map((s) => [s.status, s.headers.authorization, s.body])).toEqual([
      [401, 'Bearer tok-1', '{"a":1}'],
      [200, 'Bearer tok-2', '{"a":1}'],
    ]);
  });

  it('treats 419 like 401', async () => {
    const server = await startServer();
    server.unauthorizedStatus = 419;
    const { http } = oauthHttp(server);
    await listNamespaces(http);
    server.tokens.get('tok-1')!.revoked = true;
    expect(await listNamespaces(http)).toEqual({ namespaces: [['db']] });
    const calls = server.seen.filter((s) => s.url === '/v1/namespaces');
    expect(calls.map((s) => [s.status, s.headers.authorization])).toEqual([
      [200, 'Bearer tok-1'],
      [419, 'Bearer tok-1'],
      [200, 'Bearer tok-2'],
    ]);
  });

  it('gives up after one retry when the fresh token is also refused', async () => {
    const server = await startServer();
    const { http } = oauthHttp(server);
    server.check = () => 'never authorised';
    const error = await listNamespaces(http).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).code).toBe('REST_401');
    expect(server.tokenForms).toHaveLength(2);
    expect(server.seen.filter((s) => s.url === '/v1/namespaces')).toHaveLength(2);
  });

  it('refreshes before expires_in runs out, without a 401', async () => {
    const server = await startServer();
    server.ttlSeconds = 2;
    const { http } = oauthHttp(server);
    await listNamespaces(http);
    await sleep(1100); // past half the 2 s lifetime, before the server would refuse it
    await listNamespaces(http);
    expect(server.tokenForms).toHaveLength(2);
    const calls = server.seen.filter((s) => s.url === '/v1/namespaces');
    expect(calls.map((s) => [s.status, s.headers.authorization])).toEqual([
      [200, 'Bearer tok-1'],
      [200, 'Bearer tok-2'],
    ]);
  });

  it('shares one token request between concurrent calls', async () => {
    const server = await startServer();
    const { http } = oauthHttp(server);
    await Promise.all([listNamespaces(http), listNamespaces(http), listNamespaces(http)]);
    expect(server.tokenForms).toHaveLength(1);
  });

  it('fails with REST_AUTH naming the token endpoint, without the secret, on wrong credentials', async () => {
    const server = await startServer();
    const wrong = 'wrong-secret-do-not-print';
    const { http } = oauthHttp(server, wrong);
    const error = await listNamespaces(http).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    const thund = error as ThundError;
    expect(thund.code).toBe('REST_AUTH');
    expect(thund.message).toContain(`${server.uri}/v1/oauth/tokens`);
    expect(thund.message).toContain('invalid_client');
    const everything = `${thund.message} ${JSON.stringify(thund.context)} ${String(thund.stack)} ${String(thund.cause)}`;
    expect(everything).not.toContain(wrong);
    expect(server.seen.filter((s) => s.url === '/v1/namespaces')).toHaveLength(0);
  });

  it('honours serverUri and scope, and RestCatalog.connect takes auth options', async () => {
    const server = await startServer();
    const catalog = await RestCatalog.connect({
      uri: server.uri,
      io: new LocalFileIO(),
      auth: { type: 'oauth2', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scope: 'PRINCIPAL_ROLE:ALL', serverUri: `${server.uri}/v1/oauth/tokens` },
    });
    expect(await catalog.listNamespaces()).toEqual([['db']]);
    expect(server.tokenForms[0]?.get('scope')).toBe('PRINCIPAL_ROLE:ALL');
    expect(server.seen.map((s) => s.url)).toEqual(['/v1/oauth/tokens', '/v1/config', '/v1/cat/namespaces']);
  });
});

describe('static bearer token', () => {
  it('keeps the `token` option working and does not retry a 401', async () => {
    const server = await startServer();
    server.check = (req) => (req.headers.authorization === 'Bearer fixed' ? undefined : 'bad');
    expect(await listNamespaces(new RestHttp({ uri: server.uri, token: 'fixed' }))).toEqual({ namespaces: [['db']] });
    const refused = await listNamespaces(new RestHttp({ uri: server.uri, auth: new BearerAuth('other') })).catch((e: unknown) => e);
    expect((refused as ThundError).code).toBe('REST_401');
    expect(server.seen.filter((s) => s.status === 401)).toHaveLength(1);
  });
});

// An independent SigV4 verifier (AWS General Reference, "Create a signed AWS API request").
function hex(data: string | Buffer, key?: Buffer): string {
  return key === undefined ? createHash('sha256').update(data).digest('hex') : createHmac('sha256', key).update(data).digest('hex');
}
function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
const awsEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function verifySigV4(req: IncomingMessage, body: string, expected: { key: string; secret: string; region: string; service: string }): string | undefined {
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (m === null) return `malformed authorization header`;
  const [, key, date, region, service, signedHeaders, signature] = m as unknown as string[];
  if (key !== expected.key || region !== expected.region || service !== expected.service) return 'wrong credential scope';
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return 'host/x-amz-date not signed';
  const amzDate = String(req.headers['x-amz-date']);
  if (!amzDate.startsWith(date!)) return 'date mismatch';
  if (req.headers['x-amz-content-sha256'] !== hex(body)) return 'payload hash mismatch';
  const url = new URL(req.url ?? '/', 'http://placeholder');
  // Non-S3 services: each path segment is encoded again on top of the wire encoding.
  const canonicalUri = url.pathname.split('/').map(awsEncode).join('/');
  const canonicalQuery = [...url.searchParams]
    .map(([k, v]) => [awsEncode(k), awsEncode(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, hex(body)].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${expected.secret}`, date!), region!), service!), 'aws4_request');
  return hex(stringToSign, signingKey) === signature ? undefined : 'signature mismatch';
}

describe('SigV4', () => {
  const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

  it('signs method, path, query, headers and body so an independent verifier accepts them', async () => {
    const server = await startServer();
    server.check = (req, body) => verifySigV4(req, body, { key: creds.accessKeyId, secret: creds.secretAccessKey, region: 'eu-west-1', service: 'glue' });
    const now = new Date('2026-03-04T05:06:07Z');
    const http = new RestHttp({ uri: server.uri, auth: new SigV4Auth({ region: 'eu-west-1', credentials: creds, now: () => now }) });
    http.setPrefix('catalogs/123:s3tablescatalog/bucket');
    const body = await http.request({
      method: 'POST',
      path: `/namespaces/${encodeURIComponent('a\u001fb')}/tables`,
      query: { pageToken: 'x y/z', a: '1' },
      body: { name: 't', n: 1 },
      response: echo,
      operation: 'create',
    });
    expect(body).toEqual({ echo: '{"name":"t","n":1}' });
    const seen = server.seen[0]!;
    expect(seen.status).toBe(200);
    expect(seen.headers['x-amz-date']).toBe('20260304T050607Z');
    expect(seen.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20260304\/eu-west-1\/glue\/aws4_request, SignedHeaders=[^ ]*host[^ ]*x-amz-date/);
    expect(seen.headers['x-amz-content-sha256']).toBe(createHash('sha256').update('{"name":"t","n":1}').digest('hex'));
    expect(JSON.stringify(seen.headers)).not.toContain(creds.secretAccessKey);
  });

  it('a tampered signature is refused (the verifier is not vacuous) and not retried', async () => {
    const server = await startServer();
    server.check = (req, body) => verifySigV4(req, body, { key: creds.accessKeyId, secret: 'another-secret', region: 'us-east-1', service: 's3tables' });
    const http = new RestHttp({ uri: server.uri, auth: new SigV4Auth({ region: 'us-east-1', service: 's3tables', credentials: creds }) });
    const error = await listNamespaces(http).catch((e: unknown) => e);
    expect((error as ThundError).code).toBe('REST_401');
    expect((error as ThundError).message).toContain('signature mismatch');
    expect(server.seen).toHaveLength(1);
  });

  it('RestCatalog.connect with sigv4 options signs the config and later calls, with a session token', async () => {
    const server = await startServer();
    server.check = (req, body) =>
      req.headers['x-amz-security-token'] !== 'session-tok'
        ? 'no session token'
        : verifySigV4(req, body, { key: creds.accessKeyId, secret: creds.secretAccessKey, region: 'us-east-1', service: 's3tables' });
    const catalog = await RestCatalog.connect({
      uri: server.uri,
      warehouse: 'arn:aws:s3tables:us-east-1:123:bucket/b',
      io: new LocalFileIO(),
      auth: { type: 'sigv4', region: 'us-east-1', service: 's3tables', credentials: async () => ({ ...creds, sessionToken: 'session-tok' }) },
    });
    expect(await catalog.listNamespaces()).toEqual([['db']]);
    expect(server.seen.map((s) => s.status)).toEqual([200, 200]);
  });
});
