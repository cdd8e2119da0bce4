/**
 * add-files on S3 (the stack's MinIO): Parquet files uploaded beside a table whose warehouse is
 * on S3 are registered without rewriting, and only their footers are read — per file, the bytes
 * read through the FileIO are the 8-byte tail plus the footer, not the file. The rows read back
 * are the files' rows; a bad file refuses the request with its name. The built CLI adds an S3
 * prefix's files to a table of the stack's REST catalog (needs npm run build).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestCatalog } from '../../catalog/rest/rest-catalog.js';
import { SqlCatalog } from '../../catalog/sql/index.js';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { S3FileIO } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { InvalidInputError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive } from '../../src/iceberg/types.js';
import { addFiles } from '../../src/table/add-files.js';
import { openTableRows } from '../../src/table/table-rows.js';
import { thund } from '../e2e/cli.js';
import { TEST_S3_STORAGE_BLOCK, testS3Bucket, testS3FileIOOptions } from '../stack/s3-env.js';
import { requireServiceEnv } from '../stack/service.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'events' };

/** Counts the bytes each location gave through read and readRange. */
class CountingFileIO implements FileIO {
  readonly bytesRead = new Map<string, number>();
  constructor(private readonly inner: S3FileIO) {}
  private count(location: string, bytes: Uint8Array): Uint8Array {
    this.bytesRead.set(location, (this.bytesRead.get(location) ?? 0) + bytes.length);
    return bytes;
  }
  async read(location: string): Promise<Uint8Array> {
    return this.count(location, await this.inner.read(location));
  }
  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    return this.count(location, await this.inner.readRange(location, offset, length));
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
    return this.inner.delete(location);
  }
}

let s3: S3FileIO;
let io: CountingFileIO;
let catalog: SqlCatalog;
let session: DuckDbSession;
let work: string;
let root: string;

const ROWS = (from: number, count: number) =>
  `SELECT range::BIGINT AS id, md5(range::VARCHAR) AS payload, (range * 0.5)::DOUBLE AS score FROM range(${from}, ${from + count})`;

beforeAll(async () => {
  s3 = new S3FileIO(testS3FileIOOptions());
  io = new CountingFileIO(s3);
  work = mkdtempSync(join(tmpdir(), 'thund-add-files-s3-'));
  root = `s3://${testS3Bucket()}/it-add-files/${randomUUID()}`;
  catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: `${root}/warehouse`, io });
  session = await DuckDbSession.open({ threads: 1 });
  await catalog.createNamespace(['db']);
  const { fields } = assignFreshIds([
    { name: 'id', required: true, type: primitive('long') },
    { name: 'payload', required: false, type: primitive('string') },
    { name: 'score', required: false, type: primitive('double') },
  ]);
  await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields } });
});

