/**
 * Maintenance on MinIO through the Iceberg REST catalog fixture: expire-snapshots deletes the
 * objects only expired snapshots reached and keeps every object a kept snapshot reads;
 * remove-orphans lists the table's prefix (ListObjectsV2) and deletes a crashed run's objects only
 * once they are older than the safety age; rewrite-manifests merges the manifests. Then pyiceberg
 * and Spark, each through the same REST catalog, read the current rows and time-travel to a kept
 * snapshot.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { currentSnapshot } from '../../src/iceberg/snapshot-ancestry.js';
import type { Snapshot, TableMetadata } from '../../src/iceberg/table-metadata.js';
import { dataLocation } from '../../src/table/locations.js';
import { expireSnapshots } from '../../src/table/maintenance/expire-snapshots.js';
import type { MaintenanceTarget } from '../../src/table/maintenance/maintenance-action.js';
import { ManifestCache } from '../../src/table/maintenance/reachable-files.js';
import { removeOrphans } from '../../src/table/maintenance/remove-orphans.js';
import { rewriteManifests } from '../../src/table/maintenance/rewrite-manifests.js';
import { liveDataFiles, manifestsOf } from '../../src/table/scan.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { readWithPyiceberg } from '../interop/pyiceberg.js';
import { stackRestReadTarget, type RestCatalogReadArgs } from '../interop/read-table-output.js';
import { readWithSpark } from '../interop/spark.js';
import { testS3Bucket, testS3FileIOOptions } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { appendIds, SCHEMA } from './behaviour/table-rows.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NAMESPACE = `maint_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const ID: TableIdentifier = { namespace: [NAMESPACE], name: 'events' };
let io: S3FileIO;
let catalog: RestCatalog;
let session: DuckDbSession;
const snapshots: Snapshot[] = [];

const target = (overrides: Partial<MaintenanceTarget> = {}): MaintenanceTarget => ({ catalog, identifier: ID, io, session, dryRun: false, ...overrides });

async function commitRows(mode: 'append' | 'overwrite', from: number, count: number): Promise<Snapshot> {
  return (await appendIds(catalog, io, ID, from, count, mode)).snapshot;
}

async function rowsOf(metadata: TableMetadata, snapshotId?: bigint): Promise<number> {
  const rows = await openTableRows({ session, io, metadata, ...(snapshotId === undefined ? {} : { snapshotId }) });
  try {
    const [row] = await session.queryJson(`SELECT count(*)::INTEGER AS n FROM (${rows.sql})`);
    return Number(row?.['n']);
  } finally {
    await rows.release();
  }
}

async function expectEveryReachableObjectPresent(metadata: TableMetadata): Promise<void> {
  const reached = await new ManifestCache(io).reachableFrom(metadata.snapshots, { strict: true, liveOnly: true });
  const locations = [...reached.manifestLists.values(), ...reached.manifests.values(), ...reached.contentFiles.values()];
  const missing = [];
  for (const location of locations) if (!(await io.exists(location))) missing.push(location);
  expect(missing).toEqual([]);
}

const readArgs = (snapshotId?: bigint): RestCatalogReadArgs => ({
  rest: stackRestReadTarget(requireServiceEnv('THUND_TEST_REST_URI')),
  catalogName: 'rest',
  table: `${NAMESPACE}.events`,
  ...(snapshotId === undefined ? {} : { snapshotId }),
});

beforeAll(async () => {
  io = new S3FileIO(testS3FileIOOptions());
  catalog = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io });
  session = await DuckDbSession.open({ threads: 1 });
  await catalog.createNamespace([NAMESPACE]);
  await catalog.createTable(ID, {
    schema: SCHEMA,
    location: `s3://${testS3Bucket()}/it-maintenance/${randomUUID()}/events`,
    properties: { 'history.expire.min-snapshots-to-keep': '2' },
  });
  snapshots.push(await commitRows('append', 0, 10));
  snapshots.push(await commitRows('append', 10, 10));
  snapshots.push(await commitRows('overwrite', 100, 20));
  snapshots.push(await commitRows('append', 200, 5));
  snapshots.push(await commitRows('append', 300, 5));
}, 120_000);

afterAll(async () => {
  await catalog?.dropTable(ID, true).catch(() => undefined);
  await catalog?.dropNamespace([NAMESPACE]).catch(() => undefined);
  session?.close();
  await catalog?.close();
  io?.close();
});

describe('maintenance on MinIO through the REST catalog', () => {
  it('expires old snapshots and deletes only the objects they alone reached', async () => {
    const { metadata: before } = await catalog.loadTable(ID);
    const overwritten = await liveDataFiles(io, before, snapshots[1]!.snapshotId);
    const outcome = await expireSnapshots(target({ now: () => Date.now() + 10 * DAY_MS }));
    const { metadata } = await catalog.loadTable(ID);
    // The table keeps main's two newest snapshots.
    expect(metadata.snapshots.map((s) => s.snapshotId)).toEqual([snapshots[3]!.snapshotId, snapshots[4]!.snapshotId]);
    expect(outcome.counts).toMatchObject({ snapshots: 3, contentFiles: 2, manifestLists: 3, filesNotDeleted: 0 });
    for (const file of overwritten) expect(await io.exists(file.filePath)).toBe(false);
    for (const snapshot of snapshots.slice(0, 3)) expect(await io.exists(snapshot.manifestList)).toBe(false);
    await expectEveryReachableObjectPresent(metadata);
    expect(await rowsOf(metadata, snapshots[3]!.snapshotId)).toBe(25);
    expect(await rowsOf(metadata)).toBe(30);
  }, 120_000);

  it('removes a crashed run’s objects once older than the safety age, and nothing reachable', async () => {
    const { metadata } = await catalog.loadTable(ID);
    const crashed = [`${dataLocation(metadata)}/crashed-0.parquet`, `${metadata.location}/metadata/crashed-m0.avro`, `${metadata.location}/thund-checkpoints/f/dead/checkpoint.json`];
    for (const location of crashed) await io.writeNew(location, new TextEncoder().encode('leftover'));
    // Just written: too young to be an orphan.
    const young = await removeOrphans(target());
    expect(young.counts).toMatchObject({ orphans: 0, tooYoung: 3 });
    for (const location of crashed) expect(await io.exists(location)).toBe(true);
    // Four days on, with a one-hour clock skew margin: old enough.
    const outcome = await removeOrphans(target({ now: () => Date.now() + 4 * DAY_MS }));
    expect(outcome.counts).toMatchObject({ orphans: 3, filesDeleted: 3, filesNotDeleted: 0 });
    for (const location of crashed) expect(await io.exists(location)).toBe(false);
    const loaded = await catalog.loadTable(ID);
    expect(await io.exists(loaded.metadataLocation)).toBe(true);
    await expectEveryReachableObjectPresent(loaded.metadata);
    expect(await rowsOf(loaded.metadata)).toBe(30);
  }, 120_000);

  it('merges the manifests, and pyiceberg and Spark read the table and time-travel to a kept snapshot', async () => {
    const outcome = await rewriteManifests(target());
    expect(outcome.counts).toMatchObject({ manifestsReplaced: 4, manifestsCreated: 1 });
    const { metadata } = await catalog.loadTable(ID);
    expect(await manifestsOf(io, currentSnapshot(metadata)!)).toHaveLength(1);
    expect(await rowsOf(metadata)).toBe(30);
    const kept = snapshots[3]!.snapshotId;

    const pyiceberg = await readWithPyiceberg(readArgs());
    expect(pyiceberg.rowCount).toBe(30);
    expect(pyiceberg.snapshots).toHaveLength(3);
    expect((await readWithPyiceberg(readArgs(kept))).rowCount).toBe(25);

    const spark = await readWithSpark(readArgs());
    expect(spark.rowCount).toBe(30);
    expect(spark.currentSnapshotId).toBe(String(outcome.snapshotId));
    expect((await readWithSpark(readArgs(kept))).rowCount).toBe(25);
  }, 900_000);
});
