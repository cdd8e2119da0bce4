/**
 * The `/v1/{prefix}/…` of a REST catalog: used as the server sends it (Nessie's `/v1/config`
 * answers `main%7Cwarehouse`, already encoded), characters a path cannot hold are encoded, and a
 * prefix the client sets (pipeline `catalog.prefix`) applies when the server advertises none,
 * below the server's overrides (defaults < client properties < overrides).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { prefixPath } from '../../../catalog/rest/prefix.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { startLoopbackServer, type LoopbackServer } from '../../integration/rest-support/loopback-server.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server whose config answer is `config`, and that lists no namespaces under any prefix. */
async function serverWithConfig(config: Record<string, unknown>): Promise<LoopbackServer> {
  const server = await startLoopbackServer((req) => {
    if (req.url.startsWith('/v1/config')) return { status: 200, json: config };
    if (req.method === 'GET' && req.url.split('?')[0]!.endsWith('/namespaces')) return { status: 200, json: { namespaces: [] } };
    return { status: 400, json: { error: { message: `unexpected ${req.method} ${req.url}`, type: 'BadRequest', code: 400 } } };
  });
  servers.push(server);
  return server;
}

const namespaceCalls = (server: LoopbackServer): string[] =>
  server.seen.filter((req) => !req.url.startsWith('/v1/config')).map((req) => req.url.split('?')[0]!);

describe('REST prefix', () => {
  it('keeps a prefix the server sent already encoded, and encodes only what a path cannot hold', () => {
    expect(prefixPath('main%7Cwarehouse')).toBe('/main%7Cwarehouse');
    expect(prefixPath('main|warehouse')).toBe('/main%7Cwarehouse');
    expect(prefixPath('/ware house/')).toBe('/ware%20house');
    expect(prefixPath('a/b%2Fc')).toBe('/a/b%2Fc');
    expect(prefixPath('100%')).toBe('/100%25');
    expect(prefixPath('')).toBe('');
    expect(prefixPath(undefined)).toBe('');
  });

  it("calls Nessie's encoded prefix as sent, not encoded twice", async () => {
    const server = await serverWithConfig({ defaults: { prefix: 'main%7Cwarehouse' }, overrides: {} });
    const catalog = await RestCatalog.connect({ uri: server.uri, io: new LocalFileIO() });
    expect(await catalog.listNamespaces()).toEqual([]);
    expect(namespaceCalls(server)).toEqual(['/v1/main%7Cwarehouse/namespaces']);
  });

  it('uses a client prefix when the server advertises none; the server override still wins', async () => {
    const silent = await serverWithConfig({ defaults: {}, overrides: {} });
    const client = await RestCatalog.connect({ uri: silent.uri, io: new LocalFileIO(), properties: { prefix: 'wh' } });
    await client.listNamespaces();
    expect(namespaceCalls(silent)).toEqual(['/v1/wh/namespaces']);
    expect(client.config.properties['prefix']).toBe('wh');

    const overriding = await serverWithConfig({ defaults: { prefix: 'default' }, overrides: { prefix: 'forced' } });
    const overridden = await RestCatalog.connect({ uri: overriding.uri, io: new LocalFileIO(), properties: { prefix: 'wh' } });
    await overridden.listNamespaces();
    expect(namespaceCalls(overriding)).toEqual(['/v1/forced/namespaces']);

    const defaulted = await serverWithConfig({ defaults: { prefix: 'default' }, overrides: {} });
    const chosen = await RestCatalog.connect({ uri: defaulted.uri, io: new LocalFileIO(), properties: { prefix: 'wh' } });
    await chosen.listNamespaces();
    expect(namespaceCalls(defaulted)).toEqual(['/v1/wh/namespaces']);
  });
});
