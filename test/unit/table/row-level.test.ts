/**
 * Row-level operations against the real SQLite catalog and local files: deleteWhere and upsert
 * under merge-on-read and copy-on-write, read back through Thund's own scan (deletes applied),
 * with expected rows computed independently by DuckDB over the same generated data.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog, TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { CommitConflictError, InvalidInputError } from '../../../src/errors.js';
import { DataFileContent, type DataFile } from '../../../src/iceberg/data-file.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { planScan } from '../../../src/table/delete-planning.js';
import { deleteWhere } from '../../../src/table/delete-where.js';
import { dataLocation } from '../../../src/table/locations.js';
import { parseRowFilter } from '../../../src/table/row-filter.js';
import type { RowOperationTarget } from '../../../src/table/row-operation.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { upsert } from '../../../src/table/upsert.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';

const ID: TableIdentifier = { namespace: ['db'], name: 't' };
const COW = { 'write.delete.mode': 'copy-on-write', 'write.update.mode': 'copy-on-write' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;
beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'rows', namespaces: [['db']] })));
afterEach(() => warehouse.close());

async function createTable(properties: Record<string, string> = {}, id: TableIdentifier = ID): Promise<void> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'label', required: false, type: primitive('string') },
  ]);
  await catalog.createTable(id, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties });
}

/** Rows id in [from, from + count), label 'v<version>-<id>'. */
const rowsSql = (from: number, count: number, version = 0): string =>
  `SELECT range::BIGINT AS id, 'v${version}-' || range AS label FROM range(${from}, ${from + count})`;

