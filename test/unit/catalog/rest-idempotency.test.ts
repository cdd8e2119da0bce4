/**
 * Idempotency-Key (ICEBERG.md §7.6) against a loopback server: sent on every POST/DELETE only when
 * /v1/config advertises `idempotency-key-lifetime`, a UUIDv7, one key per logical request and
 * the same key on each transport-level resend (503, lost response). The fake server replays the
 * stored answer for a key it has seen, as the spec asks of real servers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { AlreadyExistsError, CommitConflictError, CommitStateUnknownError } from '../../../src/errors.js';
import { configBody, loadTableBody } from '../../integration/rest-support/fake-rest.js';
import { startLoopbackServer, type LoopbackServer, type Reply, type SeenRequest } from '../../integration/rest-support/loopback-server.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const id = { namespace: ['db'], name: 't' };
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Answers the commit route with `commitReplies` in turn (the last one repeats); everything else normally. */
async function serve(lifetime: string | undefined, commitReplies: Reply[]): Promise<{ server: LoopbackServer; catalog: RestCatalog }> {
  let next = 0;
  const server = await startLoopbackServer((req) => {
    if (req.url.startsWith('/v1/config')) return { status: 200, json: configBody(lifetime === undefined ? {} : { idempotencyKeyLifetime: lifetime }) };
    if (req.method === 'POST' && (req.url === '/v1/namespaces/db/tables/t' || req.url === '/v1/transactions/commit')) {
      return commitReplies[Math.min(next++, commitReplies.length - 1)]!;
    }
    if (req.method === 'GET') return { status: 200, json: loadTableBody('s3://b/db/t') };
    if (req.method === 'DELETE') return { status: 204 };
    return { status: 400, json: { error: { message: 'unexpected', type: 'BadRequestException', code: 400 } } };
  });
  servers.push(server);
  const catalog = await RestCatalog.connect({ uri: server.uri, io: new LocalFileIO(), retry: { baseDelayMs: 1, maxRetries: 3 } });
  return { server, catalog };
}

const ok: Reply = { status: 200, json: loadTableBody('s3://b/db/t') };
const unavailable: Reply = { status: 503, json: { error: { message: 'try later', type: 'ServiceUnavailableException', code: 503 } }, headers: { 'retry-after': '0' } };
const conflict: Reply = { status: 409, json: { error: { message: 'stale', type: 'CommitFailedException', code: 409 } } };
const commits = (server: LoopbackServer): SeenRequest[] => server.seen.filter((s) => s.method === 'POST');
const keyOf = (req: SeenRequest | undefined): unknown => req?.headers['idempotency-key'];
const setProperty = [{ action: 'set-properties' as const, updates: { a: '1' } }];

describe('Idempotency-Key', () => {
  it('resends a commit after 503 with the same UUIDv7 key; the next request gets a new one; reads carry none', async () => {
    const { server, catalog } = await serve('PT30M', [unavailable, ok, ok]);
    const before = Date.now();
    const table = await catalog.commitTable(id, [], setProperty);
    expect(table.metadata.location).toBe('s3://b/db/t');
    const [first, second] = commits(server);
    expect(commits(server)).toHaveLength(2);
    expect(keyOf(first)).toMatch(UUID_V7);
    expect(keyOf(second)).toBe(keyOf(first));
    expect(second!.body).toBe(first!.body);
    // UUIDv7 carries the time it was made in its first 48 bits.
    const stamp = parseInt(String(keyOf(first)).replace(/-/g, '').slice(0, 12), 16);
    expect(stamp).toBeGreaterThanOrEqual(before - 1);
    expect(stamp).toBeLessThanOrEqual(Date.now());

    await catalog.commitTable(id, [], setProperty);
    expect(commits(server)).toHaveLength(3);
    expect(keyOf(commits(server)[2])).toMatch(UUID_V7);
    expect(keyOf(commits(server)[2])).not.toBe(keyOf(first));

    await catalog.loadTable(id);
    await catalog.dropTable(id);
    const load = server.seen.find((s) => s.method === 'GET' && s.url.startsWith('/v1/namespaces'));
    const drop = server.seen.find((s) => s.method === 'DELETE');
    expect(keyOf(load)).toBeUndefined();
    expect(keyOf(drop)).toMatch(UUID_V7);
  });

  it('after a lost response, the resend with the same key gets the stored answer and the change applies once', async () => {
    const applied: string[] = [];
    const stored = new Map<string, Reply>();
    let dropNext = true;
    const { server, catalog } = await serve('PT1H', []);
    server.handler = (req) => {
      if (req.url.startsWith('/v1/config')) return { status: 200, json: configBody({ idempotencyKeyLifetime: 'PT1H' }) };
      const key = String(req.headers['idempotency-key']);
      const replay = stored.get(key);
      if (replay !== undefined) return replay;
      applied.push(key);
      stored.set(key, ok);
      if (dropNext) {
        dropNext = false;
        return { status: 200, drop: true };
      }
      return ok;
    };
    const table = await catalog.commitTable(id, [], setProperty);
    expect(table.metadataLocation).toBe('s3://b/db/t/metadata/00000-x.metadata.json');
    expect(applied).toHaveLength(1);
    expect(commits(server)).toHaveLength(2);
    expect(keyOf(commits(server)[1])).toBe(applied[0]);
  });

  it('a 409 on a resend after an ambiguous failure is an unknown outcome, not a conflict', async () => {
    const { server, catalog } = await serve('PT30M', [unavailable, conflict]);
    await expect(catalog.commitTable(id, [], setProperty)).rejects.toBeInstanceOf(CommitStateUnknownError);
    expect(commits(server)).toHaveLength(2);
    // A plain 409 on the first attempt stays a conflict.
    const fresh = await serve('PT30M', [conflict]);
    await expect(fresh.catalog.commitTable(id, [], setProperty)).rejects.toBeInstanceOf(CommitConflictError);
  });

  it('marks a refusal that followed an ambiguous resend of a create', async () => {
    const { server, catalog } = await serve('PT30M', []);
    const replies: Reply[] = [unavailable, { status: 409, json: { error: { message: 'exists', type: 'AlreadyExistsException', code: 409 } } }];
    server.handler = (req) => (req.url.startsWith('/v1/config') ? { status: 200, json: configBody({ idempotencyKeyLifetime: 'PT30M' }) } : replies.shift()!);
    const error = await catalog.createNamespace(['db']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyExistsError);
    expect((error as AlreadyExistsError).context['resentAfter']).toBe('HTTP 503');
    expect(keyOf(server.seen[1])).toMatch(UUID_V7);
    expect(keyOf(server.seen[2])).toBe(keyOf(server.seen[1]));
  });

  it('gives up after maxRetries resends, all with the one key, as an unknown outcome', async () => {
    const { server, catalog } = await serve('PT30M', [unavailable]);
    await expect(catalog.commitTransaction([{ identifier: id, requirements: [], updates: setProperty }])).rejects.toBeInstanceOf(CommitStateUnknownError);
    const sent = commits(server);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map(keyOf)).size).toBe(1);
    expect(keyOf(sent[0])).toMatch(UUID_V7);
  });

  it('without idempotency-key-lifetime: no key and no resend of a mutation', async () => {
    const { server, catalog } = await serve(undefined, [unavailable, ok]);
    await expect(catalog.commitTable(id, [], setProperty)).rejects.toBeInstanceOf(CommitStateUnknownError);
    expect(commits(server)).toHaveLength(1);
    expect(keyOf(commits(server)[0])).toBeUndefined();
  });
});
