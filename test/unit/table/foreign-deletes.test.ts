/**
 * Conformance of the reader's delete handling against tables other engines wrote (the shared
 * duckdb-iceberg fixtures, THUND_FIXTURES): equality deletes (unpartitioned, partitioned, scoped
 * to one partition, a delete file beside Hive-style directory names), a v3 deletion vector
 * written by Spark, and TPC-H lineitem after a Spark DELETE. The expected rows come from the
 * fixtures' own files, read here without Thund's reader: their data and delete rows as printed
 * by DuckDB, the deletion vector's bitmap parsed byte by byte, and the Q06 revenue Spark
 * reported.
 */
import { existsSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession, quoteLiteral } from '../../../src/duckdb/session.js';
import { DataFileContent } from '../../../src/iceberg/data-file.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { readTableMetadata } from '../../../src/iceberg/metadata-json.js';
import type { TableMetadata } from '../../../src/iceberg/table-metadata.js';
import { planScan } from '../../../src/table/delete-planning.js';
import { openTableRows } from '../../../src/table/table-rows.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const DUCK_ROOT = join(FIXTURES, 'duckdb-iceberg');
const PERSISTENT = join(DUCK_ROOT, 'data/persistent');

/**
 * Read-only access to a fixture table whose locations are relative to `root` (the fixtures
 * store them so); `ranges` false makes it a FileIO without readRange.
 */
function fixtureIo(root: string, ranges = true): FileIO & { readonly reads: string[] } {
  const reads: string[] = [];
  const local = (location: string): string => {
    const path = location.replace(/^file:(\/\/)?/, '');
    return isAbsolute(path) ? path : join(root, path);
  };
  const refuse = async (): Promise<never> => {
    throw new Error('fixture tables are read-only');
  };
  const io: FileIO & { reads: string[] } = {
    reads,
    read: async (location) => {
      reads.push(location);
      return readFile(local(location));
    },
    exists: async (location) => existsSync(local(location)),
    length: async (location) => BigInt((await stat(local(location))).size),
    writeNew: refuse,
    delete: refuse,
    localPathFor: (location) => local(location),
  };
  if (ranges) {
    io.readRange = async (location, offset, length) => {
      reads.push(`${location}@${offset}+${length}`);
      const handle = await open(local(location), 'r');
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    };
  }
  return io;
}

async function metadataAt(root: string, metadataFile: string): Promise<TableMetadata> {
  const path = join(root, metadataFile);
  return readTableMetadata(await readFile(path), path);
}

let session: DuckDbSession;
beforeAll(async () => {
  expect(existsSync(PERSISTENT), `fixtures folder ${PERSISTENT} (THUND_FIXTURES)`).toBe(true);
  session = await DuckDbSession.open({ threads: 1 });
});
afterAll(() => session?.close());

/** The live rows through Thund's scan, as JSON rows ordered by `orderBy`. */
async function liveRows(io: FileIO, metadata: TableMetadata, select: string, orderBy: string): Promise<Record<string, unknown>[]> {
  const rows = await openTableRows({ session, io, metadata });
  try {
    return await session.queryJson(`SELECT ${select} FROM (${rows.sql}) ORDER BY ${orderBy}`);
  } finally {
    await rows.release();
  }
}

