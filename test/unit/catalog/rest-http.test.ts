/**
 * The REST client's HTTP layer with an injected fetch: URL shape (prefix, %1F namespaces, query),
 * the bearer header, zod validation, and the status → error mapping of ICEBERG.md §7.6.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RestHttp, type RestOperation } from '../../../catalog/rest/http.js';
import {
  AlreadyExistsError,
  CommitConflictError,
  CommitStateUnknownError,
  NoSuchNamespaceError,
  NoSuchTableError,
  ThundError,
} from '../../../src/errors.js';

interface Seen {
  url: string;
  init: RequestInit | undefined;
}

function fakeFetch(status: number, body: string, seen: Seen[] = []): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), init });
    return new Response(status === 204 ? null : body, { status });
  }) as typeof fetch;
}

const failingFetch = (async () => {
  throw new TypeError('fetch failed');
}) as typeof fetch;

const errorBody = (type: string, code: number) => JSON.stringify({ error: { message: `boom ${type}`, type, code } });

async function failure(http: RestHttp, operation: RestOperation, notFound?: 'table' | 'namespace'): Promise<unknown> {
  return http
    .request({ method: 'POST', path: '/namespaces/db/tables/t', operation, ...(notFound ? { notFound } : {}), context: { table: 'db.t' } })
    .then(() => undefined, (e: unknown) => e);
}

describe('RestHttp', () => {
  it('builds /v1/{prefix}/… URLs, sends the bearer token and int64-safe JSON', async () => {
    const seen: Seen[] = [];
    const http = new RestHttp({ uri: 'http://h:1/api/', token: 'secret', fetch: fakeFetch(200, '{"n": 9223372036854775807}', seen) });
    http.setPrefix('ware house');
    const ns = encodeURIComponent(['a', 'b'].join('\u001f'));
    const out = await http.request({
      method: 'POST',
      path: `/namespaces/${ns}/tables`,
      query: { pageToken: 'x y', parent: undefined },
      body: { id: 9223372036854775807n },
      response: z.object({ n: z.bigint() }),
      operation: 'create',
    });
    expect(out).toEqual({ n: 9223372036854775807n });
    expect(seen[0]!.url).toBe('http://h:1/api/v1/ware%20house/namespaces/a%1Fb/tables?pageToken=x+y');
    const headers = seen[0]!.init!.headers as Record<string, string>;
    expect(headers['authorization']).toBe('Bearer secret');
    expect(seen[0]!.init!.body).toBe('{"id":9223372036854775807}');
  });

  it('rejects a response of the wrong shape', async () => {
    const http = new RestHttp({ uri: 'http://h', fetch: fakeFetch(200, '{"namespaces": "nope"}') });
    const error = await http
      .request({ method: 'GET', path: '/namespaces', response: z.object({ namespaces: z.array(z.array(z.string())) }), operation: 'read' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).code).toBe('REST_BAD_RESPONSE');
    expect((error as ThundError).message).toContain('namespaces');
  });

  it('maps 404 by error type, then by what the call addresses', async () => {
    const ns = new RestHttp({ uri: 'http://h', fetch: fakeFetch(404, errorBody('NoSuchNamespaceException', 404)) });
    expect(await failure(ns, 'read', 'table')).toBeInstanceOf(NoSuchNamespaceError);
    const table = new RestHttp({ uri: 'http://h', fetch: fakeFetch(404, errorBody('NoSuchTableException', 404)) });
    const error = await failure(table, 'read');
    expect(error).toBeInstanceOf(NoSuchTableError);
    expect((error as ThundError).context['table']).toBe('db.t');
    const bare = new RestHttp({ uri: 'http://h', fetch: fakeFetch(404, '') });
    expect(await failure(bare, 'read', 'table')).toBeInstanceOf(NoSuchTableError);
  });

  it('maps 409 by operation', async () => {
    const http = new RestHttp({ uri: 'http://h', fetch: fakeFetch(409, errorBody('CommitFailedException', 409)) });
    const conflict = await failure(http, 'commit');
    expect(conflict).toBeInstanceOf(CommitConflictError);
    expect((conflict as ThundError).retryable).toBe(true);
    expect(await failure(http, 'create')).toBeInstanceOf(AlreadyExistsError);
    expect(await failure(http, 'rename')).toBeInstanceOf(AlreadyExistsError);
    const notEmpty = await failure(http, 'drop');
    expect((notEmpty as ThundError).code).toBe('REST_409');
  });

  it('treats 500/502/503/504 and no response on a commit as unknown state', async () => {
    for (const status of [500, 502, 503, 504]) {
      const http = new RestHttp({ uri: 'http://h', fetch: fakeFetch(status, errorBody('ServerError', status)) });
      expect(await failure(http, 'commit')).toBeInstanceOf(CommitStateUnknownError);
      const other = (await failure(http, 'read')) as ThundError;
      expect(other.code).toBe(`REST_${status}`);
      expect(other.retryable).toBe(true);
    }
    const http = new RestHttp({ uri: 'http://h', fetch: failingFetch });
    expect(await failure(http, 'commit')).toBeInstanceOf(CommitStateUnknownError);
    const network = (await failure(http, 'read')) as ThundError;
    expect(network.code).toBe('REST_NETWORK');
    expect(network.retryable).toBe(true);
  });

  it('names the system error under fetch\'s "fetch failed" when no response came', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const http = new RestHttp({ uri: 'http://h', fetch: (async () => Promise.reject(new TypeError('fetch failed', { cause: refused }))) as typeof fetch });
    const error = (await failure(http, 'read')) as ThundError;
    expect(error.code).toBe('REST_NETWORK');
    expect(error.message).toBe('REST catalog request POST /namespaces/db/tables/t failed: fetch failed (ECONNREFUSED)');
  });

  it('keeps 400 non-retryable and never puts the token in error context', async () => {
    const http = new RestHttp({ uri: 'http://h', token: 'secret', fetch: fakeFetch(400, errorBody('BadRequestException', 400)) });
    const error = (await failure(http, 'commit')) as ThundError;
    expect(error.code).toBe('REST_400');
    expect(error.retryable).toBe(false);
    expect(JSON.stringify(error.context) + error.message).not.toContain('secret');
  });

  it('answers HEAD with true on 204 and false on 404', async () => {
    const yes = new RestHttp({ uri: 'http://h', fetch: fakeFetch(204, '') });
    expect(await yes.exists({ path: '/namespaces/db', operation: 'read' })).toBe(true);
    const no = new RestHttp({ uri: 'http://h', fetch: fakeFetch(404, '') });
    expect(await no.exists({ path: '/namespaces/db', operation: 'read' })).toBe(false);
  });
});
