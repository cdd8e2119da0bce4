/**
 * RestCatalog checks each route against the endpoints the server advertised in /v1/config and
 * refuses unadvertised ones with UnsupportedOperationError before sending anything; without an
 * `endpoints` list it assumes the spec's default set. Tested against a loopback HTTP server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { DEFAULT_ENDPOINTS } from '../../../catalog/rest/config.js';
import { describeServer, ENDPOINTS, UnsupportedOperationError } from '../../../catalog/rest/endpoints.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { InvalidInputError, ThundError } from '../../../src/errors.js';
import { configBody, loadTableBody } from '../../integration/rest-support/fake-rest.js';
import { startLoopbackServer, type LoopbackServer } from '../../integration/rest-support/loopback-server.js';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(endpoints: readonly string[] | undefined): Promise<{ server: LoopbackServer; catalog: RestCatalog }> {
  const server = await startLoopbackServer((req) => {
    if (req.url.startsWith('/v1/config')) return { status: 200, json: configBody(endpoints === undefined ? {} : { endpoints }) };
    if (req.method === 'GET' && req.url.startsWith('/v1/namespaces/db/tables/t')) return { status: 200, json: loadTableBody('s3://b/db/t') };
    if (req.method === 'HEAD') return { status: 204 };
    return { status: 500, json: { error: { message: 'unexpected', type: 'Unexpected', code: 500 } } };
  });
  servers.push(server);
  return { server, catalog: await RestCatalog.connect({ uri: server.uri, io: new LocalFileIO() }) };
}

const id = { namespace: ['db'], name: 't' };

describe('endpoint check', () => {
  it('refuses every unadvertised route with UnsupportedOperationError naming endpoint and server, sending nothing', async () => {
    const { server, catalog } = await serve([ENDPOINTS.listNamespaces, ENDPOINTS.loadTable]);
    const calls: [string, () => Promise<unknown>][] = [
      [ENDPOINTS.registerTable, () => catalog.registerTable(id, 's3://b/db/t/metadata/1.metadata.json')],
      [ENDPOINTS.renameTable, () => catalog.renameTable(id, { namespace: ['db'], name: 'u' })],
      [ENDPOINTS.dropTable, () => catalog.dropTable(id, true)],
      [ENDPOINTS.commitTransaction, () => catalog.commitTransaction([{ identifier: id, requirements: [], updates: [] }])],
      [ENDPOINTS.commitTable, () => catalog.commitTable(id, [], [])],
      [ENDPOINTS.createTable, () => catalog.createTable(id, { schema: { schemaId: 0, identifierFieldIds: [], fields: [] } })],
      [ENDPOINTS.loadNamespace, () => catalog.loadNamespaceProperties(['db'])],
      [ENDPOINTS.updateNamespaceProperties, () => catalog.updateNamespaceProperties(['db'], ['a'], { b: '1' })],
      [ENDPOINTS.createNamespace, () => catalog.createNamespace(['db'])],
      [ENDPOINTS.dropNamespace, () => catalog.dropNamespace(['db'])],
      [ENDPOINTS.listTables, () => catalog.listTables(['db'])],
    ];
    for (const [endpoint, call] of calls) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, endpoint).toBeInstanceOf(UnsupportedOperationError);
      expect((error as ThundError).code).toBe('REST_UNSUPPORTED_ENDPOINT');
      expect((error as ThundError).message).toContain(endpoint);
      expect((error as ThundError).message).toContain(server.uri);
      expect((error as ThundError).context['endpoint']).toBe(endpoint);
    }
    expect(catalog.supportsTransactions).toBe(false);
    expect(server.seen.map((s) => s.url)).toEqual(['/v1/config']);
    // An advertised route still works, and the existence check falls back to GET without HEAD.
    expect((await catalog.loadTable(id)).metadata.location).toBe('s3://b/db/t');
    expect(await catalog.tableExists(id)).toBe(true);
    expect(server.seen.filter((s) => s.method === 'HEAD')).toHaveLength(0);
  });

  it('assumes the default set when the server lists none: transactions yes, HEAD no', async () => {
    const { server, catalog } = await serve(undefined);
    expect(catalog.config.endpoints).toEqual(DEFAULT_ENDPOINTS);
    expect(catalog.supportsTransactions).toBe(true);
    expect(await catalog.tableExists(id)).toBe(true);
    expect(server.seen.map((s) => `${s.method} ${s.url.split('?')[0]}`)).toEqual(['GET /v1/config', 'GET /v1/namespaces/db/tables/t']);
  });

  it('uses HEAD when advertised', async () => {
    const { server, catalog } = await serve([ENDPOINTS.tableExists, ENDPOINTS.namespaceExists]);
    expect(await catalog.tableExists(id)).toBe(true);
    expect(await catalog.namespaceExists(['db'])).toBe(true);
    expect(server.seen.slice(1).map((s) => s.method)).toEqual(['HEAD', 'HEAD']);
  });

  it('refuses a property both removed and set before any request', async () => {
    const { server, catalog } = await serve(undefined);
    const error = await catalog.updateNamespaceProperties(['db'], ['owner', 'x'], { owner: 'value-9f3k', y: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as ThundError).message).toContain('owner');
    expect((error as ThundError).message).not.toContain('value-9f3k');
    expect(server.seen).toHaveLength(1);
  });

  it('names the server without user-info or query', () => {
    expect(describeServer('https://user:pw@cat.example:8443/api/catalog/?token=abc')).toBe('https://cat.example:8443/api/catalog');
  });
});