describe('equality deletes written by Spark (equality_deletes)', () => {
  // data file 1 (seq 1): (1,a) (2,b) (3,c) (4,d); data file 2 (seq 5): (5,e) (6,f).
  // Equality deletes: seq 2 name='b'; seq 3 id=1; seq 4 (id,name)=(3,'c'); seq 6 name='f'.
  // File 1 loses a, b, c (seq 2..6 > 1); file 2 only f (seq 6 > 5; the others are older).
  const table = 'data/persistent/equality_deletes/warehouse/mydb';

  it('unpartitioned: every older data file loses the rows matching any delete, on one or two columns', async () => {
    const io = fixtureIo(DUCK_ROOT);
    const metadata = await metadataAt(DUCK_ROOT, `${table}/mytable/metadata/v7.metadata.json`);
    const plan = await planScan(io, metadata);
    const byRecords = new Map(plan.tasks.map((task) => [task.data.file.recordCount, task.deletes.map((d) => d.dataSequenceNumber).sort()]));
    expect(byRecords).toEqual(new Map([[4n, [2n, 3n, 4n, 6n]], [2n, [6n]]]));
    expect(await liveRows(io, metadata, 'id, name, bir::VARCHAR AS bir', 'id')).toEqual([
      { id: 4, name: 'd', bir: '2025-01-04' },
      { id: 5, name: 'e', bir: '2025-01-05' },
    ]);
  });

  it('partitioned: a delete applies in its own partition only, and not to data added after it', async () => {
    // One row per partition name=a..f (a..d seq 1, e and f seq 4); deletes name='b' (b, seq 2),
    // (id,name)=(3,'c') (c, seq 3), name='f' (f, seq 5).
    const io = fixtureIo(DUCK_ROOT);
    const metadata = await metadataAt(DUCK_ROOT, `${table}/mytable_partitioned/metadata/v6.metadata.json`);
    expect(await liveRows(io, metadata, 'id, name', 'id')).toEqual([
      { id: 1, name: 'a' },
      { id: 4, name: 'd' },
      { id: 5, name: 'e' },
    ]);
  });
});

describe('equality_delete_cross_partition', () => {
  it('applies a delete of a partitioned spec only in its partition: key 100 goes in part=0 and stays in part=1', async () => {
    // part=0: (0,100) (0,999); part=1: (1,100) (1,888); equality delete key=100 in part=0 only.
    const io = fixtureIo(DUCK_ROOT);
    const metadata = await metadataAt(DUCK_ROOT, 'data/persistent/equality_delete_cross_partition/warehouse/ns/t/metadata/vfinal.metadata.json');
    expect(await liveRows(io, metadata, 'part, key, val', 'part, key')).toEqual([
      { part: '0', key: '999', val: 'p0-k999' },
      { part: '1', key: '100', val: 'p1-k100' },
      { part: '1', key: '888', val: 'p1-k888' },
    ]);
  });
});

describe('equality_delete_extra_column', () => {
  it('matches on the equality column only, not on a column DuckDB would add from the val_bucket=0 directory', async () => {
    // Data (1,a) (2,b) (3,c); the delete file holds id=2 and sits in val_bucket=0/.
    const io = fixtureIo(DUCK_ROOT);
    const metadata = await metadataAt(DUCK_ROOT, 'data/persistent/equality_delete_extra_column/warehouse/ns/t/metadata/vfinal.metadata.json');
    const hive = await session.queryJson(
      `SELECT * FROM read_parquet(${quoteLiteral(join(PERSISTENT, 'equality_delete_extra_column/warehouse/ns/t/data/val_bucket=0/eq-delete-cc70197d-cfbc-4758-8c7e-30a34b566b89.parquet'))})`,
    );
    expect(Object.keys(hive[0]!)).toContain('val_bucket');
    expect(await liveRows(io, metadata, 'id, val', 'id')).toEqual([
      { id: '1', val: 'a' },
      { id: '3', val: 'c' },
    ]);
  });
});

