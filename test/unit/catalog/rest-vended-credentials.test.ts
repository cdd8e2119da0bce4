/**
 * Vended credentials and per-table tokens against one loopback server that plays both the REST
 * catalog and S3 (path-style HEAD object): the key id in each request's SigV4 signature shows
 * which credential served which location (longest prefix, then the table config, then the
 * catalog's own FileIO), and the credentials route or a reload is called when keys near expiry.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { s3FileIOFactory } from '../../../connectors/storage/s3-file-io-factory.js';
import { VendedFileIO } from '../../../catalog/rest/vended-file-io.js';
import type { TableStorageAccess } from '../../../catalog/rest/vended-credentials.js';
import { ENDPOINTS } from '../../../catalog/rest/endpoints.js';
import { RestCatalog } from '../../../catalog/rest/rest-catalog.js';
import type { FileIO, FileIOFactory } from '../../../src/iceberg/file-io.js';
import { StorageError } from '../../../src/errors.js';
import { configBody, loadTableBody } from '../../integration/rest-support/fake-rest.js';
import { startLoopbackServer, type LoopbackServer, type SeenRequest } from '../../integration/rest-support/loopback-server.js';

const servers: LoopbackServer[] = [];
const catalogs: RestCatalog[] = [];
afterEach(async () => {
  await Promise.all(catalogs.splice(0).map((catalog) => catalog.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A FileIO that only records what reached it: the catalog's own storage. */
class RecordingIO implements FileIO {
  readonly seen: string[] = [];
  async read(location: string): Promise<Uint8Array> {
    this.seen.push(location);
    return new Uint8Array();
  }
  async writeNew(location: string): Promise<void> {
    this.seen.push(location);
  }
  async exists(location: string): Promise<boolean> {
    this.seen.push(location);
    return true;
  }
  async length(location: string): Promise<bigint> {
    this.seen.push(location);
    return 0n;
  }
  async delete(location: string): Promise<void> {
    this.seen.push(location);
  }
}

const keys = (id: string, extra: Record<string, string> = {}): Record<string, string> => ({
  's3.access-key-id': id,
  's3.secret-access-key': `secret-of-${id}`,
  ...extra,
});

interface Fixture {
  server: LoopbackServer;
  catalog: RestCatalog;
  io: RecordingIO;
  /** What the next table load / credentials call answers. */
  tables: Map<string, Record<string, unknown>>;
  credentials: { prefix: string; config: Record<string, string> }[];
  /** Key ids that the fake S3 refuses with 403. */
  refused: Set<string>;
}

async function setUp(endpoints: readonly string[] = Object.values(ENDPOINTS)): Promise<Fixture> {
  const fixture = { tables: new Map(), credentials: [], refused: new Set() } as unknown as Fixture;
  fixture.server = await startLoopbackServer((req) => {
    if (req.url.startsWith('/v1/config')) return { status: 200, json: configBody({ endpoints }) };
    const table = /^\/v1\/namespaces\/db\/tables\/(\w+)(\/credentials)?/.exec(req.url);
    if (table !== null && req.method === 'GET' && table[2] !== undefined) return { status: 200, json: { 'storage-credentials': fixture.credentials } };
    if (table !== null && (req.method === 'GET' || req.method === 'POST')) {
      const body = fixture.tables.get(table[1]!);
      return body === undefined ? { status: 404, json: { error: { message: 'no', type: 'NoSuchTableException', code: 404 } } } : { status: 200, json: body };
    }
    if (table !== null && req.method === 'DELETE') return { status: 204 };
    if (req.url.startsWith('/v1/namespaces')) return { status: 200, json: { namespaces: [['db']] } };
    // S3: HEAD /bucket/key, refused for listed key ids.
    if (req.method === 'HEAD') return { status: fixture.refused.has(keyIdOf(req) ?? '') ? 403 : 200, headers: { 'content-length': '3' } };
    return { status: 400, json: { error: { message: 'unexpected', type: 'BadRequestException', code: 400 } } };
  });
  servers.push(fixture.server);
  fixture.io = new RecordingIO();
  fixture.catalog = await RestCatalog.connect({
    uri: fixture.server.uri,
    token: 'catalog-token',
    io: fixture.io,
    accessDelegation: 'vended-credentials',
    fileIOFactory: s3FileIOFactory(),
  });
  catalogs.push(fixture.catalog);
  return fixture;
}

