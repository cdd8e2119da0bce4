/**
 * A pipeline that creates its table through a REST catalog with vended credentials, run by the
 * built CLI: the pipeline's own S3 keys are wrong (MinIO refuses them), so the new table's data
 * files, manifests and commit can only succeed through the keys the stage-create answer vended —
 * as a `storage-credentials` entry, and the older way as `s3.*` keys in the table `config` (a proxy
 * in front of the REST fixture vends the real keys), and by Nessie itself, which vends MinIO
 * session keys that way. An independent S3 client and DuckDB read the rows back.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { s3FileIOFactory } from '../../connectors/storage/s3-file-io-factory.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { thundAsync } from '../e2e/cli.js';
import { testS3Bucket, testS3Client, testS3FileIOOptions } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { NESSIE, restServerUri } from './rest-support/rest-servers.js';
import { orderRows, ordersPipeline } from './rest-support/orders-pipeline.js';
import { startVendingProxy, type Vended, type VendingProxy } from './rest-support/vending-proxy.js';

const namespace = `thund_vended_new_${randomUUID().slice(0, 8)}`;
const WRONG = { THUND_WRONG_KEY_ID: 'thund-wrong-key', THUND_WRONG_SECRET: 'thund-wrong-secret' };
const wrongIo = (): S3FileIO =>
  new S3FileIO({ ...testS3FileIOOptions(), credentials: { accessKeyId: WRONG.THUND_WRONG_KEY_ID, secretAccessKey: WRONG.THUND_WRONG_SECRET } });

/** The real MinIO keys, vended one way or the other; endpoint and path style in the table config. */
function vended(way: 'storage-credentials' | 'table config'): () => Vended {
  return () => {
    const options = testS3FileIOOptions();
    const keys = { 's3.access-key-id': options.credentials!.accessKeyId, 's3.secret-access-key': options.credentials!.secretAccessKey };
    const config = { 's3.endpoint': options.endpoint!, 's3.path-style-access': 'true', 'client.region': options.region };
    return way === 'table config'
      ? { config: { ...config, ...keys } }
      : { config, storageCredentials: [{ prefix: `s3://${testS3Bucket()}/${namespace}/`, config: keys }] };
  };
}

function spec(table: string, catalog: readonly string[], streaming: boolean): string {
  return ordersPipeline({ table, catalog, streaming, keyVariables: { id: 'THUND_WRONG_KEY_ID', secret: 'THUND_WRONG_SECRET' } });
}

let s3: S3Client;
let session: DuckDbSession;
let scratch: string;
const proxies: VendingProxy[] = [];

beforeAll(async () => {
  s3 = testS3Client();
  session = await DuckDbSession.open({ threads: 1 });
  scratch = await mkdtemp(join(tmpdir(), 'thund-vended-new-'));
});

afterAll(async () => {
  for (const [uri, warehouse] of [[requireServiceEnv('THUND_TEST_REST_URI')], [restServerUri(NESSIE), NESSIE.warehouse]]) {
    const catalog = await RestCatalog.connect({ uri: uri!, io: new S3FileIO(testS3FileIOOptions()), ...(warehouse === undefined ? {} : { warehouse }) });
    for (const id of await catalog.listTables([namespace]).catch(() => [])) await catalog.dropTable(id, true).catch(() => undefined);
    await catalog.dropNamespace([namespace]).catch(() => undefined);
    await catalog.close();
  }
  await Promise.all(proxies.map((proxy) => proxy.close()));
  session?.close();
  s3?.destroy();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/**
 * Runs the pipeline into `table` with the pipeline's keys wrong, then reads the table's rows
 * through `reader` (a catalog whose own keys are wrong too: only vended keys reach the files).
 */
async function landAndRead(table: string, catalogBlock: readonly string[], reader: () => Promise<RestCatalog>, streaming = false): Promise<void> {
  const work = await mkdtemp(join(scratch, 'work-'));
  const specFile = join(work, 'pipeline.yaml');
  await writeFile(specFile, spec(table, catalogBlock, streaming));
  const run = await thundAsync(['run', specFile], work, WRONG);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toContain(streaming ? `flow load: ${table} — 1000 rows read, 1000 rows written` : `created ${table}`);

  const catalog = await reader();
  try {
    const loaded = await catalog.loadTable({ namespace: [namespace], name: table.split('.')[1]! });
    if (streaming) {
      // The flow's checkpoint was written beside the table with the vended keys too.
      const pointer = loaded.metadata.snapshots.at(-1)?.summary['thund.checkpoint.load'];
      expect(pointer).toMatch(new RegExp(`^s3://${testS3Bucket()}/`));
      expect(await loaded.io.exists(`${pointer}/checkpoint.json`)).toBe(true);
    }
    const live = await liveDataFiles(loaded.io, loaded.metadata);
    expect(live.length).toBeGreaterThan(0);
    for (const file of live) expect(file.filePath.startsWith(`s3://${testS3Bucket()}/`), file.filePath).toBe(true);
    const read = await orderRows(s3, session, scratch, live.map((file) => file.filePath));
    expect(read.rows).toBeGreaterThan(500);
    expect(read.ids).toBe(read.rows);
  } finally {
    await catalog.close();
  }
}

describe('a new table through a REST catalog that vends credentials', () => {
  it.each(['storage-credentials', 'table config'] as const)('writes its files with the keys vended as %s, not the pipeline’s own', async (way) => {
    const proxy = await startVendingProxy(requireServiceEnv('THUND_TEST_REST_URI'), vended(way));
    proxies.push(proxy);
    const table = `${namespace}.orders_${way === 'table config' ? 'legacy' : 'credentials'}`;
    const block = ['  type: rest', `  uri: ${proxy.uri}`, '  access_delegation: vended-credentials'];
    await landAndRead(table, block, () => RestCatalog.connect({ uri: proxy.uri, io: wrongIo(), fileIOFactory: s3FileIOFactory() }));
    const stageCreate = proxy.seen.find((req) => req.method === 'POST' && req.url === `/v1/namespaces/${namespace}/tables`);
    expect(stageCreate?.body).toContain('"stage-create":true');
  }, 120_000);

  it('writes a streaming flow’s files and checkpoint with the vended keys, not the pipeline’s own', async () => {
    const proxy = await startVendingProxy(requireServiceEnv('THUND_TEST_REST_URI'), vended('storage-credentials'));
    proxies.push(proxy);
    const block = ['  type: rest', `  uri: ${proxy.uri}`, '  access_delegation: vended-credentials'];
    await landAndRead(`${namespace}.orders_streamed`, block, () => RestCatalog.connect({ uri: proxy.uri, io: wrongIo(), fileIOFactory: s3FileIOFactory() }), true);
  }, 120_000);

  it('writes its files with the session keys Nessie vends (s3.* in the table config)', async () => {
    const block = ['  type: rest', `  uri: ${restServerUri(NESSIE)}`, `  warehouse: ${NESSIE.warehouse}`, '  access_delegation: vended-credentials'];
    await landAndRead(`${namespace}.orders_nessie`, block, () =>
      RestCatalog.connect({ uri: restServerUri(NESSIE), warehouse: NESSIE.warehouse!, io: wrongIo(), accessDelegation: 'vended-credentials', fileIOFactory: s3FileIOFactory() }),
    );
  }, 120_000);
});
