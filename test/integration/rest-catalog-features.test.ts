/**
 * RestCatalog's namespace properties, register, rename, drop with purge and multi-table
 * transactions against the Apache Iceberg REST fixture of the test stack, with the files in
 * MinIO checked through an independent S3 client.
 */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedTable, TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { parseS3Location, S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import {
  AlreadyExistsError,
  CommitConflictError,
  InvalidInputError,
  NoSuchNamespaceError,
  NoSuchTableError,
} from '../../src/errors.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { liveDataFiles, manifestsOf } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Client, testS3FileIOOptions } from '../stack/s3-env.js';
import { prepareAppend } from './rest-support/prepared-append.js';

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'label', required: false, type: primitive('string') },
  ],
};

const namespace = [`thund_restf_${randomUUID().slice(0, 8)}`];
let catalog: RestCatalog;
let io: S3FileIO;
let s3: S3Client;
let session: DuckDbSession;

beforeAll(async () => {
  io = new S3FileIO(testS3FileIOOptions());
  s3 = testS3Client();
  session = await DuckDbSession.open({ threads: 1 });
  catalog = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io });
  await catalog.createNamespace(namespace, { owner: 'thund', purpose: 'features' });
});

afterAll(async () => {
  for (const id of (await catalog?.listTables(namespace).catch(() => [])) ?? []) await catalog.dropTable(id, true).catch(() => undefined);
  await catalog?.dropNamespace(namespace).catch(() => undefined);
  await catalog?.close();
  session?.close();
  s3?.destroy();
  io?.close();
});