describe('legacy_bare_deletion_vector (v3, Spark)', () => {
  const dir = join(PERSISTENT, 'legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector');

  /**
   * The positions of the fixture's one-container vector, parsed here from the bytes: length,
   * magic D1 D3 39 64, one 64-bit bucket, cookie 12346 with one array container.
   */
  async function fixturePositions(): Promise<number[]> {
    const blob = await readFile(join(dir, 'data/legacy-bare-deletion-vector.puffin'));
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
    expect(view.getUint32(4, false)).toBe(0xd1d33964);
    expect(view.getBigUint64(8, true)).toBe(1n);
    expect(view.getUint32(16, true)).toBe(0);
    expect(view.getUint32(20, true)).toBe(12346);
    expect(view.getUint32(24, true)).toBe(1);
    const cardinality = view.getUint16(30, true) + 1;
    const start = 20 + view.getUint32(32, true);
    return Array.from({ length: cardinality }, (_, i) => view.getUint16(start + 2 * i, true));
  }

  for (const ranges of [true, false]) {
    it(`deletes the vector's positions from its data file (FileIO ${ranges ? 'with' : 'without'} readRange)`, async () => {
      const io = fixtureIo(DUCK_ROOT, ranges);
      const metadata = await metadataAt(DUCK_ROOT, 'data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector/metadata/00002-legacy-bare-dv.metadata.json');
      const plan = await planScan(io, metadata);
      expect(plan.tasks).toHaveLength(1);
      expect(plan.tasks[0]!.deletes.map((d) => [d.file.fileFormat, d.file.content])).toEqual([['PUFFIN', DataFileContent.PositionDeletes]]);

      const positions = await fixturePositions();
      expect(positions).toEqual([1]);
      const expected = await session.queryJson(
        `SELECT id, source FROM read_parquet(${quoteLiteral(join(dir, 'data/00000-0-cac6cfea-266f-44f8-9a3a-70dd8fb68014.parquet'))}, file_row_number = true) ` +
          `WHERE file_row_number NOT IN (${positions.join(', ')}) ORDER BY id`,
      );
      expect(expected).toEqual([
        { id: '1', source: 'legacy' },
        { id: '3', source: 'legacy' },
      ]);
      expect(await liveRows(io, metadata, 'id, source', 'id')).toEqual(expected);
      expect(io.reads.some((read) => read.includes('legacy-bare-deletion-vector.puffin'))).toBe(true);
    });
  }

  it('gives the live rows with their positions, and release() drops the positions table', async () => {
    const io = fixtureIo(DUCK_ROOT);
    const metadata = await metadataAt(DUCK_ROOT, 'data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector/metadata/00002-legacy-bare-dv.metadata.json');
    const tempTables = async (): Promise<number> =>
      Number((await session.queryJson(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name LIKE '__thund_dv_%'`))[0]!['n']);
    const before = await tempTables();
    const rows = await openTableRows({ session, io, metadata, positions: true });
    expect(await tempTables()).toBe(before + 1);
    try {
      expect(await session.queryJson(`SELECT id, __thund_pos::INTEGER AS pos FROM (${rows.sql}) ORDER BY id`)).toEqual([
        { id: '1', pos: 0 },
        { id: '3', pos: 2 },
      ]);
    } finally {
      await rows.release();
    }
    expect(await tempTables()).toBe(before);
  });
});

describe('iceberg/lineitem_iceberg (TPC-H SF0.01 after a Spark DELETE)', () => {
  it('reads the rows Spark left: TPC-H Q06 revenue is 1077536.9101', async () => {
    const root = join(PERSISTENT, 'iceberg');
    const io = fixtureIo(root);
    const metadata = await metadataAt(root, 'lineitem_iceberg/metadata/v2.metadata.json');
    const rows = await openTableRows({ session, io, metadata });
    try {
      const [q06] = await session.queryJson(
        `SELECT sum(l_extendedprice * l_discount)::VARCHAR AS revenue, (SELECT count(*) FROM (${rows.sql}))::INTEGER AS n, ` +
          `(SELECT min(l_extendedprice) FROM (${rows.sql}))::DOUBLE AS lowest FROM (${rows.sql}) ` +
          `WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24`,
      );
      expect(q06).toEqual({ revenue: '1077536.9101', n: 51793, lowest: expect.any(Number) });
      // The DELETE removed every row with l_extendedprice < 10000.
      expect(q06!['lowest']).toBeGreaterThanOrEqual(10000);
    } finally {
      await rows.release();
    }
  });
});