afterAll(async () => {
  session?.close();
  await catalog?.close();
  s3?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

async function upload(name: string, query: string, ids: boolean): Promise<string> {
  const local = join(work, name);
  await session.run(`COPY (${query}) TO ${quoteLiteral(local)} (FORMAT parquet, ROW_GROUP_SIZE 20000${ids ? ', FIELD_IDS {id: 1, payload: 2, score: 3}' : ''})`);
  const location = `${root}/incoming/${name}`;
  await s3.writeNewFromFile(location, local);
  return location;
}

/** The 8-byte tail plus the footer length it states. */
async function footerBytes(location: string): Promise<number> {
  const size = Number(await s3.length(location));
  const tail = await s3.readRange(location, size - 8, 8);
  return 8 + new DataView(tail.buffer, tail.byteOffset, 4).getUint32(0, true);
}

describe('add-files on S3', () => {
  it('reads only each file footer, and the rows read back are the files rows', async () => {
    const files = [await upload('a.parquet', ROWS(0, 60_000), true), await upload('b.parquet', ROWS(60_000, 40_000), false)];
    io.bytesRead.clear();
    const table = await catalog.loadTable(ID);
    const result = await addFiles({ catalog, identifier: ID, table, locations: files });
    expect(result.plan.rows).toBe(100_000n);
    for (const location of files) {
      const size = Number(await s3.length(location));
      expect(size).toBeGreaterThan(1_000_000);
      expect(io.bytesRead.get(location)).toBe(await footerBytes(location));
      expect(io.bytesRead.get(location)!).toBeLessThan(size / 100);
    }

    const loaded = await catalog.loadTable(ID);
    const rows = await openTableRows({ session, io: s3, metadata: loaded.metadata });
    try {
      const [got] = await session.queryJson(`SELECT count(*)::INTEGER AS n, sum(id)::BIGINT AS ids, count(DISTINCT payload)::INTEGER AS payloads FROM (${rows.sql})`);
      const [want] = await session.queryJson(`SELECT count(*)::INTEGER AS n, sum(id)::BIGINT AS ids, count(DISTINCT payload)::INTEGER AS payloads FROM (${ROWS(0, 100_000)})`);
      expect(got).toEqual(want);
      const mismatched = await session.queryJson(`SELECT count(*)::INTEGER AS n FROM (${rows.sql}) t WHERE t.payload <> md5(t.id::VARCHAR) OR t.score <> t.id * 0.5`);
      expect(mismatched).toEqual([{ n: 0 }]);
    } finally {
      await rows.release();
    }
  });

  it('refuses a file that does not fit the schema, naming it', async () => {
    const bad = await upload('bad.parquet', `SELECT range::VARCHAR AS payload FROM range(10)`, false);
    const table = await catalog.loadTable(ID);
    const before = table.metadata.currentSnapshotId;
    const error = await addFiles({ catalog, identifier: ID, table, locations: [bad] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe(`Cannot add ${bad}: column id is required by the table but missing from the file`);
    expect((await catalog.loadTable(ID)).metadata.currentSnapshotId).toBe(before);
  });
});

describe('thund add-files with an S3 prefix, through the REST catalog', () => {
  it('adds every Parquet object under the prefix and prints the summary line', async () => {
    const namespace = `add_files_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const identifier: TableIdentifier = { namespace: [namespace], name: 'landed' };
    const rest = await RestCatalog.connect({ uri: requireServiceEnv('THUND_TEST_REST_URI'), io: s3 });
    try {
      await rest.createNamespace([namespace]);
      const { fields } = assignFreshIds([
        { name: 'id', required: true, type: primitive('long') },
        { name: 'payload', required: false, type: primitive('string') },
        { name: 'score', required: false, type: primitive('double') },
      ]);
      await rest.createTable(identifier, { schema: { schemaId: 0, identifierFieldIds: [], fields } });
      const prefix = `${root}/cli/${namespace}/`;
      for (const [i, from] of [0, 500, 900].entries()) {
        const local = join(work, `cli-${namespace}-${i}.parquet`);
        await session.run(`COPY (${ROWS(from, 50)}) TO ${quoteLiteral(local)} (FORMAT parquet)`);
        await s3.writeNewFromFile(`${prefix}${i === 2 ? 'nested/' : ''}part-${i}.parquet`, local);
      }
      await s3.writeNew(`${prefix}notes.txt`, new TextEncoder().encode('not parquet, not named .parquet'));
      const spec = join(work, `${namespace}.yaml`);
      writeFileSync(
        spec,
        `pipeline: add_files
catalog:
  type: rest
  uri: \${THUND_TEST_REST_URI}
${TEST_S3_STORAGE_BLOCK}`,
      );
      const result = thund(['add-files', `${namespace}.landed`, prefix, '--pipeline', spec], work);
      expect(result.stderr).toBe('');
      const loaded = await rest.loadTable(identifier);
      expect(result.stdout).toMatch(new RegExp(`^add-files: 3 files, 150 rows, \\d+ bytes → snapshot ${loaded.metadata.currentSnapshotId}\n$`));
      const rows = await openTableRows({ session, io: s3, metadata: loaded.metadata });
      try {
        const got = await session.queryJson(`SELECT id::INTEGER AS id FROM (${rows.sql}) ORDER BY id`);
        const want = await session.queryJson(`SELECT id::INTEGER AS id FROM (${ROWS(0, 50)} UNION ALL ${ROWS(500, 50)} UNION ALL ${ROWS(900, 50)}) ORDER BY id`);
        expect(got).toEqual(want);
      } finally {
        await rows.release();
      }
    } finally {
      await rest.close();
    }
  });
});
