/**
 * OAuth2 client credentials against the REST fixture, with the fault proxy as token endpoint and
 * gatekeeper: it issues short-lived tokens and refuses any catalog call without a live one. A
 * run of commits that outlives several tokens must land every commit once, refreshing as it
 * goes (before expiry, or after a 401/419 for a token the server ended early or revoked), and the
 * client secret must never show up in an error.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { ThundError } from '../../src/errors.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3FileIOOptions } from '../stack/s3-env.js';
import { FaultProxy, TOKEN_PATH, type OAuthSettings } from './fault-proxy.js';

const CLIENT_ID = 'thund-writer';
const CLIENT_SECRET = `s3cr3t-${randomUUID()}`;
const COMMITS = 6;
const ROWS_PER_COMMIT = 10;

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [{ id: 1, name: 'id', required: true, type: primitive('long') }],
};

let upstream: string;
let io: S3FileIO;
const proxies: FaultProxy[] = [];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(() => {
  upstream = requireServiceEnv('THUND_TEST_REST_URI');
  io = new S3FileIO(testS3FileIOOptions());
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

async function startProxy(oauth: Omit<OAuthSettings, 'clientId' | 'clientSecret'>): Promise<FaultProxy> {
  const proxy = await FaultProxy.start(upstream, { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...oauth } });
  proxies.push(proxy);
  return proxy;
}

function connect(proxy: FaultProxy, clientSecret = CLIENT_SECRET): Promise<RestCatalog> {
  return RestCatalog.connect({ uri: proxy.uri, io, auth: { type: 'oauth2', clientId: CLIENT_ID, clientSecret } });
}

/** Creates a table, then appends COMMITS times with `pauseMs` between commits; returns how long the commits took. */
async function appendRun(catalog: RestCatalog, pauseMs: number): Promise<{ id: TableIdentifier; elapsedMs: number }> {
  const namespace = [`thund_oauth_${randomUUID().slice(0, 8)}`];
  const id = { namespace, name: 'events' };
  await catalog.createNamespace(namespace);
  await catalog.createTable(id, { schema });
  const session = await DuckDbSession.open();
  const started = Date.now();
  try {
    for (let index = 0; index < COMMITS; index += 1) {
      if (index > 0) await sleep(pauseMs);
      const { metadata } = await catalog.loadTable(id);
      const from = index * ROWS_PER_COMMIT;
      const files = await writeDataFiles({
        session,
        query: `SELECT range::BIGINT AS id FROM range(${from}, ${from + ROWS_PER_COMMIT})`,
        schema,
        specId: metadata.defaultSpecId,
        dataLocation: dataLocation(metadata),
        io,
        properties: metadata.properties,
        writerName: 'oauth-refresh-test',
      });
      const result = await commitSnapshot({ catalog, identifier: id, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
      expect(result.attempts).toBe(1);
    }
  } finally {
    session.close();
  }
  return { id, elapsedMs: Date.now() - started };
}

/** Every snapshot of the run is there once, in one chain, and the live files hold each row once. */
async function expectAllCommitted(catalog: RestCatalog, id: TableIdentifier): Promise<void> {
  const { metadata } = await catalog.loadTable(id);
  expect(metadata.snapshots).toHaveLength(COMMITS);
  expect(new Set(metadata.snapshots.map((s) => s.snapshotId)).size).toBe(COMMITS);
  expect(metadata.snapshots.at(-1)?.summary['total-records']).toBe(String(COMMITS * ROWS_PER_COMMIT));
  const live = await liveDataFiles(io, metadata);
  expect(live.reduce((sum, file) => sum + file.recordCount, 0n)).toBe(BigInt(COMMITS * ROWS_PER_COMMIT));
  for (const file of live) expect(await io.exists(file.filePath)).toBe(true);
}

/** Everything an error carries that could be printed or logged: messages, stacks, context, causes. */
function errorText(error: unknown, depth = 0): string {
  if (depth > 5 || error === undefined || error === null) return '';
  if (!(error instanceof Error)) return String(error);
  const context = error instanceof ThundError ? JSON.stringify(error.context, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)) : '';
  return [String(error), error.stack ?? '', context, errorText(error.cause, depth + 1)].join('\n');
}

describe('OAuth2 tokens expiring during a run of REST commits', () => {
  it('refreshes short-lived tokens before they expire: every call authorised, every commit landed', async () => {
    const ttlSeconds = 2;
    const proxy = await startProxy({ ttlSeconds });
    const catalog = await connect(proxy);
    const { id, elapsedMs } = await appendRun(catalog, 900);
    await expectAllCommitted(catalog, id);
    const counters = proxy.oauthCounters;
    // A token lives ttlSeconds and calls came at least every second, so the run needed one token per lifetime it spanned.
    expect(elapsedMs).toBeGreaterThan(2 * ttlSeconds * 1000);
    expect(counters.issued).toBeGreaterThanOrEqual(Math.ceil(elapsedMs / (ttlSeconds * 1000)));
    expect(counters.unauthorized).toBe(0);
  }, 60_000);

  it('recovers with one refresh when the server ends tokens sooner than expires_in said (401)', async () => {
    const pauseMs = 1100;
    const proxy = await startProxy({ ttlSeconds: 3600, enforcedTtlMs: 1000 });
    const catalog = await connect(proxy);
    const { id, elapsedMs } = await appendRun(catalog, pauseMs);
    await expectAllCommitted(catalog, id);
    const counters = proxy.oauthCounters;
    // The client believed each token good for an hour: every renewal was forced by a refused call.
    // Each pause between commits outlives the server's 1 s token life.
    expect(elapsedMs).toBeGreaterThanOrEqual((COMMITS - 1) * pauseMs);
    expect(counters.expiredSeen).toBeGreaterThanOrEqual(COMMITS - 1);
    expect(counters.issued).toBe(1 + counters.unauthorized);
    const refusals = proxy.requests.filter((r) => r.status === 401 && r.path !== TOKEN_PATH);
    expect(refusals.length).toBe(counters.unauthorized);
  }, 60_000);

  it('recovers from a token revoked just before the commit request (419) without committing twice', async () => {
    const proxy = await startProxy({ ttlSeconds: 3600, unauthorizedStatus: 419 });
    const catalog = await connect(proxy);
    // Every commit POST's first arrival finds its token revoked.
    proxy.inject({ method: 'POST', path: /\/tables\/events$/, occurrences: Array.from({ length: COMMITS }, (_, i) => 2 * i + 1), action: { kind: 'revoke-tokens' } });
    const { id } = await appendRun(catalog, 0);
    await expectAllCommitted(catalog, id);
    const commitPosts = proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/tables/events'));
    expect(commitPosts.map((r) => r.status)).toEqual(Array.from({ length: COMMITS }, () => [419, 200]).flat());
    expect(proxy.oauthCounters.revokedSeen).toBe(COMMITS);
    expect(proxy.oauthCounters.issued).toBe(1 + COMMITS);
  }, 60_000);

  it('fails with a typed error that never contains the client secret, even when the server echoes it', async () => {
    const proxy = await startProxy({ ttlSeconds: 3600 });
    const wrongSecret = `${CLIENT_SECRET}-wrong`;
    const error = await connect(proxy, wrongSecret).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).code).toBe('REST_AUTH');
    expect(proxy.oauthCounters.refusedTokenRequests).toBe(1);
    const text = errorText(error);
    expect(text).toContain('invalid_client');
    expect(text).not.toContain(wrongSecret);
    expect(text).not.toContain(CLIENT_SECRET);
  });

  it('keeps the secret out of the error when the token endpoint goes away mid-run', async () => {
    const proxy = await startProxy({ ttlSeconds: 3600 });
    const catalog = await connect(proxy);
    const namespace = [`thund_oauth_${randomUUID().slice(0, 8)}`];
    await catalog.createNamespace(namespace);
    // The token is revoked and the token endpoint now fails: the call cannot be authorised.
    proxy.inject({ method: 'POST', path: TOKEN_PATH, occurrences: [1], action: { kind: 'respond', status: 503 } });
    proxy.revokeAll();
    const error = await catalog.namespaceExists(namespace).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).retryable).toBe(true);
    expect(errorText(error)).not.toContain(CLIENT_SECRET);
    // Once the endpoint answers again the same client goes on.
    expect(await catalog.namespaceExists(namespace)).toBe(true);
    await catalog.dropNamespace(namespace);
  });
});
