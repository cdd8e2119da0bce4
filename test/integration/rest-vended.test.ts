/**
 * Vended credentials end to end: a loopback proxy in front of the REST fixture adds
 * `storage-credentials` (the real MinIO keys for the test namespace's prefix, wrong keys for the
 * whole bucket) and `s3.*` settings to load/create answers, while the catalog's own FileIO holds
 * wrong keys. Data files, manifests and the snapshot commit can only succeed through the vended
 * keys; an independent S3 client and DuckDB read the rows back.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { s3FileIOFactory } from '../../connectors/storage/s3-file-io-factory.js';
import { parseS3Location, S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { StorageError } from '../../src/errors.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Bucket, testS3Client, testS3FileIOOptions } from '../stack/s3-env.js';
import { startVendingProxy, type Vended, type VendingProxy } from './rest-support/vending-proxy.js';

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'label', required: false, type: primitive('string') },
  ],
};

const namespace = [`thund_vended_${randomUUID().slice(0, 8)}`];
const wrongKeys = { accessKeyId: 'thund-wrong-key', secretAccessKey: 'thund-wrong-secret' };
let proxy: VendingProxy;
let catalog: RestCatalog;
let wrongIo: S3FileIO;
let s3: S3Client;
let session: DuckDbSession;
let scratch: string;
/** Expiry the proxy puts on the real keys (ms since the epoch). */
let expiresAt = Date.now() + 3_600_000;

function vend(): Vended {
  const options = testS3FileIOOptions();
  const real = options.credentials!;
  return {
    config: { 's3.endpoint': options.endpoint!, 's3.path-style-access': 'true', 'client.region': options.region },
    storageCredentials: [
      { prefix: `s3://${testS3Bucket()}/`, config: { 's3.access-key-id': wrongKeys.accessKeyId, 's3.secret-access-key': wrongKeys.secretAccessKey } },
      {
        prefix: `s3://${testS3Bucket()}/${namespace[0]}/`,
        config: { 's3.access-key-id': real.accessKeyId, 's3.secret-access-key': real.secretAccessKey, 's3.session-token-expires-at-ms': String(expiresAt) },
      },
    ],
  };
}

beforeAll(async () => {
  const options = testS3FileIOOptions();
  wrongIo = new S3FileIO({ ...options, credentials: wrongKeys });
  s3 = testS3Client();
  session = await DuckDbSession.open({ threads: 1 });
  scratch = await mkdtemp(join(tmpdir(), 'thund-vended-'));
  proxy = await startVendingProxy(requireServiceEnv('THUND_TEST_REST_URI'), vend);
  catalog = await RestCatalog.connect({ uri: proxy.uri, io: wrongIo, accessDelegation: 'vended-credentials', fileIOFactory: s3FileIOFactory() });
  await catalog.createNamespace(namespace);
});

afterAll(async () => {
  for (const id of (await catalog?.listTables(namespace).catch(() => [])) ?? []) await catalog.dropTable(id, true).catch(() => undefined);
  await catalog?.dropNamespace(namespace).catch(() => undefined);
  await catalog?.close();
  await proxy?.close();
  wrongIo?.close();
  session?.close();
  s3?.destroy();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

async function download(location: string, name: string): Promise<string> {
  const { bucket, key } = parseS3Location(location);
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const path = join(scratch, name);
  await writeFile(path, await object.Body!.transformToByteArray());
  return path;
}

describe('RestCatalog with vended credentials', () => {
  it('writes data files and commits a snapshot only through the vended keys', async () => {
    const id = { namespace, name: 'events' };
    const created = await catalog.createTable(id, { schema });
    expect(created.io).not.toBe(wrongIo);
    // The catalog's own keys are refused by MinIO: everything below used the vended ones.
    const refused = await wrongIo.exists(created.metadataLocation).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StorageError);
    expect(await created.io.exists(created.metadataLocation)).toBe(true);

    const files = await writeDataFiles({
      session,
      query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS label FROM range(0, 2500)`,
      schema,
      specId: created.metadata.defaultSpecId,
      dataLocation: `${created.metadata.location}/data`,
      io: created.io,
      properties: created.metadata.properties,
      writerName: 'rest-vended-test',
    });
    const result = await commitSnapshot({ catalog, identifier: id, base: { metadata: created.metadata, io: created.io, create: false }, mode: 'append', addedFiles: files });

    const loaded = await catalog.loadTable(id);
    expect(loaded.metadata.currentSnapshotId).toBe(result.snapshot.snapshotId);
    const live = await liveDataFiles(loaded.io, loaded.metadata);
    expect(live.map((f) => f.filePath).sort()).toEqual(files.map((f) => f.filePath).sort());
    const paths = await Promise.all(live.map((file, index) => download(file.filePath, `${index}.parquet`)));
    const [row] = await session.queryJson(`SELECT count(*) AS n, sum(id) AS total FROM read_parquet([${paths.map(quoteLiteral).join(', ')}])`);
    expect(Number(row?.['n'])).toBe(2500);
    expect(Number(row?.['total'])).toBe((2499 * 2500) / 2);

    const tables = `/v1/namespaces/${namespace[0]}/tables`;
    const create = proxy.seen.filter((s) => s.method === 'POST' && s.url === tables);
    const loads = proxy.seen.filter((s) => s.method === 'GET' && s.url.startsWith(`${tables}/events`));
    expect(create).toHaveLength(1);
    expect(loads.length).toBeGreaterThan(0);
    for (const call of [...create, ...loads]) expect(call.headers['x-iceberg-access-delegation']).toBe('vended-credentials');
  });

  it('reloads the table for fresh keys before using keys that expire within a minute', async () => {
    const id = { namespace, name: 'events' };
    expiresAt = Date.now() + 30_000;
    const table = await catalog.loadTable(id);
    expiresAt = Date.now() + 3_600_000;
    const loads = () => proxy.seen.filter((s) => s.method === 'GET' && s.url.startsWith(`/v1/namespaces/${namespace[0]}/tables/events`)).length;
    const before = loads();
    expect(await table.io.exists(table.metadataLocation)).toBe(true);
    expect(loads()).toBe(before + 1);
    expect(await table.io.exists(table.metadataLocation)).toBe(true);
    expect(loads()).toBe(before + 1);
  });
});
