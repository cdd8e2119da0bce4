/**
 * A rest catalog block may set a client-side `prefix` and other catalog `properties`, which
 * `/v1/config` merges between the server's defaults and overrides (some servers serve only
 * `/v1/{prefix}/…` and advertise no prefix). Values take `${NAME}`; secrets are refused there as
 * everywhere in the spec, without echoing them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { InvalidInputError } from '../../../src/errors.js';
import { formatFieldPath } from '../../../src/pipeline/yaml-locator.js';
import { sparkCatalogConfig } from '../../../src/sdp/catalog-conf.js';
import { startLoopbackServer, type LoopbackServer } from '../../integration/rest-support/loopback-server.js';
import { definitionWith } from './catalog-block-spec.js';

let dir: string;
let server: LoopbackServer;
const opened: OpenedCatalog[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'thund-rest-properties-'));
  // Serves only under /v1/wh/…, and its config names no prefix.
  server = await startLoopbackServer((req) => {
    if (req.url.startsWith('/v1/config')) return { status: 200, json: { defaults: { 'page-size': '10' }, overrides: { 'forced': 'server' } } };
    if (req.url.startsWith('/v1/wh/namespaces/')) return { status: 404, json: { error: { message: 'none', type: 'NoSuchNamespaceException', code: 404 } } };
    if (req.url.startsWith('/v1/wh/namespaces')) return { status: 200, json: { namespaces: [] } };
    return { status: 404, json: { error: { message: `no route ${req.url}`, type: 'NotFoundException', code: 404 } } };
  });
});

afterEach(async () => {
  server.seen.length = 0;
  for (const catalog of opened.splice(0)) await catalog.close();
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function openWith(name: string, env: Record<string, string>, ...block: string[]): Promise<OpenedCatalog> {
  const definition = await definitionWith(dir, name, 'catalog:', '  type: rest', '  uri: ${URI}', ...block);
  const result = await openCatalog(definition, {}, { URI: server.uri, ...env });
  opened.push(result);
  return result;
}

async function refusal(name: string, ...block: string[]): Promise<InvalidInputError> {
  const error = await openWith(name, { SECRETISH: 'do-not-echo-me' }, ...block).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
}

describe('rest catalog prefix and properties', () => {
  it('a client prefix reaches a server that advertises none; properties merge between defaults and overrides', async () => {
    const result = await openWith('prefix', { PAGE: '25' }, '  prefix: wh', '  properties:', '    page-size: ${PAGE}', '    forced: client', '    namespace-separator: "."');
    const catalog = result.catalog as RestCatalog;
    expect(await catalog.namespaceExists(['a', 'b'])).toBe(false);
    expect(await catalog.listNamespaces()).toEqual([]);
    const routes = server.seen.filter((req) => !req.url.startsWith('/v1/config')).map((req) => `${req.method} ${req.url.split('?')[0]}`);
    expect(routes).toEqual(['GET /v1/wh/namespaces/a.b', 'GET /v1/wh/namespaces']);
    expect(catalog.config.properties).toMatchObject({ prefix: 'wh', 'page-size': '25', forced: 'server', 'namespace-separator': '.' });
  });

  it('the Spark lowering passes the same client properties to Iceberg’s REST catalog', async () => {
    const definition = await definitionWith(dir, 'spark', 'catalog:', '  type: rest', '  uri: http://127.0.0.1:1', '  prefix: wh', '  properties:', '    page-size: ${PAGE}');
    const { configuration } = sparkCatalogConfig(definition.catalog, definition.storage, definition.specPath, { PAGE: '25' });
    expect(configuration).toMatchObject({ 'spark.sql.catalog.default.prefix': 'wh', 'spark.sql.catalog.default.page-size': '25' });
  });

  it('the prefix may also be written as a property, but not both ways', async () => {
    const result = await openWith('prefix-property', {}, '  properties: { prefix: wh }');
    expect(await result.catalog.listNamespaces()).toEqual([]);
    expect(server.seen.at(-1)?.url.split('?')[0]).toBe('/v1/wh/namespaces');
    const both = await refusal('both', '  prefix: wh', '  properties: { prefix: other }');
    expect(both.message).toMatch(/catalog\.properties\.prefix: .*prefix is already set by catalog\.prefix/);
  });

  it('refuses secrets among the properties, naming the key and never the value', async () => {
    for (const key of ['token', 'credential', 's3.secret-access-key', 'client_secret', 'password']) {
      const error = await refusal(`secret-${key}`, '  properties:', `    ${key}: \${SECRETISH}`);
      expect(error.message).toContain(`${formatFieldPath(['catalog', 'properties', key])}: "${key}": secrets`);
      expect(error.message).toContain('secrets are never written in the spec');
      expect(error.message).not.toContain('do-not-echo-me');
    }
  });

  it('refuses a property that is not text, and an empty prefix', async () => {
    const notText = await refusal('not-text', '  properties: { page-size: [1, 2] }');
    expect(notText.message).toContain('catalog.properties.page-size: page-size must be a text value');
    const empty = await refusal('empty', '  prefix: ""');
    expect(empty.message).toContain('prefix must not be empty');
  });
});
