/**
 * GlueCatalog against the test stack: Glue is moto (which enforces UpdateTable's VersionId),
 * metadata and data files live in MinIO through S3FileIO. Namespaces, create/load/commit, the
 * optimistic lock between two writers from the same base, and real snapshots read back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetDatabaseCommand, GetTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { GlueCatalog } from '../../catalog/glue/glue-catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import {
  AlreadyExistsError,
  CommitConflictError,
  CommitStateUnknownError,
  InvalidInputError,
  NoSuchNamespaceError,
  NoSuchTableError,
  ThundError,
} from '../../src/errors.js';
import type { DataFile } from '../../src/iceberg/data-file.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { commitSnapshot } from '../../src/table/commit-snapshot.js';
import { liveDataFiles } from '../../src/table/scan.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { testS3Bucket, testS3FileIOOptions } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';
import { objectsUnder } from './behaviour/s3-objects.js';

const schema: Schema = {
  schemaId: 0,
  identifierFieldIds: [],
  fields: [
    { id: 1, name: 'id', required: true, type: primitive('long') },
    { id: 2, name: 'name', required: false, type: primitive('string') },
  ],
};

const run = randomUUID().slice(0, 8);
let io: S3FileIO;
let warehouse: string;
const catalogs: GlueCatalog[] = [];

function glueOptions() {
  return {
    endpoint: requireServiceEnv('THUND_TEST_GLUE_ENDPOINT'),
    region: requireServiceEnv('THUND_TEST_AWS_REGION'),
    credentials: { accessKeyId: requireServiceEnv('THUND_TEST_AWS_ACCESS_KEY'), secretAccessKey: requireServiceEnv('THUND_TEST_AWS_SECRET_KEY') },
  };
}

function newCatalog(fileIO: FileIO = io): GlueCatalog {
  const catalog = new GlueCatalog({ name: 'glue_test', warehouse, io: fileIO, glue: glueOptions() });
  catalogs.push(catalog);
  return catalog;
}

beforeAll(() => {
  io = new S3FileIO(testS3FileIOOptions());
  warehouse = `s3://${testS3Bucket()}/it-glue-catalog/${run}`;
});

afterAll(async () => {
  for (const catalog of catalogs) await catalog.close();
  io?.close();
});

/** A FileIO whose metadata-file writes wait until `parties` of them have happened: both writers hold the same Glue VersionId. */
function barrierIO(inner: FileIO, barrier: { waiting: (() => void)[]; parties: number; written: string[] }): FileIO {
  return {
    read: (l) => inner.read(l),
    exists: (l) => inner.exists(l),
    length: (l) => inner.length(l),
    delete: (l) => inner.delete(l),
    async writeNew(location, bytes) {
      await inner.writeNew(location, bytes);
      if (!location.endsWith('.metadata.json')) return;
      barrier.written.push(location);
      await new Promise<void>((resolve) => {
        barrier.waiting.push(resolve);
        if (barrier.waiting.length >= barrier.parties) for (const release of barrier.waiting) release();
      });
    },
  };
}

/**
 * A loopback proxy in front of moto. `fault(target)` decides per Glue call (X-Amz-Target, e.g.
 * "AWSGlue.UpdateTable"): 'pass', 'drop-after' (forward, let moto apply it, then cut the
 * connection before the answer) or 'fail-503' (answer 503 without forwarding); `body` is the request's JSON.
 */
