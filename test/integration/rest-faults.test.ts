/**
 * commitSnapshot through a fault-injecting proxy in front of the REST fixture (files in MinIO):
 * refused commits (409, 503) and commits that landed but whose answer was lost (socket dropped,
 * 500/504, a 409 from a gateway). After each: the table loads, every file any snapshot
 * references exists, nothing a snapshot references was deleted, our snapshot is there at most
 * once, its rows are counted once, and the outcome reported matches what happened.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { CommitConflictError, CommitStateUnknownError } from '../../src/errors.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot, type SnapshotCommitResult } from '../../src/table/commit-snapshot.js';
import { dataLocation } from '../../src/table/locations.js';
import { liveDataFiles, liveEntriesOf, manifestsOf } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3FileIOOptions } from '../stack/s3-env.js';
import { FaultProxy, type FaultAction } from './fault-proxy.js';

/** The S3 FileIO, remembering every location anything asked it to delete. */
class DeleteRecordingFileIO implements FileIO {
  readonly deleted: string[] = [];
  constructor(private readonly inner: FileIO) {}
  read(location: string): Promise<Uint8Array> {
    return this.inner.read(location);
  }
  writeNew(location: string, bytes: Uint8Array): Promise<void> {
    return this.inner.writeNew(location, bytes);
  }
  exists(location: string): Promise<boolean> {
    return this.inner.exists(location);
  }
  length(location: string): Promise<bigint> {
    return this.inner.length(location);
  }
  delete(location: string): Promise<void> {
    this.deleted.push(location);
    return this.inner.delete(location);
  }
  localPathFor(location: string): string | undefined {
    return this.inner.localPathFor?.(location);
  }
}

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'note', required: false, type: primitive('string') },
  ],
};
// Fast retries: the scenarios are about outcomes, not about waiting.
const retryProperties = { 'commit.retry.min-wait-ms': '10', 'commit.retry.max-wait-ms': '50' };

let s3: S3FileIO;
let io: DeleteRecordingFileIO;
let proxy: FaultProxy;
let direct: RestCatalog;
let proxied: RestCatalog;
let session: DuckDbSession;
let scratch: string;
const namespace = [`thund_faults_${randomUUID().slice(0, 8)}`];

beforeAll(async () => {
  const upstream = requireServiceEnv('THUND_TEST_REST_URI');
  s3 = new S3FileIO(testS3FileIOOptions());
  io = new DeleteRecordingFileIO(s3);
  proxy = await FaultProxy.start(upstream);
  direct = await RestCatalog.connect({ uri: upstream, io: s3 });
  proxied = await RestCatalog.connect({ uri: proxy.uri, io, timeoutMs: 20_000 });
  await direct.createNamespace(namespace);
  session = await DuckDbSession.open();
  scratch = await mkdtemp(join(tmpdir(), 'thund-rest-faults-'));
});

