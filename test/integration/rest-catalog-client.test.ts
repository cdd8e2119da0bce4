/**
 * RestCatalog against the Apache Iceberg REST fixture of the test stack (files in MinIO):
 * config negotiation, namespaces, create/load/commit, and the error model (409 on a stale
 * requirement → CommitConflictError, 404 → NoSuchTableError, duplicate create → AlreadyExistsError).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { AlreadyExistsError, CommitConflictError, NoSuchNamespaceError, NoSuchTableError } from '../../src/errors.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3FileIOOptions } from '../stack/s3-env.js';

let catalog: RestCatalog;
let io: S3FileIO;
const namespace = [`thund_rest_${randomUUID().slice(0, 8)}`];

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'name', required: false, type: primitive('string') },
  ],
};

beforeAll(async () => {
  io = new S3FileIO(testS3FileIOOptions());
  catalog = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io });
});

afterAll(async () => {
  await catalog?.close();
});

describe('RestCatalog against the REST fixture', () => {
  it('negotiates /v1/config', () => {
    expect(catalog.config.endpoints.length).toBeGreaterThan(0);
    expect(catalog.config.endpoints).toContain('POST /v1/{prefix}/namespaces/{namespace}/tables/{table}');
    expect(catalog.config.namespaceSeparator.length).toBeGreaterThan(0);
  });

  it('creates, finds, lists and drops namespaces', async () => {
    const extra = [`${namespace[0]}_tmp`];
    expect(await catalog.namespaceExists(extra)).toBe(false);
    await catalog.createNamespace(extra, { owner: 'thund' });
    expect(await catalog.namespaceExists(extra)).toBe(true);
    expect(await catalog.listNamespaces()).toContainEqual(extra);
    await expect(catalog.createNamespace(extra)).rejects.toBeInstanceOf(AlreadyExistsError);
    await catalog.dropNamespace(extra);
    expect(await catalog.namespaceExists(extra)).toBe(false);
    await expect(catalog.dropNamespace(extra)).rejects.toBeInstanceOf(NoSuchNamespaceError);
  });

  it('creates a table, loads it back and commits property updates', async () => {
    await catalog.createNamespace(namespace);
    const id = { namespace, name: 'events' };
    const created = await catalog.createTable(id, { schema, properties: { 'created-by': 'thund-test' } });
    expect(created.metadataLocation).toMatch(/^s3:\/\/.*\.metadata\.json$/);
    expect(await catalog.tableExists(id)).toBe(true);
    expect(await catalog.listTables(namespace)).toContainEqual({ namespace, name: 'events' });

    const loaded = await catalog.loadTable(id);
    expect(loaded.metadata.tableUuid).toBe(created.metadata.tableUuid);
    expect(loaded.metadata.properties['created-by']).toBe('thund-test');
    const current = loaded.metadata.schemas.find((s) => s.schemaId === loaded.metadata.currentSchemaId);
    expect(current?.fields.map((f) => ({ id: f.id, name: f.name, required: f.required, type: f.type }))).toEqual(
      schema.fields.map((f) => ({ id: f.id, name: f.name, required: f.required, type: f.type })),
    );
    // The metadata file the catalog names is really in MinIO.
    expect(await loaded.io.exists(loaded.metadataLocation)).toBe(true);

    const committed = await catalog.commitTable(
      id,
      [{ type: 'assert-table-uuid', uuid: loaded.metadata.tableUuid }],
      [{ action: 'set-properties', updates: { 'thund.test': 'one' } }],
    );
    expect(committed.metadata.properties['thund.test']).toBe('one');
    expect(committed.metadataLocation).not.toBe(loaded.metadataLocation);
    const reloaded = await catalog.loadTable(id);
    expect(reloaded.metadata.properties['thund.test']).toBe('one');
    expect(reloaded.metadataLocation).toBe(committed.metadataLocation);
  });

  it('rejects stale requirements with CommitConflictError and leaves the table unchanged', async () => {
    const id = { namespace, name: 'events' };
    const before = await catalog.loadTable(id);
    await expect(
      catalog.commitTable(id, [{ type: 'assert-table-uuid', uuid: randomUUID() }], [{ action: 'set-properties', updates: { 'thund.test': 'two' } }]),
    ).rejects.toBeInstanceOf(CommitConflictError);
    await expect(
      catalog.commitTable(
        id,
        [{ type: 'assert-ref-snapshot-id', ref: 'main', snapshotId: 123456789n }],
        [{ action: 'set-properties', updates: { 'thund.test': 'three' } }],
      ),
    ).rejects.toBeInstanceOf(CommitConflictError);
    const after = await catalog.loadTable(id);
    expect(after.metadataLocation).toBe(before.metadataLocation);
    expect(after.metadata.properties['thund.test']).toBe('one');
  });

  it('reports a missing table as NoSuchTableError naming it', async () => {
    const id = { namespace, name: 'missing_table' };
    expect(await catalog.tableExists(id)).toBe(false);
    const error = await catalog.loadTable(id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NoSuchTableError);
    expect((error as NoSuchTableError).context['table']).toBe(`${namespace[0]}.missing_table`);
    expect((error as NoSuchTableError).message).toContain('missing_table');
  });

  it('refuses a duplicate create with AlreadyExistsError', async () => {
    await expect(catalog.createTable({ namespace, name: 'events' }, { schema })).rejects.toBeInstanceOf(AlreadyExistsError);
  });

  it('drops the table and the then-empty namespace', async () => {
    const id = { namespace, name: 'events' };
    await catalog.dropTable(id, true);
    expect(await catalog.tableExists(id)).toBe(false);
    await expect(catalog.dropTable(id)).rejects.toBeInstanceOf(NoSuchTableError);
    await catalog.dropNamespace(namespace);
    expect(await catalog.namespaceExists(namespace)).toBe(false);
  });
});

describe('RestCatalog end to end with real snapshots in MinIO', () => {
  const snapshotNamespace = [`${namespace[0]}_snap`];
  const id = { namespace: snapshotNamespace, name: 'numbers' };

  async function write(session: DuckDbSession, metadata: TableMetadata, from: number, count: number): Promise<DataFile[]> {
    return writeDataFiles({
      session,
      query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS name FROM range(${from}, ${from + count})`,
      schema,
      specId: metadata.defaultSpecId,
      dataLocation: `${metadata.location.replace(/\/+$/, '')}/data`,
      io,
      properties: metadata.properties,
      writerName: 'rest-catalog-client-test',
    });
  }

  it('creates a table with its first snapshot (stage-create + assert-create), appends, and reads counts back', async () => {
    await catalog.createNamespace(snapshotNamespace);
    const session = await DuckDbSession.open();
    try {
      const staged = await catalog.stageCreateTable(id, { schema });
      expect(await catalog.tableExists(id)).toBe(false);
      expect(staged.location).toMatch(/^s3:\/\//);

      const first = await commitSnapshot({
        catalog,
        identifier: id,
        base: { metadata: staged, io, create: true },
        mode: 'append',
        addedFiles: await write(session, staged, 0, 1000),
      });
      expect(await catalog.tableExists(id)).toBe(true);

      const loaded = await catalog.loadTable(id);
      expect(loaded.metadata.currentSnapshotId).toBe(first.snapshot.snapshotId);
      const second = await commitSnapshot({
        catalog,
        identifier: id,
        base: { metadata: loaded.metadata, io, create: false },
        mode: 'append',
        addedFiles: await write(session, loaded.metadata, 1000, 500),
      });
      expect(second.snapshot.parentSnapshotId).toBe(first.snapshot.snapshotId);

      const reloaded = await catalog.loadTable(id);
      expect(reloaded.metadata.currentSnapshotId).toBe(second.snapshot.snapshotId);
      expect(reloaded.metadata.snapshots.map((s) => s.snapshotId)).toEqual([first.snapshot.snapshotId, second.snapshot.snapshotId]);
      const live = await liveDataFiles(reloaded.io, reloaded.metadata);
      expect(live.reduce((n, file) => n + file.recordCount, 0n)).toBe(1500n);
      const atFirst = await liveDataFiles(reloaded.io, reloaded.metadata, first.snapshot.snapshotId);
      expect(atFirst.reduce((n, file) => n + file.recordCount, 0n)).toBe(1000n);
      for (const file of live) expect(await io.exists(file.filePath)).toBe(true);
    } finally {
      session.close();
    }
    await catalog.dropTable(id, true);
    await catalog.dropNamespace(snapshotNamespace);
  });
});
