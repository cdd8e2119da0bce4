/**
 * A REST server that refuses staged creation (`stage-create: true` answered 501 "not implemented",
 * or 400/406): the built CLI creates a partitioned table there anyway, by a plain create, the
 * partition spec committed to the still-empty table, and the first snapshot on it. When that first
 * commit is refused, the table is left empty (never half-committed: no snapshot, no data file
 * left), and the next run fills it. A loopback proxy in front of the REST fixture plays the server.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { defaultSpec } from '../../src/iceberg/snapshot-ancestry.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { thundAsync } from '../e2e/cli.js';
import { testS3Client, testS3FileIOOptions } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { objectsUnder } from './behaviour/s3-objects.js';
import type { Reply } from './rest-support/loopback-server.js';
import { orderRows, ordersPipeline } from './rest-support/orders-pipeline.js';
import { startVendingProxy, type VendingProxy } from './rest-support/vending-proxy.js';

const namespace = `thund_no_stage_${randomUUID().slice(0, 8)}`;
const refusal = (status: number): Reply => ({ status, json: { error: { message: 'staged creation is not implemented', type: 'NotImplementedException', code: status } } });

function spec(proxyUri: string, table: string): string {
  return ordersPipeline({
    table,
    catalog: ['  type: rest', `  uri: ${proxyUri}`],
    keyVariables: { id: 'THUND_TEST_S3_ACCESS_KEY', secret: 'THUND_TEST_S3_SECRET_KEY' },
    partitionedBy: 'bucket(4, order_id)',
  });
}

let s3: S3Client;
let session: DuckDbSession;
let scratch: string;
let catalog: RestCatalog;
const proxies: VendingProxy[] = [];

beforeAll(async () => {
  s3 = testS3Client();
  session = await DuckDbSession.open({ threads: 1 });
  scratch = await mkdtemp(join(tmpdir(), 'thund-no-stage-'));
  catalog = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io: new S3FileIO(testS3FileIOOptions()) });
});

afterAll(async () => {
  for (const id of (await catalog?.listTables([namespace]).catch(() => [])) ?? []) await catalog.dropTable(id, true).catch(() => undefined);
  await catalog?.dropNamespace([namespace]).catch(() => undefined);
  await catalog?.close();
  await Promise.all(proxies.map((proxy) => proxy.close()));
  session?.close();
  s3?.destroy();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** A proxy refusing staged creates with `status`, and snapshot commits while `refuseCommits` is set. */
async function refusingProxy(status: number, state: { refuseCommits: boolean }): Promise<VendingProxy> {
  const tables = `/v1/namespaces/${namespace}/tables`;
  const proxy = await startVendingProxy(
    requireServiceEnv('THUND_TEST_REST_URI'),
    () => ({}),
    (req) => {
      if (req.method === 'POST' && req.url === tables && req.body.includes('"stage-create":true')) return refusal(status);
      if (state.refuseCommits && req.method === 'POST' && req.url.startsWith(`${tables}/`) && req.body.includes('"add-snapshot"')) {
        return { status: 409, json: { error: { message: 'refused by the test', type: 'CommitFailedException', code: 409 } } };
      }
      return undefined;
    },
  );
  proxies.push(proxy);
  return proxy;
}

async function run(proxy: VendingProxy, table: string) {
  const work = await mkdtemp(join(scratch, 'work-'));
  const specFile = join(work, 'pipeline.yaml');
  await writeFile(specFile, spec(proxy.uri, table));
  return thundAsync(['run', specFile], work);
}

async function orderIds(locations: readonly string[]): Promise<number> {
  return (await orderRows(s3, session, scratch, locations)).ids;
}

describe('a REST server that refuses staged creation', () => {
  it.each([501, 400, 406])('HTTP %i: a plain create, the partition spec, then the first snapshot; all rows there', async (status) => {
    const proxy = await refusingProxy(status, { refuseCommits: false });
    const table = `${namespace}.orders_${status}`;
    const result = await run(proxy, table);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`created ${table}`);
    const creates = proxy.seen.filter((req) => req.method === 'POST' && req.url === `/v1/namespaces/${namespace}/tables`);
    expect(creates.map((req) => req.body.includes('"stage-create":true'))).toEqual([true, false]);

    const loaded = await catalog.loadTable({ namespace: [namespace], name: `orders_${status}` });
    expect(loaded.metadata.snapshots).toHaveLength(1);
    expect(defaultSpec(loaded.metadata).fields.map((f) => f.transform)).toEqual(['bucket[4]']);
    const live = await liveDataFiles(loaded.io, loaded.metadata);
    expect(live.length).toBeGreaterThan(1);
    expect(new Set(live.map((file) => file.specId))).toEqual(new Set([loaded.metadata.defaultSpecId]));
    expect(await orderIds(live.map((file) => file.filePath))).toBeGreaterThan(500);
  }, 120_000);

  it('a refused first commit leaves the table empty, with no data file, and the next run fills it', async () => {
    const state = { refuseCommits: true };
    const proxy = await refusingProxy(501, state);
    const table = `${namespace}.orders_refused`;
    const id = { namespace: [namespace], name: 'orders_refused' };
    const failed = await run(proxy, table);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('refused by the test');

    const empty = await catalog.loadTable(id);
    expect(empty.metadata.snapshots).toEqual([]);
    expect(empty.metadata.currentSnapshotId ?? null).toBeNull();
    expect(defaultSpec(empty.metadata).fields).toHaveLength(1);
    expect(await objectsUnder(`${empty.metadata.location}/data`)).toEqual([]);

    state.refuseCommits = false;
    const again = await run(proxy, table);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    const filled = await catalog.loadTable(id);
    expect(filled.metadata.tableUuid).toBe(empty.metadata.tableUuid);
    expect(filled.metadata.snapshots).toHaveLength(1);
    expect(await orderIds((await liveDataFiles(filled.io, filled.metadata)).map((file) => file.filePath))).toBeGreaterThan(500);
  }, 120_000);
});