function keyIdOf(req: SeenRequest | undefined): string | undefined {
  return /Credential=([^/]+)\//.exec(String(req?.headers.authorization ?? ''))?.[1];
}

function regionOf(req: SeenRequest | undefined): string | undefined {
  return /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(req?.headers.authorization ?? ''))?.[1];
}

/** The key id that served `location` through `io`. */
async function keyUsedFor(fixture: Fixture, io: FileIO, location: string): Promise<string | undefined> {
  const before = fixture.server.seen.length;
  expect(await io.exists(location)).toBe(true);
  const s3 = fixture.server.seen.slice(before).filter((s) => s.method === 'HEAD');
  return s3.length === 0 ? undefined : keyIdOf(s3[s3.length - 1]);
}

describe('vended credentials', () => {
  it('picks the longest matching prefix, then the table config keys, then the catalog io; sends the delegation header', async () => {
    const fixture = await setUp();
    const endpoint = { 's3.endpoint': fixture.server.uri, 's3.path-style-access': 'true', 'client.region': 'eu-central-1' };
    fixture.tables.set(
      't',
      loadTableBody('s3://bucket/db/t', {
        config: { ...keys('TABLECONFIG'), ...endpoint },
        storageCredentials: [
          { prefix: 's3://bucket/', config: keys('BUCKETWIDE') },
          { prefix: 's3://bucket/db/t/data/', config: keys('DATAONLY') },
          { prefix: 's3://bucket/db/t/data/x/', config: { 's3.remote-signing-enabled': 'true' } },
        ],
      }),
    );
    fixture.tables.set('plain', loadTableBody('s3://bucket/db/plain'));
    const table = await fixture.catalog.loadTable({ namespace: ['db'], name: 't' });
    const load = fixture.server.seen.find((s) => s.url.startsWith('/v1/namespaces/db/tables/t'));
    expect(load?.headers['x-iceberg-access-delegation']).toBe('vended-credentials');

    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/part-0.parquet')).toBe('DATAONLY');
    expect(await keyUsedFor(fixture, table.io, 's3a://bucket/db/t/data/part-1.parquet')).toBe('DATAONLY');
    // A credential without keys (remote signing) is skipped in favour of the next-longest prefix.
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/x/part-2.parquet')).toBe('DATAONLY');
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/metadata/00001.metadata.json')).toBe('BUCKETWIDE');
    expect(await keyUsedFor(fixture, table.io, 's3://other-bucket/db/t/data/y.parquet')).toBe('TABLECONFIG');
    // Endpoint and region came from the table config for the storage credentials too.
    const lastS3 = fixture.server.seen.filter((s) => s.method === 'HEAD').at(-1);
    expect(regionOf(lastS3)).toBe('eu-central-1');
    expect(lastS3?.url).toBe('/other-bucket/db/t/data/y.parquet');
    expect(fixture.io.seen).toEqual([]);
    expect(await keyUsedFor(fixture, table.io, 'file:///tmp/local.parquet')).toBeUndefined();
    expect(fixture.io.seen).toEqual(['file:///tmp/local.parquet']);

    const plain = await fixture.catalog.loadTable({ namespace: ['db'], name: 'plain' });
    expect(plain.io).toBe(fixture.io);
  });

  it('refreshes keys that expire within a minute through the credentials route before using them', async () => {
    const fixture = await setUp();
    const endpoint = { 's3.endpoint': fixture.server.uri, 's3.path-style-access': 'true' };
    fixture.tables.set(
      't',
      loadTableBody('s3://bucket/db/t', {
        config: endpoint,
        storageCredentials: [{ prefix: 's3://bucket/db/t/', config: keys('SOONEXPIRED', { 's3.session-token-expires-at-ms': String(Date.now() + 30_000) }) }],
      }),
    );
    fixture.credentials = [{ prefix: 's3://bucket/db/t/', config: keys('FRESH', { 's3.session-token': 'sess', 's3.session-token-expires-at-ms': String(Date.now() + 3_600_000) }) }];
    const table = await fixture.catalog.loadTable({ namespace: ['db'], name: 't' });
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/a.parquet')).toBe('FRESH');
    const head = fixture.server.seen.filter((s) => s.method === 'HEAD').at(-1);
    expect(head?.headers['x-amz-security-token']).toBe('sess');
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/b.parquet')).toBe('FRESH');
    const credentialCalls = fixture.server.seen.filter((s) => s.url.endsWith('/credentials'));
    expect(credentialCalls).toHaveLength(1);
    expect(credentialCalls[0]?.headers.authorization).toBe('Bearer catalog-token');
  });

  it('reloads the table for fresh keys when the credentials route is not advertised; keys far from expiry are not refreshed', async () => {
    const fixture = await setUp(Object.values(ENDPOINTS).filter((e) => e !== ENDPOINTS.loadCredentials));
    const base = { 's3.endpoint': fixture.server.uri, 's3.path-style-access': 'true' };
    fixture.tables.set('t', loadTableBody('s3://bucket/db/t', { config: { ...base, ...keys('OLD', { 's3.session-token-expires-at-ms': String(Date.now() + 10_000) }) } }));
    const table = await fixture.catalog.loadTable({ namespace: ['db'], name: 't' });
    fixture.tables.set('t', loadTableBody('s3://bucket/db/t', { config: { ...base, ...keys('RELOADED', { 's3.session-token-expires-at-ms': String(Date.now() + 600_000) }) } }));
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/a.parquet')).toBe('RELOADED');
    const loads = () => fixture.server.seen.filter((s) => s.method === 'GET' && s.url.startsWith('/v1/namespaces/db/tables/t'));
    expect(loads()).toHaveLength(2);
    expect(fixture.server.seen.filter((s) => s.url.endsWith('/credentials'))).toHaveLength(0);
    expect(await keyUsedFor(fixture, table.io, 's3://bucket/db/t/data/b.parquet')).toBe('RELOADED');
    expect(loads()).toHaveLength(2);
  });

  it('keeps vended secrets out of storage errors', async () => {
    const fixture = await setUp();
    fixture.refused.add('DENIED');
    fixture.tables.set(
      't',
      loadTableBody('s3://bucket/db/t', {
        config: { 's3.endpoint': fixture.server.uri, 's3.path-style-access': 'true', ...keys('DENIED', { 's3.session-token': 'session-secret-77' }) },
      }),
    );
    const table = await fixture.catalog.loadTable({ namespace: ['db'], name: 't' });
    const error = await table.io.length('s3://bucket/db/t/data/a.parquet').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    const text = `${(error as StorageError).message} ${JSON.stringify((error as StorageError).context)}`;
    expect(text).toContain('s3://bucket/db/t/data/a.parquet');
    expect(text).not.toContain('secret-of-DENIED');
    expect(text).not.toContain('session-secret-77');
  });
});