async function glueProxy(fault: (target: string, body: string) => 'pass' | 'drop-after' | 'fail-503'): Promise<{ endpoint: string; server: Server }> {
  const upstream = new URL(requireServiceEnv('THUND_TEST_GLUE_ENDPOINT'));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const action = fault(String(req.headers['x-amz-target'] ?? ''), Buffer.concat(chunks).toString('utf8'));
      if (action === 'fail-503') {
        res.writeHead(503, { 'content-type': 'application/x-amz-json-1.1' }).end('{"__type":"InternalServiceException","message":"injected"}');
        return;
      }
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            if (action === 'drop-after') {
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      forward.on('error', () => req.socket.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function proxiedCatalog(endpoint: string): GlueCatalog {
  const catalog = new GlueCatalog({ name: 'glue_test', warehouse, io, glue: { ...glueOptions(), endpoint } });
  catalogs.push(catalog);
  return catalog;
}

describe('GlueCatalog (moto Glue + MinIO)', () => {
  it('creates, lists, finds and drops namespaces; rejects multi-level ones', async () => {
    const catalog = newCatalog();
    const ns = [`thund_ns_${run}`];
    expect(await catalog.namespaceExists(ns)).toBe(false);
    await catalog.createNamespace(ns, { owner: 'thund' });
    expect(await catalog.namespaceExists(ns)).toBe(true);
    expect(await catalog.listNamespaces()).toContainEqual(ns);
    expect(await catalog.listNamespaces(ns)).toEqual([]);
    await expect(catalog.createNamespace(ns)).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(catalog.createNamespace(['a', 'b'])).rejects.toBeInstanceOf(InvalidInputError);
    await catalog.dropNamespace(ns);
    expect(await catalog.namespaceExists(ns)).toBe(false);
    await expect(catalog.dropNamespace(ns)).rejects.toBeInstanceOf(NoSuchNamespaceError);
  });

  it('creates a table, loads it back, commits properties, and refuses to drop a non-empty namespace', async () => {
    const catalog = newCatalog();
    const namespace = [`thund_tbl_${run}`];
    await catalog.createNamespace(namespace);
    const id = { namespace, name: 'events' };
    const created = await catalog.createTable(id, { schema, properties: { 'created-by': 'thund-test' } });
    expect(created.metadataLocation.startsWith(`${warehouse}/${namespace[0]}.db/events/metadata/00000-`)).toBe(true);
    expect(created.metadataLocation).toMatch(/\.metadata\.json$/);
    expect(await io.exists(created.metadataLocation)).toBe(true);
    expect(await catalog.tableExists(id)).toBe(true);
    expect(await catalog.listTables(namespace)).toEqual([{ namespace, name: 'events' }]);
    await expect(catalog.createTable(id, { schema })).rejects.toBeInstanceOf(AlreadyExistsError);

    // The Glue table looks like one Java's GlueCatalog writes.
    const glue = new GlueClient(glueOptions());
    try {
      const { Table } = await glue.send(new GetTableCommand({ DatabaseName: namespace[0], Name: 'events' }));
      expect(Table?.TableType).toBe('EXTERNAL_TABLE');
      expect(Table?.Parameters?.['table_type']).toBe('ICEBERG');
      expect(Table?.Parameters?.['metadata_location']).toBe(created.metadataLocation);
    } finally {
      glue.destroy();
    }

    const loaded = await newCatalog().loadTable(id);
    expect(loaded.metadataLocation).toBe(created.metadataLocation);
    expect(loaded.metadata.tableUuid).toBe(created.metadata.tableUuid);
    expect(loaded.metadata.properties['created-by']).toBe('thund-test');
    const current = loaded.metadata.schemas.find((s) => s.schemaId === loaded.metadata.currentSchemaId);
    expect(current?.fields.map((f) => ({ id: f.id, name: f.name, required: f.required, type: f.type }))).toEqual(
      schema.fields.map((f) => ({ id: f.id, name: f.name, required: f.required, type: f.type })),
    );

    const committed = await catalog.commitTable(
      id,
      [{ type: 'assert-table-uuid', uuid: loaded.metadata.tableUuid }],
      [{ action: 'set-properties', updates: { owner: 'ops' } }],
    );
    expect(committed.metadataLocation).toMatch(/\/metadata\/00001-[0-9a-f-]{36}\.metadata\.json$/);
    const after = await newCatalog().loadTable(id);
    expect(after.metadataLocation).toBe(committed.metadataLocation);
    expect(after.metadata.properties['owner']).toBe('ops');
    expect(after.metadata.properties['created-by']).toBe('thund-test');

    const missing = await catalog.loadTable({ namespace, name: 'missing' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NoSuchTableError);
    expect((missing as NoSuchTableError).message).toContain(`${namespace[0]}.missing`);

    const notEmpty = await catalog.dropNamespace(namespace).catch((e: unknown) => e);
    expect(notEmpty).toBeInstanceOf(ThundError);
    expect((notEmpty as ThundError).code).toBe('NAMESPACE_NOT_EMPTY');
    await catalog.dropTable(id);
    expect(await catalog.tableExists(id)).toBe(false);
    await expect(catalog.dropTable(id)).rejects.toBeInstanceOf(NoSuchTableError);
    await catalog.dropNamespace(namespace);
  });

  it('lets exactly one of two writers from the same Glue version win; the loser gets CommitConflictError', async () => {
    const namespace = [`thund_cas_${run}`];
    const setup = newCatalog();
    await setup.createNamespace(namespace);
    const id = { namespace, name: 'contended' };
    const base = await setup.createTable(id, { schema });

    // Both writers read the same VersionId, then both UpdateTable: only Glue's lock decides.
    const barrier = { waiting: [] as (() => void)[], parties: 2, written: [] as string[] };
    const writers = [newCatalog(barrierIO(io, barrier)), newCatalog(barrierIO(io, barrier))];
    const results = await Promise.allSettled(
      writers.map((w, i) => w.commitTable(id, [], [{ action: 'set-properties', updates: { writer: String(i) } }])),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toBeInstanceOf(CommitConflictError);

    const winner = won[0]?.status === 'fulfilled' ? won[0].value : undefined;
    const table = await setup.loadTable(id);
    expect(table.metadataLocation).toBe(winner?.metadataLocation);
    expect(table.metadata.properties['writer']).toBe(winner?.metadata.properties['writer']);
    expect(table.metadata.tableUuid).toBe(base.metadata.tableUuid);
    expect(table.metadata.metadataLog.map((e) => e.metadataFile)).toEqual([base.metadataLocation]);
    // Both wrote a metadata file; the loser's is removed again, the winner's stays.
    expect(barrier.written).toHaveLength(2);
    for (const location of barrier.written) expect(await io.exists(location)).toBe(location === winner?.metadataLocation);

    // A stale requirement after the fact also conflicts, and leaves the table as it was.
    await expect(
      setup.commitTable(id, [{ type: 'assert-current-schema-id', currentSchemaId: 7 }], [{ action: 'set-properties', updates: { x: 'y' } }]),
    ).rejects.toBeInstanceOf(CommitConflictError);
    expect((await setup.loadTable(id)).metadataLocation).toBe(table.metadataLocation);
  });

  it('creates a table with its first snapshot (stage-create + assert-create), appends, and sums the rows', async () => {
    const catalog = newCatalog();
    const namespace = [`thund_snap_${run}`];
    await catalog.createNamespace(namespace);
    const id = { namespace, name: 'numbers' };
    const session = await DuckDbSession.open();
    const write = (metadata: TableMetadata, from: number, count: number): Promise<DataFile[]> =>
      writeDataFiles({
        session,
        query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS name FROM range(${from}, ${from + count})`,
        schema,
        specId: metadata.defaultSpecId,
        dataLocation: `${metadata.location}/data`,
        io,
        properties: metadata.properties,
        writerName: 'glue-catalog-test',
      });
    try {
      const staged = await catalog.stageCreateTable(id, { schema });
      expect(await catalog.tableExists(id)).toBe(false);
      const first = await commitSnapshot({
        catalog,
        identifier: id,
        base: { metadata: staged, io, create: true },
        mode: 'append',
        addedFiles: await write(staged, 0, 1000),
      });
      const loaded = await catalog.loadTable(id);
      expect(loaded.metadata.currentSnapshotId).toBe(first.snapshot.snapshotId);
      const second = await commitSnapshot({
        catalog,
        identifier: id,
        base: { metadata: loaded.metadata, io, create: false },
        mode: 'append',
        addedFiles: await write(loaded.metadata, 1000, 500),
      });
      expect(second.snapshot.parentSnapshotId).toBe(first.snapshot.snapshotId);

      const reloaded = await newCatalog().loadTable(id);
      expect(reloaded.metadata.snapshots.map((s) => s.snapshotId)).toEqual([first.snapshot.snapshotId, second.snapshot.snapshotId]);
      const live = await liveDataFiles(reloaded.io, reloaded.metadata);
      expect(live.reduce((n, file) => n + file.recordCount, 0n)).toBe(1500n);
      const atFirst = await liveDataFiles(reloaded.io, reloaded.metadata, first.snapshot.snapshotId);
      expect(atFirst.reduce((n, file) => n + file.recordCount, 0n)).toBe(1000n);

      // A second assert-create for the same name conflicts.
      const again = await catalog.commitTable(id, [{ type: 'assert-create' }], []).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(CommitConflictError);
    } finally {
      session.close();
    }
  });

  it('never deletes a metadata file Glue may reference: lost answers and 503s on UpdateTable', async () => {
    const namespace = [`thund_fault_${run}`];
    const setup = newCatalog();
    await setup.createNamespace(namespace);
    const id = { namespace, name: 'faulty' };
    await setup.createTable(id, { schema });

    // UpdateTable applies but its answer is lost; the SDK's retry then meets a stale VersionId.
    let drops = 1;
    const lossy = await glueProxy((target) => (target.endsWith('.UpdateTable') && drops-- > 0 ? 'drop-after' : 'pass'));
    try {
      const outcome = await proxiedCatalog(lossy.endpoint)
        .commitTable(id, [], [{ action: 'set-properties', updates: { step: 'lost-answer' } }])
        .then((t) => t.metadataLocation, (e: unknown) => e);
      const after = await setup.loadTable(id);
      expect(after.metadata.properties['step']).toBe('lost-answer');
      expect(await io.exists(after.metadataLocation)).toBe(true);
      // The catalog looked before giving up and found its own file in place: a success.
      expect(outcome).toBe(after.metadataLocation);
    } finally {
      lossy.server.close();
    }

    // Glue answers 503 to every UpdateTable: the outcome is unknown and the new file stays.
    const failing = await glueProxy((target) => (target.endsWith('.UpdateTable') ? 'fail-503' : 'pass'));
    try {
      const before = await setup.loadTable(id);
      const error = await proxiedCatalog(failing.endpoint)
        .commitTable(id, [], [{ action: 'set-properties', updates: { step: 'unknown' } }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommitStateUnknownError);
      const kept = String((error as CommitStateUnknownError).context['metadataLocation']);
      expect(kept).toMatch(/\.metadata\.json$/);
      expect(await io.exists(kept)).toBe(true);
      expect((await setup.loadTable(id)).metadataLocation).toBe(before.metadataLocation);
    } finally {
      failing.server.close();
    }
  });
});

describe('GlueCatalog namespace properties, register, rename and purge (moto Glue + MinIO)', () => {
  async function rawGlue<T>(run: (glue: GlueClient) => Promise<T>): Promise<T> {
    const glue = new GlueClient(glueOptions());
    try {
      return await run(glue);
    } finally {
      glue.destroy();
    }
  }

  async function appendRows(catalog: GlueCatalog, id: { namespace: string[]; name: string }, from: number, count: number) {
    const session = await DuckDbSession.open();
    try {
      const { metadata } = await catalog.loadTable(id);
      const addedFiles = await writeDataFiles({
        session,
        query: `SELECT range::BIGINT AS id, 'row ' || range::VARCHAR AS name FROM range(${from}, ${from + count})`,
        schema,
        specId: metadata.defaultSpecId,
        dataLocation: `${metadata.location}/data`,
        io,
        properties: metadata.properties,
        writerName: 'glue-catalog-test',
      });
      return await commitSnapshot({ catalog, identifier: id, base: { metadata, io, create: false }, mode: 'append', addedFiles });
    } finally {
      session.close();
    }
  }

  async function rows(catalog: GlueCatalog, id: { namespace: string[]; name: string }): Promise<bigint> {
    const table = await catalog.loadTable(id);
    return (await liveDataFiles(table.io, table.metadata)).reduce((n, f) => n + f.recordCount, 0n);
  }

  it('maps location and comment onto the Glue database as Java does, and updates the rest as Parameters', async () => {
    const catalog = newCatalog();
    const namespace = [`thund_props_${run}`];
    const location = `${warehouse}/props-here`;
    await catalog.createNamespace(namespace, { owner: 'a', comment: 'first', location });
    const created = await rawGlue((glue) => glue.send(new GetDatabaseCommand({ Name: namespace[0] })));
    expect(created.Database?.Description).toBe('first');
    expect(created.Database?.LocationUri).toBe(location);
    expect(created.Database?.Parameters).toEqual({ owner: 'a' });
    expect(await catalog.loadNamespaceProperties(namespace)).toEqual({ owner: 'a', comment: 'first', location });

    await catalog.updateNamespaceProperties(namespace, ['owner'], { comment: 'second', team: 'x' });
    const updated = await rawGlue((glue) => glue.send(new GetDatabaseCommand({ Name: namespace[0] })));
    expect(updated.Database?.Description).toBe('second');
    expect(updated.Database?.LocationUri).toBe(location);
    expect(updated.Database?.Parameters).toEqual({ team: 'x' });
    expect(await catalog.loadNamespaceProperties(namespace)).toEqual({ team: 'x', comment: 'second', location });

    await expect(catalog.updateNamespaceProperties(namespace, ['team'], { team: 'y' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(catalog.loadNamespaceProperties([`thund_none_${run}`])).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(catalog.updateNamespaceProperties([`thund_none_${run}`], [], { a: 'b' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    expect(await catalog.loadNamespaceProperties(namespace)).toEqual({ team: 'x', comment: 'second', location });
    await catalog.dropNamespace(namespace);
  });

  it('drops without purge (files stay), registers the metadata again, renames across databases, then purges every file', async () => {
    const catalog = newCatalog();
    const source = [`thund_mv_a_${run}`];
    const target = [`thund_mv_b_${run}`];
    await catalog.createNamespace(source);
    await catalog.createNamespace(target);
    const id = { namespace: source, name: 'orders' };
    await catalog.createTable(id, { schema, properties: { owner: 'thund' } });
    await appendRows(catalog, id, 0, 100);
    await appendRows(catalog, id, 100, 50);
    const before = await catalog.loadTable(id);
    const tableLocation = before.metadata.location;
    const files = await objectsUnder(tableLocation);
    expect(files.filter((f) => f.endsWith('.parquet'))).toHaveLength(2);

    await catalog.dropTable(id);
    expect(await catalog.tableExists(id)).toBe(false);
    expect(await objectsUnder(tableLocation)).toEqual(files);

    const registered = await catalog.registerTable(id, before.metadataLocation);
    expect(registered.metadataLocation).toBe(before.metadataLocation);
    expect(await rows(catalog, id)).toBe(150n);
    await expect(catalog.registerTable(id, before.metadataLocation)).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(await io.exists(before.metadataLocation)).toBe(true);

    const moved = { namespace: target, name: 'orders_moved' };
    await catalog.renameTable(id, moved);
    expect(await catalog.tableExists(id)).toBe(false);
    expect(await catalog.listTables(source)).toEqual([]);
    expect(await catalog.listTables(target)).toEqual([moved]);
    const raw = await rawGlue((glue) => glue.send(new GetTableCommand({ DatabaseName: target[0], Name: 'orders_moved' })));
    expect(raw.Table?.TableType).toBe('EXTERNAL_TABLE');
    expect(raw.Table?.Parameters?.['table_type']).toBe('ICEBERG');
    expect(raw.Table?.Parameters?.['metadata_location']).toBe(before.metadataLocation);
    expect(raw.Table?.StorageDescriptor?.Location).toBe(tableLocation);
    expect(await rows(catalog, moved)).toBe(150n);
    await appendRows(catalog, moved, 150, 25);
    expect(await rows(newCatalog(), moved)).toBe(175n);

    const other = { namespace: target, name: 'other' };
    await catalog.createTable(other, { schema });
    await expect(catalog.renameTable(moved, other)).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(catalog.renameTable(moved, { namespace: [`thund_none_${run}`], name: 'x' })).rejects.toBeInstanceOf(NoSuchNamespaceError);
    await expect(catalog.renameTable(id, { namespace: target, name: 'x' })).rejects.toBeInstanceOf(NoSuchTableError);
    expect(await catalog.listTables(target)).toEqual([moved, other]);

    const otherFiles = await objectsUnder((await catalog.loadTable(other)).metadata.location);
    await catalog.dropTable(moved, true);
    expect(await catalog.tableExists(moved)).toBe(false);
    expect(await objectsUnder(tableLocation)).toEqual([]);
    expect(await objectsUnder((await catalog.loadTable(other)).metadata.location)).toEqual(otherFiles);
    await catalog.dropTable(other, true);
    await catalog.dropNamespace(source);
    await catalog.dropNamespace(target);
  });

  it('undoes the rename when Glue fails to delete the old table, and says so when the undo fails too', async () => {
    const namespace = [`thund_mvfail_${run}`];
    const setup = newCatalog();
    await setup.createNamespace(namespace);
    const id = { namespace, name: 'stay' };
    const created = await setup.createTable(id, { schema });
    const renameThrough = async (fault: (target: string, body: string) => 'pass' | 'fail-503'): Promise<unknown> => {
      const proxy = await glueProxy(fault);
      try {
        return await proxiedCatalog(proxy.endpoint).renameTable(id, { namespace, name: 'gone' }).catch((e: unknown) => e);
      } finally {
        proxy.server.close();
      }
    };

    // Only the old table's DeleteTable fails: the new entry is removed again.
    const undone = await renameThrough((target, body) =>
      target.endsWith('.DeleteTable') && JSON.parse(body).Name === 'stay' ? 'fail-503' : 'pass',
    );
    expect(undone).toBeInstanceOf(ThundError);
    expect((undone as ThundError).code).toBe('CATALOG_ERROR');
    expect(await setup.listTables(namespace)).toEqual([id]);
    expect((await setup.loadTable(id)).metadataLocation).toBe(created.metadataLocation);

    // Every DeleteTable fails: both names remain, and the error says so naming both.
    const stuck = await renameThrough((target) => (target.endsWith('.DeleteTable') ? 'fail-503' : 'pass'));
    expect((stuck as ThundError).code).toBe('RENAME_INCOMPLETE');
    expect((stuck as ThundError).context).toMatchObject({ table: `${namespace[0]}.stay`, destination: `${namespace[0]}.gone` });
    expect(await setup.listTables(namespace)).toEqual([{ namespace, name: 'gone' }, id]);
    expect((await setup.loadTable({ namespace, name: 'gone' })).metadataLocation).toBe(created.metadataLocation);

    await setup.dropTable({ namespace, name: 'gone' });
    await setup.dropTable(id, true);
    await setup.dropNamespace(namespace);
  });
});