async function writeRows(query: string, id: TableIdentifier = ID): Promise<DataFile[]> {
  const { metadata } = await catalog.loadTable(id);
  return writeDataFiles({
    session,
    query,
    schema: currentSchema(metadata),
    specId: 0,
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
}

async function append(files: DataFile[], id: TableIdentifier = ID, via: Catalog = catalog) {
  const table = await catalog.loadTable(id);
  return commitSnapshot({ catalog: via, identifier: id, base: { metadata: table.metadata, io, create: false }, mode: 'append', addedFiles: files });
}

const target = (id: TableIdentifier = ID, via: Catalog = catalog): RowOperationTarget => ({ catalog: via, identifier: id, io, session });

/** The table's rows through Thund's scan, sorted by id. */
async function scanRows(id: TableIdentifier = ID): Promise<Record<string, unknown>[]> {
  const { metadata } = await catalog.loadTable(id);
  const rows = await openTableRows({ session, io, metadata });
  try {
    return await session.queryJson(`SELECT * FROM (${rows.sql}) ORDER BY id, label`);
  } finally {
    await rows.release();
  }
}

const expected = (sql: string): Promise<Record<string, unknown>[]> => session.queryJson(`SELECT * FROM (${sql}) ORDER BY id, label`);

/** Three files: ids 0–29, 30–59, 60–89. */
async function seed(id: TableIdentifier = ID): Promise<void> {
  for (const from of [0, 30, 60]) await append(await writeRows(rowsSql(from, 30), id), id);
}

describe('deleteWhere', () => {
  it('writes one sorted position delete file per partition, removes a fully matched file, and our scan applies both', async () => {
    await createTable();
    await seed();
    const result = await deleteWhere(target(), 'id % 10 = 3 OR id BETWEEN 60 AND 89');
    expect(result.mode).toBe('merge-on-read');
    expect(result.snapshot?.summary).toMatchObject({
      operation: 'delete',
      'added-delete-files': '1',
      'added-position-delete-files': '1',
      'added-position-deletes': '6',
      'deleted-data-files': '1',
      'deleted-records': '30',
      'total-records': '60',
      'total-data-files': '2',
      'total-delete-files': '1',
      'total-position-deletes': '6',
    });
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE NOT (id % 10 = 3 OR id BETWEEN 60 AND 89)`));
    for (const file of result.addedDeleteFiles) {
      expect(file.content).toBe(DataFileContent.PositionDeletes);
      // unpartitioned: both partially matched data files share the one partition, so one file
      expect(file.referencedDataFile).toBeUndefined();
      const local = io.localPathFor(file.filePath)!;
      const rows = await session.queryJson(`SELECT file_path, pos::INTEGER AS pos FROM read_parquet('${local}')`);
      const sorted = [...rows].sort((a, b) => (a['file_path'] === b['file_path'] ? Number(a['pos']) - Number(b['pos']) : String(a['file_path']) < String(b['file_path']) ? -1 : 1));
      expect(rows).toEqual(sorted);
      expect(new Set(rows.map((row) => row['file_path'])).size).toBe(2);
      const ids = await session.queryJson(`SELECT name, field_id FROM parquet_schema('${local}') WHERE name IN ('file_path', 'pos') ORDER BY name`);
      expect(ids).toEqual([
        { name: 'file_path', field_id: '2147483546' },
        { name: 'pos', field_id: '2147483545' },
      ]);
    }
  });

  it('deletes again over earlier deletes without counting rows twice', async () => {
    await createTable();
    await seed();
    await deleteWhere(target(), 'id < 5');
    const second = await deleteWhere(target(), 'id < 10');
    expect(second.deletedRows).toBe(5n);
    expect(second.snapshot?.summary['added-position-deletes']).toBe('5');
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id >= 10`));
    // the rest of the first file: every live row matches, so the file goes, not 20 more positions
    const third = await deleteWhere(target(), 'id < 30');
    expect(third.deletedRows).toBe(20n);
    expect(third.removedDataFiles).toHaveLength(1);
    expect(third.addedDeleteFiles).toHaveLength(0);
    expect(third.snapshot?.summary).toMatchObject({ operation: 'delete', 'deleted-data-files': '1', 'deleted-records': '30', 'total-records': '60' });
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id >= 30`));
  });

  it('commits nothing when no row matches', async () => {
    await createTable();
    await seed();
    const result = await deleteWhere(target(), 'id > 1000');
    expect(result.snapshot).toBeUndefined();
    expect((await catalog.loadTable(ID)).metadata.snapshots).toHaveLength(3);
  });

  it('reads only the files whose bounds can match', async () => {
    await createTable();
    await seed();
    const { metadata } = await catalog.loadTable(ID);
    const plan = await planScan(io, metadata, { filter: await parseRowFilter(session, currentSchema(metadata), 'id = 42 AND label IS NOT NULL') });
    expect(plan.liveDataFileCount).toBe(3);
    expect(plan.tasks).toHaveLength(1);
    const between = await planScan(io, metadata, { filter: await parseRowFilter(session, currentSchema(metadata), 'id IN (1, 75) OR id > 200') });
    expect(between.tasks).toHaveLength(2);
  });

  it('refuses a predicate that is not SQL', async () => {
    await createTable();
    await seed();
    await expect(deleteWhere(target(), 'id = = 3')).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe('upsert', () => {
  it('leaves exactly one row per key after three upserts over the same keys', async () => {
    await createTable();
    await seed();
    for (const version of [1, 2, 3]) {
      const result = await upsert(target(), { keyColumns: ['id'], sourceQuery: rowsSql(20, 50, version) });
      expect(result.snapshot?.summary.operation).toBe('overwrite');
      expect(result.addedRows).toBe(50n);
    }
    const rows = await scanRows();
    expect(new Set(rows.map((row) => row['id'])).size).toBe(rows.length);
    expect(rows).toEqual(
      await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id NOT BETWEEN 20 AND 69 UNION ALL ${rowsSql(20, 50, 3)}`),
    );
  });

  it('adds unmatched keys and replaces matched ones', async () => {
    await createTable();
    await seed();
    await upsert(target(), { keyColumns: ['id'], sourceQuery: rowsSql(80, 20, 1) });
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 80)}) UNION ALL ${rowsSql(80, 20, 1)}`));
  });

  it('matches on every column of a composite key', async () => {
    await createTable();
    await seed();
    // (id, label) of ids 0–9 as seeded match; ids 10–19 with a new label do not
    const source = `SELECT id, label FROM (${rowsSql(0, 10)}) UNION ALL ${rowsSql(10, 10, 1)}`;
    const result = await upsert(target(), { keyColumns: ['id', 'label'], sourceQuery: source });
    expect(result.deletedRows).toBe(10n);
    expect(await scanRows()).toEqual(await expected(`${rowsSql(0, 90)} UNION ALL ${rowsSql(10, 10, 1)}`));
  });

  it('names a duplicate key of the source and commits nothing', async () => {
    await createTable();
    await seed();
    const source = `${rowsSql(0, 3, 1)} UNION ALL SELECT 2::BIGINT, 'again'`;
    await expect(upsert(target(), { keyColumns: ['id'], sourceQuery: source })).rejects.toThrow(/2 rows with key id=2/);
    expect((await catalog.loadTable(ID)).metadata.snapshots).toHaveLength(3);
  });
});

describe('copy-on-write', () => {
  it('gives the same rows as merge-on-read and writes no delete files', async () => {
    const cowId: TableIdentifier = { namespace: ['db'], name: 'cow' };
    await createTable();
    await createTable(COW, cowId);
    await seed();
    await seed(cowId);
    const steps = async (id: TableIdentifier) => {
      const deleted = await deleteWhere(target(id), 'id % 7 = 0 OR id < 30');
      const upserted = await upsert(target(id), { keyColumns: ['id'], sourceQuery: rowsSql(50, 60, 1) });
      return [deleted, upserted];
    };
    const [morDelete] = await steps(ID);
    const [cowDelete, cowUpsert] = await steps(cowId);
    expect(morDelete!.addedDeleteFiles.length).toBeGreaterThan(0);
    expect(cowDelete!.addedDeleteFiles).toHaveLength(0);
    expect(cowUpsert!.addedDeleteFiles).toHaveLength(0);
    expect(cowDelete!.snapshot?.summary.operation).toBe('overwrite');
    expect(cowDelete!.snapshot?.summary['total-delete-files']).toBe('0');
    expect(await scanRows(cowId)).toEqual(await scanRows(ID));
    expect(await scanRows(cowId)).toEqual(
      await expected(`SELECT * FROM (${rowsSql(30, 20)}) WHERE id % 7 <> 0 UNION ALL ${rowsSql(50, 60, 1)}`),
    );
  });
});

describe('revalidation after a concurrent commit', () => {
  /** A catalog whose first commit is preceded by another writer's append of these rows. */
  function racedBy(rows: string): Catalog {
    let raced = false;
    return Object.create(catalog, {
      commitTable: {
        value: async (...args: Parameters<Catalog['commitTable']>) => {
          if (!raced) {
            raced = true;
            await append(await writeRows(rows));
          }
          return catalog.commitTable(...args);
        },
      },
    });
  }

  it('refuses a delete when a concurrent append added rows it may match', async () => {
    await createTable();
    await seed();
    const error = await deleteWhere(target(ID, racedBy(rowsSql(5, 3, 9))), 'id < 10').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitConflictError);
    expect(String((error as Error).message)).toMatch(/may hold rows this operation matches/);
    // only the concurrent append landed
    expect((await catalog.loadTable(ID)).metadata.snapshots).toHaveLength(4);
    expect(await scanRows()).toEqual(await expected(`${rowsSql(0, 90)} UNION ALL ${rowsSql(5, 3, 9)}`));
  });

  it('retries a delete over a concurrent append that cannot hold matching rows', async () => {
    await createTable();
    await seed();
    const result = await deleteWhere(target(ID, racedBy(rowsSql(500, 10, 9))), 'id < 10');
    expect(result.attempts).toBe(2);
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 90)}) WHERE id >= 10 UNION ALL ${rowsSql(500, 10, 9)}`));
  });

  it('refuses an upsert when a concurrent delete removed a file it deletes from', async () => {
    await createTable();
    await seed();
    let raced = false;
    const racing: Catalog = Object.create(catalog, {
      commitTable: {
        value: async (...args: Parameters<Catalog['commitTable']>) => {
          if (!raced) {
            raced = true;
            await deleteWhere(target(), 'id < 30');
          }
          return catalog.commitTable(...args);
        },
      },
    });
    const error = await upsert(target(ID, racing), { keyColumns: ['id'], sourceQuery: rowsSql(25, 10, 1) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommitConflictError);
    expect(String((error as Error).message)).toMatch(/removed data file/);
    expect(await scanRows()).toEqual(await expected(`SELECT * FROM (${rowsSql(30, 60)})`));
  });
});