describe('per-table token', () => {
  it('uses a load response config token as the bearer for that table only', async () => {
    const fixture = await setUp();
    fixture.tables.set('t', loadTableBody('s3://bucket/db/t', { config: { token: 'table-token-t' } }));
    fixture.tables.set('u', loadTableBody('s3://bucket/db/u'));
    const id = { namespace: ['db'], name: 't' };
    await fixture.catalog.loadTable(id);
    await fixture.catalog.loadTable({ namespace: ['db'], name: 'u' });
    const mark = fixture.server.seen.length;
    await fixture.catalog.commitTable(id, [], [{ action: 'set-properties', updates: { a: '1' } }]);
    await fixture.catalog.loadTable(id);
    await fixture.catalog.tableExists(id);
    await fixture.catalog.dropTable(id, true);
    await fixture.catalog.loadTable({ namespace: ['db'], name: 'u' });
    await fixture.catalog.listNamespaces();
    const auth = fixture.server.seen.slice(mark).map((s) => `${s.method} ${s.url.split('?')[0]} ${String(s.headers.authorization)}`);
    expect(auth).toEqual([
      'POST /v1/namespaces/db/tables/t Bearer table-token-t',
      'GET /v1/namespaces/db/tables/t Bearer table-token-t',
      'HEAD /v1/namespaces/db/tables/t Bearer table-token-t',
      'DELETE /v1/namespaces/db/tables/t Bearer table-token-t',
      'GET /v1/namespaces/db/tables/u Bearer catalog-token',
      'GET /v1/namespaces Bearer catalog-token',
    ]);
  });
});