afterAll(async () => {
  session?.close();
  await proxy?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

async function writeRows(metadata: TableMetadata, from: number, count: number): Promise<DataFile[]> {
  return writeDataFiles({
    session,
    query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS note FROM range(${from}, ${from + count})`,
    schema,
    specId: metadata.defaultSpecId,
    dataLocation: dataLocation(metadata),
    io: s3,
    properties: metadata.properties,
    writerName: 'rest-faults-test',
  });
}

/** A table with one seeded snapshot of 100 rows (ids 0..99), created without the proxy. */
async function seededTable(name: string): Promise<{ id: TableIdentifier; metadata: TableMetadata }> {
  const id = { namespace, name };
  const created = await direct.createTable(id, { schema, properties: retryProperties });
  await commitSnapshot({
    catalog: direct,
    identifier: id,
    base: { metadata: created.metadata, io: s3, create: false },
    mode: 'append',
    addedFiles: await writeRows(created.metadata, 0, 100),
  });
  return { id, metadata: (await direct.loadTable(id)).metadata };
}

/** Appends ids 1000..1049 through the proxy, the table's commit route failing as `action` says on `occurrences`. */
async function appendThroughFault(
  id: TableIdentifier,
  base: TableMetadata,
  action: FaultAction,
  occurrences: readonly number[] = [1],
  extra: { method: string; path: RegExp; action: FaultAction } | undefined = undefined,
): Promise<{ files: DataFile[]; outcome: Promise<SnapshotCommitResult> }> {
  const files = await writeRows(base, 1000, 50);
  proxy.clearRules();
  proxy.inject({ method: 'POST', path: new RegExp(`/tables/${id.name}$`), occurrences, action });
  if (extra !== undefined) proxy.inject({ ...extra, occurrences: [1] });
  io.deleted.length = 0;
  const outcome = commitSnapshot({ catalog: proxied, identifier: id, base: { metadata: base, io, create: false }, mode: 'append', addedFiles: files });
  outcome.catch(() => undefined);
  return { files, outcome };
}

interface TableCheck {
  readonly metadata: TableMetadata;
  /** Every metadata, manifest list, manifest and data file the table's metadata and snapshots name. */
  readonly referenced: ReadonlySet<string>;
  readonly rows: number;
  readonly distinctIds: number;
}

/** Loads the table without the proxy and checks that everything it references exists. */
async function checkTable(id: TableIdentifier): Promise<TableCheck> {
  const loaded = await direct.loadTable(id);
  const { metadata } = loaded;
  const referenced = new Set<string>([loaded.metadataLocation, ...metadata.metadataLog.map((entry) => entry.metadataFile)]);
  const snapshotIds = metadata.snapshots.map((snapshot) => snapshot.snapshotId);
  expect(new Set(snapshotIds).size).toBe(snapshotIds.length);
  const missing: string[] = [];
  const present = async (location: string): Promise<boolean> => {
    referenced.add(location);
    const exists = await s3.exists(location);
    if (!exists) missing.push(location);
    return exists;
  };
  for (const location of [...referenced]) await present(location);
  for (const snapshot of metadata.snapshots) {
    if (!(await present(snapshot.manifestList))) continue;
    for (const manifest of await manifestsOf(s3, snapshot)) {
      if (!(await present(manifest.manifestPath))) continue;
      for (const entry of await liveEntriesOf(s3, manifest)) await present(entry.dataFile.filePath);
    }
  }
  expect(missing).toEqual([]);
  const counted = await countRows(await liveDataFiles(s3, metadata));
  return { metadata, referenced, ...counted };
}

/** Rows in the live data files as DuckDB reads them (downloaded from MinIO first). */
async function countRows(files: readonly DataFile[]): Promise<{ rows: number; distinctIds: number }> {
  const dir = await mkdtemp(join(scratch, 'count-'));
  const paths: string[] = [];
  for (const [index, file] of files.entries()) {
    const path = join(dir, `${index}.parquet`);
    await writeFile(path, await s3.read(file.filePath));
    paths.push(quoteLiteral(path));
  }
  const [row] = await session.queryJson(`SELECT count(*) AS n, count(DISTINCT id) AS d FROM read_parquet([${paths.join(', ')}])`);
  await rm(dir, { recursive: true, force: true });
  return { rows: Number(row?.['n']), distinctIds: Number(row?.['d']) };
}

function expectNothingReferencedDeleted(check: TableCheck): void {
  expect(io.deleted.filter((location) => check.referenced.has(location))).toEqual([]);
}

function commitPosts(id: TableIdentifier): number {
  return proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/tables/${id.name}`)).length;
}

async function expectLandedOnce(id: TableIdentifier, result: SnapshotCommitResult, files: readonly DataFile[]): Promise<TableCheck> {
  const check = await checkTable(id);
  expect(check.metadata.currentSnapshotId).toBe(result.snapshot.snapshotId);
  expect(check.metadata.snapshots.filter((s) => s.snapshotId === result.snapshot.snapshotId)).toHaveLength(1);
  expect(check.metadata.snapshots).toHaveLength(2);
  expect(check.rows).toBe(150);
  expect(check.distinctIds).toBe(150);
  expect(check.metadata.snapshots.at(-1)?.summary['total-records']).toBe('150');
  for (const file of files) expect(check.referenced.has(file.filePath)).toBe(true);
  expectNothingReferencedDeleted(check);
  return check;
}

describe('commitSnapshot through REST faults', () => {
  it('409 without forwarding: rebuilds the manifest list, retries, lands once', async () => {
    const { id, metadata } = await seededTable('conflict_refused');
    const { files, outcome } = await appendThroughFault(id, metadata, { kind: 'respond', status: 409 });
    const result = await outcome;
    expect(result.attempts).toBe(2);
    expect(commitPosts(id)).toBe(2);
    await expectLandedOnce(id, result, files);
    // Only the refused attempt's manifest list was cleaned up.
    expect(io.deleted).toHaveLength(1);
    expect(io.deleted[0]).toMatch(/\/snap-\d+-0-[0-9a-f-]+\.avro$/);
    expect(await s3.exists(io.deleted[0] ?? '')).toBe(false);
  });

  it('409 on every attempt: gives up with CommitConflictError, table unchanged, only its own files removed', async () => {
    const { id, metadata } = await seededTable('conflict_forever');
    const { files, outcome } = await appendThroughFault(id, metadata, { kind: 'respond', status: 409 }, [1, 2, 3, 4, 5, 6]);
    const error = await outcome.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CommitConflictError);
    expect((error as CommitConflictError).retryable).toBe(false);
    expect(commitPosts(id)).toBe(5); // 1 + commit.retry.num-retries (4)
    const check = await checkTable(id);
    expect(check.metadata.snapshots).toHaveLength(1);
    expect(check.metadata.currentSnapshotId).toBe(metadata.currentSnapshotId);
    expect(check.rows).toBe(100);
    expectNothingReferencedDeleted(check);
    // Its manifest and five manifest lists were removed; data files belong to the caller.
    expect(io.deleted).toHaveLength(6);
    for (const file of files) expect(io.deleted).not.toContain(file.filePath);
  });

  it('503 without forwarding: the table has no trace of it, so the same snapshot id is committed again and lands once', async () => {
    const { id, metadata } = await seededTable('unavailable');
    const { files, outcome } = await appendThroughFault(id, metadata, { kind: 'respond', status: 503 });
    const result = await outcome;
    expect(result.attempts).toBe(2);
    expect(commitPosts(id)).toBe(2);
    await expectLandedOnce(id, result, files);
    for (const file of files) expect(io.deleted).not.toContain(file.filePath);
  });

  it('503 on every attempt: CommitStateUnknownError, nothing deleted, the table unchanged', async () => {
    const { id, metadata } = await seededTable('unavailable_always');
    const { files, outcome } = await appendThroughFault(id, metadata, { kind: 'respond', status: 503 }, [1, 2, 3, 4, 5]);
    const error = await outcome.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CommitStateUnknownError);
    expect(commitPosts(id)).toBe(5); // 1 + commit.retry.num-retries (4)
    expect(io.deleted).toEqual([]);
    const after = await checkTable(id);
    expect(after.metadata.snapshots).toHaveLength(1);
    expect(after.metadata.currentSnapshotId).toBe(metadata.currentSnapshotId);
    expect(after.rows).toBe(100);
    for (const file of files) expect(await s3.exists(file.filePath)).toBe(true);
  });

  const lostAnswers: { name: string; table: string; action: FaultAction }[] = [
    { name: 'socket destroyed after the server applied the commit', table: 'dropped', action: { kind: 'forward-then-drop' } },
    { name: '500 after the server applied the commit', table: 'answer_500', action: { kind: 'forward-then-respond', status: 500 } },
    { name: '504 after the server applied the commit', table: 'answer_504', action: { kind: 'forward-then-respond', status: 504 } },
    { name: '409 from a gateway after the server applied the commit', table: 'answer_409', action: { kind: 'forward-then-respond', status: 409 } },
  ];
  for (const scenario of lostAnswers) {
    it(`${scenario.name}: finds its snapshot and reports success, once`, async () => {
      const { id, metadata } = await seededTable(scenario.table);
      const { files, outcome } = await appendThroughFault(id, metadata, scenario.action);
      const result = await outcome;
      expect(proxy.requests.some((r) => r.fault === scenario.action.kind && r.forwarded)).toBe(true);
      // Found by reloading, not by committing a second time.
      expect(result.attempts).toBe(1);
      expect(commitPosts(id)).toBe(1);
      await expectLandedOnce(id, result, files);
    });
  }

  it('overwrite answered 409 by a gateway after it landed: success, and the replaced snapshot still reads', async () => {
    const { id, metadata } = await seededTable('overwrite_409');
    const files = await writeRows(metadata, 1000, 50);
    proxy.clearRules();
    proxy.inject({ method: 'POST', path: new RegExp(`/tables/${id.name}$`), occurrences: [1], action: { kind: 'forward-then-respond', status: 409 } });
    io.deleted.length = 0;
    const result = await commitSnapshot({ catalog: proxied, identifier: id, base: { metadata, io, create: false }, mode: 'overwrite', addedFiles: files });
    expect(result.attempts).toBe(1);
    expect(commitPosts(id)).toBe(1);
    const check = await checkTable(id);
    expect(check.metadata.currentSnapshotId).toBe(result.snapshot.snapshotId);
    expect(check.metadata.snapshots).toHaveLength(2);
    expect(check.rows).toBe(50);
    expect(result.snapshot.summary).toMatchObject({ operation: 'overwrite', 'deleted-records': '100', 'total-records': '50' });
    const seeded = metadata.currentSnapshotId;
    expect((await liveDataFiles(s3, check.metadata, seeded)).reduce((n, file) => n + file.recordCount, 0n)).toBe(100n);
    expectNothingReferencedDeleted(check);
  });

  it('504 after the commit landed and the reload failing too: CommitStateUnknownError, nothing deleted, the table intact', async () => {
    const { id, metadata } = await seededTable('unknown_stays_unknown');
    const { files, outcome } = await appendThroughFault(id, metadata, { kind: 'forward-then-respond', status: 504 }, [1], {
      method: 'GET',
      path: new RegExp(`/tables/${id.name}$`),
      action: { kind: 'respond', status: 503 },
    });
    const error = await outcome.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CommitStateUnknownError);
    expect(io.deleted).toEqual([]);
    // It did land: the table holds the new snapshot, complete.
    const check = await checkTable(id);
    expect(check.metadata.snapshots).toHaveLength(2);
    expect(check.rows).toBe(150);
    expect(check.distinctIds).toBe(150);
    for (const file of files) expect(check.referenced.has(file.filePath)).toBe(true);
  });
});
