/**
 * openCatalog: the catalog block of a pipeline becomes a catalog and a FileIO. The REST cases
 * talk to a loopback HTTP server that records what the client sent (auth headers included).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GlueCatalog } from '../../../catalog/glue/glue-catalog.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { S3FileIO } from '../../../connectors/storage/s3-file-io.js';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { InvalidInputError, ThundError } from '../../../src/errors.js';
import type { PipelineDefinition } from '../../../src/pipeline/spec-to-ir.js';
import { definitionWith } from './catalog-block-spec.js';

let dir: string;
let server: Server;
let serverUri: string;
const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
const opened: OpenedCatalog[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'thund-open-catalog-'));
  server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    response.setHeader('content-type', 'application/json');
    if (request.url?.startsWith('/v1/config') === true) response.end(JSON.stringify({ defaults: {}, overrides: {} }));
    else response.writeHead(404).end(JSON.stringify({ error: { message: 'not here', type: 'NoSuchTableException', code: 404 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  requests.length = 0;
  for (const catalog of opened.splice(0)) await catalog.close();
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const specWith = (name: string, ...block: string[]): Promise<PipelineDefinition> => definitionWith(dir, name, ...block);

async function open(...args: Parameters<typeof openCatalog>): Promise<OpenedCatalog> {
  const result = await openCatalog(...args);
  opened.push(result);
  return result;
}

describe('openCatalog: the embedded catalog', () => {
  it('a sql block: warehouse relative to the spec file, its name, local files', async () => {
    const spec = await specWith('sql', 'catalog: { type: sql, warehouse: wh, name: prod }');
    const result = await open(spec);
    const warehouse = path.join(dir, 'sql', 'wh');
    expect(result.catalog).toBeInstanceOf(SqlCatalog);
    expect(result.catalog.name).toBe('prod');
    expect(result.io).toBeInstanceOf(LocalFileIO);
    expect(result.warehousePath).toBe(warehouse);
    expect(result.description).toBe(`warehouse: ${warehouse}`);
    await result.catalog.createNamespace(['lake']);
    expect(existsSync(path.join(warehouse, 'catalog.db'))).toBe(true);
  });

  it('--warehouse and --catalog-name win over the block (the flag relative to the working directory)', async () => {
    const spec = await specWith('override', 'catalog: { type: sql, warehouse: wh, name: prod }');
    const flagged = path.join(dir, 'flagged');
    const result = await open(spec, { warehouse: path.relative(process.cwd(), flagged), catalogName: 'other' });
    expect(result.warehousePath).toBe(flagged);
    expect(result.catalog.name).toBe('other');
  });

  it('no pipeline: the embedded default with the flags', async () => {
    const result = await open(undefined, { warehouse: path.join(dir, 'plain') });
    expect(result.catalog).toBeInstanceOf(SqlCatalog);
    expect(result.catalog.name).toBe('default');
    expect(result.s3).toBeUndefined();
  });
});

describe('openCatalog: a REST catalog', () => {
  const block = (auth: string) => ['catalog:', '  type: rest', '  uri: ${TEST_REST_URI}', '  warehouse: wh1', `  auth: ${auth}`];

  it('sends the bearer token read from the variable token_env names, and the warehouse', async () => {
    const spec = await specWith('bearer', ...block('{ type: bearer, token_env: TEST_TOKEN }'));
    const result = await open(spec, {}, { TEST_REST_URI: serverUri, TEST_TOKEN: 'secret-token-1' });
    expect(result.catalog).toBeInstanceOf(RestCatalog);
    expect(result.io).toBeInstanceOf(LocalFileIO);
    expect(result.description).toBe(`catalog: rest ${serverUri} (warehouse wh1)`);
    expect(requests[0]?.url).toBe('/v1/config?warehouse=wh1');
    expect(requests[0]?.headers['authorization']).toBe('Bearer secret-token-1');
    expect(await result.catalog.tableExists({ namespace: ['lake'], name: 'orders' })).toBe(false);
    expect(requests.at(-1)?.headers['authorization']).toBe('Bearer secret-token-1');
  });

  it('signs with SigV4 from the SDK default chain when the spec names no keys', async () => {
    const spec = await specWith('sigv4', ...block('{ type: sigv4, region: eu-west-1, service: glue }'));
    const saved = { id: process.env['AWS_ACCESS_KEY_ID'], secret: process.env['AWS_SECRET_ACCESS_KEY'] };
    process.env['AWS_ACCESS_KEY_ID'] = 'AKIDCHAINTEST';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'chain-secret';
    try {
      await open(spec, {}, { TEST_REST_URI: serverUri });
    } finally {
      for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(requests[0]?.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDCHAINTEST\/\d{8}\/eu-west-1\/glue\/aws4_request, /);
  });

  it('storage.s3 makes the table files go through S3', async () => {
    const spec = await specWith(
      's3',
      ...block('{ type: bearer, token_env: TEST_TOKEN }'),
      'storage: { s3: { endpoint: "http://127.0.0.1:9", region: us-east-1, path_style: true, access_key_id_env: K, secret_access_key_env: S } }',
    );
    const result = await open(spec, {}, { TEST_REST_URI: serverUri, TEST_TOKEN: 't', K: 'key-id', S: 'key-secret' });
    expect(result.io).toBeInstanceOf(S3FileIO);
    expect(result.s3).toEqual({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'key-id', secretAccessKey: 'key-secret' },
    });
  });

  it('a missing variable fails before any request, naming it and the field', async () => {
    const spec = await specWith('missing', ...block('{ type: bearer, token_env: TEST_TOKEN }'));
    const error = await openCatalog(spec, {}, { TEST_REST_URI: serverUri }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe(`${spec.specPath}:9:36: catalog.auth.token_env: environment variable TEST_TOKEN is not set`);
    expect(requests).toHaveLength(0);
  });
});

describe('openCatalog: an unreachable REST catalog', () => {
  it('fails naming the catalog URI, and the token is nowhere in the error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const uri = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const spec = await specWith('down', 'catalog: { type: rest, uri: "${URI}", auth: { type: bearer, token_env: TOKEN } }');
    const error = await openCatalog(spec, {}, { URI: uri, TOKEN: 'token-that-must-not-show' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThundError);
    expect((error as ThundError).message).toMatch(new RegExp(`^Cannot open the REST catalog at ${uri}: `));
    expect((error as ThundError).context['uri']).toBe(uri);
    expect(`${(error as Error).message} ${JSON.stringify((error as ThundError).context)}`).not.toContain('token-that-must-not-show');
  });
});

describe('openCatalog: Glue', () => {
  it('an s3 warehouse without storage.s3 uses S3 in the catalog region', async () => {
    const spec = await specWith('glue', 'catalog: { type: glue, name: g, warehouse: s3://bucket/wh, region: eu-central-1, endpoint: "http://127.0.0.1:9" }');
    const result = await open(spec, {}, {});
    expect(result.catalog).toBeInstanceOf(GlueCatalog);
    expect(result.catalog.name).toBe('g');
    expect(result.io).toBeInstanceOf(S3FileIO);
    expect(result.description).toBe('catalog: glue eu-central-1 (warehouse s3://bucket/wh)');
  });
});