async function write(table: LoadedTable, from: number, count: number): Promise<DataFile[]> {
  return writeDataFiles({
    session,
    query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS label FROM range(${from}, ${from + count})`,
    schema,
    specId: table.metadata.defaultSpecId,
    dataLocation: `${table.metadata.location.replace(/\/+$/, '')}/data`,
    io: table.io,
    properties: table.metadata.properties,
    writerName: 'rest-catalog-features-test',
  });
}

/** A table with one appended snapshot of `count` rows. */
async function tableWithRows(name: string, count: number): Promise<LoadedTable> {
  const id = { namespace, name };
  const created = await catalog.createTable(id, { schema });
  await commitSnapshot({ catalog, identifier: id, base: { metadata: created.metadata, io, create: false }, mode: 'append', addedFiles: await write(created, 0, count) });
  return catalog.loadTable(id);
}

async function rowCount(table: LoadedTable): Promise<bigint> {
  return (await liveDataFiles(table.io, table.metadata)).reduce((n, file) => n + file.recordCount, 0n);
}

async function objectExists(location: string): Promise<boolean> {
  const { bucket, key } = parseS3Location(location);
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}

describe('namespace properties', () => {
  it('loads, removes and sets properties; refuses overlaps and missing namespaces', async () => {
    const loaded = await catalog.loadNamespaceProperties(namespace);
    expect(loaded).toMatchObject({ owner: 'thund', purpose: 'features' });

    await catalog.updateNamespaceProperties(namespace, ['purpose', 'never-set'], { team: 'lake', owner: 'thund-2' });
    const after = await catalog.loadNamespaceProperties(namespace);
    expect(after['purpose']).toBeUndefined();
    expect(after).toMatchObject({ owner: 'thund-2', team: 'lake' });

    await expect(catalog.updateNamespaceProperties(namespace, ['team'], { team: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    expect((await catalog.loadNamespaceProperties(namespace))['team']).toBe('lake');

    const missing = [`${namespace[0]}_missing`];
    await expect(catalog.loadNamespaceProperties(missing)).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(catalog.updateNamespaceProperties(missing, [], { a: '1' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    expect(await catalog.namespaceExists(missing)).toBe(false);
  });
});

describe('register, rename, drop', () => {
  it('registers a dropped table by its metadata file under a new name, with its snapshots and rows', async () => {
    const original = await tableWithRows('to_register', 300);
    await catalog.dropTable(original.identifier);
    expect(await catalog.tableExists(original.identifier)).toBe(false);
    expect(await objectExists(original.metadataLocation)).toBe(true);

    const id = { namespace, name: 'registered' };
    const registered = await catalog.registerTable(id, original.metadataLocation);
    expect(registered.metadataLocation).toBe(original.metadataLocation);
    expect(registered.metadata.tableUuid).toBe(original.metadata.tableUuid);
    const reloaded = await catalog.loadTable(id);
    expect(reloaded.metadata.snapshots.map((s) => s.snapshotId)).toEqual(original.metadata.snapshots.map((s) => s.snapshotId));
    expect(reloaded.metadata.currentSnapshotId).toBe(original.metadata.currentSnapshotId);
    expect(await rowCount(reloaded)).toBe(300n);

    await expect(catalog.registerTable(id, original.metadataLocation)).rejects.toBeInstanceOf(AlreadyExistsError);
  });

  it('renames a table: the old name is gone, the new one loads the same metadata', async () => {
    const before = await tableWithRows('to_rename', 50);
    const to = { namespace, name: 'renamed' };
    await catalog.renameTable(before.identifier, to);
    expect(await catalog.tableExists(before.identifier)).toBe(false);
    await expect(catalog.loadTable(before.identifier)).rejects.toBeInstanceOf(NoSuchTableError);
    const after = await catalog.loadTable(to);
    expect(after.metadataLocation).toBe(before.metadataLocation);
    expect(after.metadata.tableUuid).toBe(before.metadata.tableUuid);
    expect(await rowCount(after)).toBe(50n);

    await expect(catalog.renameTable(before.identifier, { namespace, name: 'renamed_again' })).rejects.toBeInstanceOf(NoSuchTableError);
    const other = await catalog.createTable({ namespace, name: 'rename_target' }, { schema });
    await expect(catalog.renameTable(to, other.identifier)).rejects.toBeInstanceOf(AlreadyExistsError);
    expect((await catalog.loadTable(to)).metadataLocation).toBe(before.metadataLocation);
  });

  it('drop with purge deletes the data files, manifests and metadata from MinIO', async () => {
    const table = await tableWithRows('to_purge', 200);
    const dataFiles = (await liveDataFiles(table.io, table.metadata)).map((file) => file.filePath);
    const snapshot = table.metadata.snapshots[0]!;
    const manifests = (await manifestsOf(table.io, snapshot)).map((m) => m.manifestPath);
    const files = [...dataFiles, ...manifests, snapshot.manifestList, table.metadataLocation];
    expect(dataFiles.length).toBeGreaterThan(0);
    for (const file of files) expect(await objectExists(file), file).toBe(true);

    await catalog.dropTable(table.identifier, true);
    expect(await catalog.tableExists(table.identifier)).toBe(false);
    for (const file of files) expect(await objectExists(file), file).toBe(false);
  });
});

describe('multi-table transactions', () => {
  it('commits appends to two tables atomically, and refuses a stale transaction changing neither', async () => {
    expect(catalog.supportsTransactions).toBe(true);
    const a = await tableWithRows('tx_a', 10);
    const b = await tableWithRows('tx_b', 20);

    const toA = await prepareAppend(catalog, a, await write(a, 100, 5));
    const toB = await prepareAppend(catalog, b, await write(b, 200, 7));
    await catalog.commitTransaction([toA.change, toB.change]);

    const a1 = await catalog.loadTable(a.identifier);
    const b1 = await catalog.loadTable(b.identifier);
    expect(a1.metadata.currentSnapshotId).toBe(toA.snapshot.snapshotId);
    expect(b1.metadata.currentSnapshotId).toBe(toB.snapshot.snapshotId);
    expect(await rowCount(a1)).toBe(15n);
    expect(await rowCount(b1)).toBe(27n);

    // a is current, b's change is built on the state before the first transaction.
    const fresh = await prepareAppend(catalog, a1, await write(a1, 300, 3));
    const stale = await prepareAppend(catalog, b, await write(b, 400, 4));
    await expect(catalog.commitTransaction([fresh.change, stale.change])).rejects.toBeInstanceOf(CommitConflictError);
    const a2 = await catalog.loadTable(a.identifier);
    const b2 = await catalog.loadTable(b.identifier);
    expect(a2.metadataLocation).toBe(a1.metadataLocation);
    expect(b2.metadataLocation).toBe(b1.metadataLocation);
    expect(a2.metadata.snapshots.map((s) => s.snapshotId)).not.toContain(fresh.snapshot.snapshotId);
    expect(await rowCount(a2)).toBe(15n);
    expect(await rowCount(b2)).toBe(27n);

    const missing: TableIdentifier = { namespace, name: 'tx_missing' };
    await expect(catalog.commitTransaction([{ ...fresh.change, identifier: missing }])).rejects.toBeInstanceOf(NoSuchTableError);
  });
});
