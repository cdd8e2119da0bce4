/**
 * Scan planning with deletes: the sequence-number rule of spec §6.3 (a position delete applies
 * to data files with data sequence number <= its own, so never to data added later, and does
 * apply within its own commit), and deletes and pruning on a partitioned table (a delete file
 * lives in its data files' partition).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { quoteLiteral, type DuckDbSession } from '../../../src/duckdb/session.js';
import type { DataFile } from '../../../src/iceberg/data-file.js';
import type { FileIO } from '../../../src/iceberg/file-io.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { planScan } from '../../../src/table/delete-planning.js';
import { deleteWhere } from '../../../src/table/delete-where.js';
import { dataLocation } from '../../../src/table/locations.js';
import { parseRowFilter } from '../../../src/table/row-filter.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { writePositionDeletes } from '../../../src/write/position-delete-writer.js';

const ID: TableIdentifier = { namespace: ['db'], name: 't' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;
beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'scan', namespaces: [['db']] })));
afterEach(() => warehouse.close());

async function createTable(partitioned: boolean): Promise<void> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'region', required: false, type: primitive('string') },
  ]);
  const partitionSpec = partitioned
    ? { specId: 0, fields: [{ sourceId: fields[1]!.id, fieldId: 1000, name: 'region', transform: 'identity' }] }
    : undefined;
  await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, ...(partitionSpec === undefined ? {} : { partitionSpec }) });
}

/** Data files of rows id in [from, from + count) in one region (its partition when partitioned). */
async function writeRows(from: number, count: number, region: string, partitioned = false): Promise<DataFile[]> {
  const { metadata } = await catalog.loadTable(ID);
  const files = await writeDataFiles({
    session,
    query: `SELECT range::BIGINT AS id, ${quoteLiteral(region)} AS region FROM range(${from}, ${from + count})`,
    schema: currentSchema(metadata),
    specId: metadata.defaultSpecId,
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
  return partitioned ? files.map((file) => ({ ...file, partition: new Map([[1000, region]]) })) : files;
}

async function positionDeletes(file: DataFile, positions: readonly number[]): Promise<DataFile[]> {
  const { metadata } = await catalog.loadTable(ID);
  const values = positions.map((pos) => `(${quoteLiteral(file.filePath)}, ${pos})`).join(', ');
  return writePositionDeletes({
    session,
    positions: `(SELECT * FROM (VALUES ${values}) v(file_path, pos))`,
    groups: [{ specId: file.specId, partition: file.partition, dataFilePaths: [file.filePath] }],
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
}

async function commitFiles(data: DataFile[], deletes: DataFile[]) {
  const { metadata } = await catalog.loadTable(ID);
  return commitSnapshot({
    catalog,
    identifier: ID,
    base: { metadata, io, create: false },
    mode: 'row-delta',
    addedFiles: [],
    rowDelta: { addedDataFiles: data, addedDeleteFiles: deletes, removedDataFiles: [], removedDeleteFiles: [], validate: async () => {} },
  });
}

/** The same files through a FileIO with no local paths, as an object store's: reads go through staged copies. */
function remoteLike(inner: LocalFileIO): FileIO & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: async (location) => {
      reads.push(location);
      return inner.read(location);
    },
    writeNew: (location, bytes) => inner.writeNew(location, bytes),
    exists: (location) => inner.exists(location),
    length: (location) => inner.length(location),
    delete: (location) => inner.delete(location),
  };
}

async function scanIds(where?: string, via: FileIO = io): Promise<number[]> {
  const { metadata } = await catalog.loadTable(ID);
  const rows = await openTableRows({ session, io: via, metadata, ...(where === undefined ? {} : { where }) });
  try {
    return (await session.queryJson(`SELECT id::INTEGER AS id FROM (${rows.sql}) ORDER BY id`)).map((row) => Number(row['id']));
  } finally {
    await rows.release();
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('sequence-number rule', () => {
  it('does not apply a position delete to data committed after it, and applies one committed later', async () => {
    await createTable(false);
    const [data] = await writeRows(0, 10, 'a');
    const early = await positionDeletes(data!, [0, 1, 2]);
    const first = await commitFiles([], early);
    const second = await commitFiles([data!], []);
    expect(second.snapshot.sequenceNumber).toBeGreaterThan(first.snapshot.sequenceNumber);
    const { metadata } = await catalog.loadTable(ID);
    const plan = await planScan(io, metadata);
    expect(plan.tasks.map((task) => task.deletes.length)).toEqual([0]);
    expect(await scanIds()).toEqual(range(0, 10));

    await commitFiles([], await positionDeletes(data!, [0, 1, 2]));
    expect(await scanIds()).toEqual(range(3, 10));
  });

  it('applies a position delete to data added in the same commit', async () => {
    await createTable(false);
    const [data] = await writeRows(0, 10, 'a');
    await commitFiles([data!], await positionDeletes(data!, [9, 4]));
    expect(await scanIds()).toEqual([0, 1, 2, 3, 5, 6, 7, 8]);
  });
});

describe('partitioned table', () => {
  it('writes each delete file into its data files’ partition and prunes by partition value', async () => {
    await createTable(true);
    await commitFiles([...(await writeRows(0, 20, 'a', true)), ...(await writeRows(20, 20, 'b', true))], []);
    const result = await deleteWhere({ catalog, identifier: ID, io, session }, 'id % 3 = 0');
    expect(result.addedDeleteFiles.map((file) => file.partition.get(1000)).sort()).toEqual(['a', 'b']);
    expect(await scanIds()).toEqual(range(0, 40).filter((id) => id % 3 !== 0));
    expect(await scanIds("region = 'b'")).toEqual(range(20, 40).filter((id) => id % 3 !== 0));

    const { metadata } = await catalog.loadTable(ID);
    const plan = await planScan(io, metadata, { filter: await parseRowFilter(session, currentSchema(metadata), "region = 'b'") });
    expect(plan.tasks.map((task) => task.data.file.partition.get(1000))).toEqual(['b']);
    expect(plan.tasks[0]!.deletes.map((d) => d.file.partition.get(1000))).toEqual(['b']);

    const whole = await deleteWhere({ catalog, identifier: ID, io, session }, "region = 'a'");
    expect(whole.removedDataFiles).toHaveLength(1);
    expect(whole.addedDeleteFiles).toHaveLength(0);
    expect(await scanIds()).toEqual(range(20, 40).filter((id) => id % 3 !== 0));
  });
});

describe('remote FileIO', () => {
  it('deletes and reads through locally staged copies when the FileIO has no local paths', async () => {
    await createTable(false);
    await commitFiles([...(await writeRows(0, 20, 'a')), ...(await writeRows(20, 20, 'b'))], []);
    const remote = remoteLike(io);
    const result = await deleteWhere({ catalog, identifier: ID, io: remote, session }, 'id % 4 = 1 OR id >= 30');
    expect(result.addedDeleteFiles).toHaveLength(1);
    const expectedIds = range(0, 40).filter((id) => id % 4 !== 1 && id < 30);
    expect(await scanIds(undefined, remote)).toEqual(expectedIds);
    expect(remote.reads.some((location) => location.endsWith('.parquet'))).toBe(true);
    expect(await scanIds()).toEqual(expectedIds);
  });
});

describe('schema evolution', () => {
  it('reads older files by field id after a rename and an added column, deletes applied', async () => {
    await createTable(false);
    const [data] = await writeRows(0, 6, 'a');
    await commitFiles([data!], await positionDeletes(data!, [1]));
    const { metadata } = await catalog.loadTable(ID);
    const old = currentSchema(metadata);
    const evolved = {
      schemaId: 1,
      identifierFieldIds: [],
      fields: [
        old.fields[0]!,
        { ...old.fields[1]!, name: 'area' },
        { id: 3, name: 'note', required: false, type: primitive('string') },
      ],
    };
    await catalog.commitTable(
      ID,
      [{ type: 'assert-current-schema-id', currentSchemaId: 0 }],
      [
        { action: 'add-schema', schema: evolved },
        { action: 'set-current-schema', schemaId: 1 },
      ],
    );
    const table = await catalog.loadTable(ID);
    expect(currentSchema(table.metadata).fields.map((f) => f.name)).toEqual(['id', 'area', 'note']);
    const rows = await openTableRows({ session, io, metadata: table.metadata });
    try {
      expect(await session.queryJson(`SELECT id::INTEGER AS id, area, note FROM (${rows.sql}) ORDER BY id`)).toEqual(
        [0, 2, 3, 4, 5].map((id) => ({ id, area: 'a', note: null })),
      );
    } finally {
      await rows.release();
    }
  });
});

describe('a delete over earlier position deletes', () => {
  it('removes a file whole only when its matches are all its live rows, however its deletes repeat', async () => {
    await createTable(false);
    const [data] = await writeRows(0, 10, 'a');
    // Positions 0–3 are deleted, 2 and 3 twice, and 99 names no row: 6 rows live, though 4 if repeats counted.
    await commitFiles([data!], [...(await positionDeletes(data!, [0, 1, 2, 3])), ...(await positionDeletes(data!, [2, 3, 99]))]);
    const some = await deleteWhere({ catalog, identifier: ID, io, session }, 'id IN (4, 5, 6, 7)');
    expect(some.deletedRows).toBe(4n);
    expect(some.removedDataFiles).toHaveLength(0);
    expect(await scanIds()).toEqual([8, 9]);
    const rest = await deleteWhere({ catalog, identifier: ID, io, session }, 'id >= 8');
    expect(rest.removedDataFiles.map((file) => file.filePath)).toEqual([data!.filePath]);
    expect(rest.addedDeleteFiles).toHaveLength(0);
    expect(await scanIds()).toEqual([]);
  });
});