describe('VendedFileIO', () => {
  /** Each FileIO built for vended keys records its key id with every location it serves. */
  function recordingS3(served: string[]): FileIOFactory {
    return {
      serves: (location) => location.startsWith('s3://'),
      withVendedStorage: (storage) => recordingIO(served, storage.accessKeyId),
    };
  }
  function recordingIO(served: string[], keyId: string): FileIO {
    const io = new RecordingIO();
    const record = (location: string): void => {
      served.push(`${keyId} ${location}`);
    };
    io.exists = async (location) => (record(location), true);
    io.writeNew = async (location) => record(location);
    io.read = async (location) => (record(location), new TextEncoder().encode('0123456789'));
    return io;
  }
  const access = (keyId: string, expiresAt: number): TableStorageAccess => ({
    credentials: [{ prefix: 's3://b/t/', config: keys(keyId, { 's3.session-token-expires-at-ms': String(expiresAt) }) }],
    config: {},
  });

  it('refreshes only when the keys expire within one minute of the clock', async () => {
    let clock = 1_000_000;
    const served: string[] = [];
    let refreshes = 0;
    const io = new VendedFileIO({
      access: access('FIRST', 1_000_000 + 61_000),
      fallback: new RecordingIO(),
      now: () => clock,
      factory: recordingS3(served),
      refresh: async () => access(`NEW${++refreshes}`, clock + 3_600_000),
    });
    await io.exists('s3://b/t/a');
    expect(refreshes).toBe(0);
    clock += 2_000; // now 59 s before expiry
    await io.exists('s3://b/t/b');
    expect(refreshes).toBe(1);
    // Concurrent users of soon-expiring keys share one refresh.
    clock += 3_600_000;
    await Promise.all([io.exists('s3://b/t/c'), io.exists('s3://b/t/d'), io.exists('s3://b/t/e')]);
    expect(refreshes).toBe(2);
    expect(served).toEqual(['FIRST s3://b/t/a', 'NEW1 s3://b/t/b', 'NEW2 s3://b/t/c', 'NEW2 s3://b/t/d', 'NEW2 s3://b/t/e']);
  });

  it('streams local files and reads ranges even through a FileIO without those members', async () => {
    const served: string[] = [];
    const io = new VendedFileIO({ access: access('K', Number.MAX_SAFE_INTEGER), fallback: new RecordingIO(), factory: recordingS3(served), refresh: async (a) => a });
    const dir = await mkdtemp(join(tmpdir(), 'thund-vended-'));
    await writeFile(join(dir, 'f.parquet'), 'PAR1');
    await io.writeNewFromFile('s3://b/t/data/f.parquet', join(dir, 'f.parquet'));
    expect(new TextDecoder().decode(await io.readRange('s3://b/t/data/g', 2, 3))).toBe('234');
    await expect(io.readRange('s3://b/t/data/g', 10, 1)).rejects.toBeInstanceOf(StorageError);
    expect(served).toEqual(['K s3://b/t/data/f.parquet', 'K s3://b/t/data/g', 'K s3://b/t/data/g']);
  });
});
