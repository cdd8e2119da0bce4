/**
 * Which deletes apply to which data file (spec §6.3) and what the reader makes of them:
 * - the rules on their own (DeleteIndex over hand-made files): equality deletes need a strictly
 *   greater sequence number, position deletes and vectors one at least equal; a vector shadows
 *   position delete files; deletes stay in their spec and partition except equality deletes of
 *   an unpartitioned spec, which apply everywhere; two vectors for one file are refused;
 * - real rows through commits on a local table: equality deletes on one and two columns, null
 *   matching null, several equality-id sets on one file, none applied to data of their own
 *   commit; a partitioned table whose unpartitioned-spec delete applies across partitions; a v2
 *   table upgraded to v3 whose deletion vector shadows the older position delete file; a large
 *   vector; refusals naming the file.
 * Expected rows are computed by DuckDB over the generated rows, not through the reader.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { fromFileUri, type LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { quoteLiteral, type DuckDbSession } from '../../../src/duckdb/session.js';
import { IcebergFormatError } from '../../../src/errors.js';
import { DataFileContent, type DataFile, type FileFormat } from '../../../src/iceberg/data-file.js';
import { fieldIdsClause } from '../../../src/iceberg/duckdb-types.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { DeleteIndex, planScan, type LiveFile } from '../../../src/table/delete-planning.js';
import { dataLocation } from '../../../src/table/locations.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { writeDeletionVectors } from '../../../src/write/deletion-vector-writer.js';
import { writePositionDeletes } from '../../../src/write/position-delete-writer.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

describe('DeleteIndex', () => {
  let n = 0;
  const file = (content: DataFileContent, seq: bigint, extra: Partial<DataFile> = {}): LiveFile => ({
    file: {
      content,
      filePath: `file:///t/${content}-${n++}.parquet`,
      fileFormat: 'PARQUET',
      specId: 0,
      partition: new Map([[1000, 'a']]),
      recordCount: 1n,
      fileSizeInBytes: 1n,
      ...extra,
    },
    dataSequenceNumber: seq,
    snapshotId: seq,
  });
  const data = (seq: bigint, extra: Partial<DataFile> = {}): LiveFile => file(DataFileContent.Data, seq, extra);
  const equality = (seq: bigint, extra: Partial<DataFile> = {}): LiveFile => file(DataFileContent.EqualityDeletes, seq, { equalityIds: [1], ...extra });
  const position = (seq: bigint, extra: Partial<DataFile> = {}): LiveFile => file(DataFileContent.PositionDeletes, seq, extra);
  const vector = (seq: bigint, target: LiveFile, extra: Partial<DataFile> = {}): LiveFile =>
    file(DataFileContent.PositionDeletes, seq, {
      fileFormat: 'PUFFIN',
      filePath: 'file:///t/dv.puffin',
      referencedDataFile: target.file.filePath,
      contentOffset: 4n,
      contentSizeInBytes: 40n,
      specId: target.file.specId,
      partition: target.file.partition,
      ...extra,
    });
  /** Spec 0 is partitioned (identity on field 1000), spec 1 has no field, spec 2 only a void one. */
  const unpartitioned = (specId: number): boolean => specId !== 0;
  const applied = (deletes: readonly LiveFile[], target: LiveFile): LiveFile[] => new DeleteIndex(deletes, unpartitioned).forDataFile(target);

  it('applies an equality delete only to data with a strictly smaller sequence number', () => {
    const target = data(5n);
    const [older, same, newer] = [equality(4n), equality(5n), equality(6n)];
    expect(applied([older, same, newer], target)).toEqual([newer]);
  });

  it('applies a position delete to data with a smaller or equal sequence number, and only to the file it references', () => {
    const target = data(5n);
    const older = position(4n);
    const same = position(5n);
    const newer = position(6n);
    const elsewhere = position(6n, { referencedDataFile: 'file:///t/other.parquet' });
    const named = position(6n, { referencedDataFile: target.file.filePath });
    expect(applied([older, same, newer, elsewhere, named], target)).toEqual([same, newer, named]);
  });

  it('applies a deletion vector with a sequence number >= the data file, in place of every position delete file', () => {
    const target = data(5n);
    const positions = [position(5n), position(7n, { referencedDataFile: target.file.filePath })];
    const eq = equality(6n);
    const dv = vector(5n, target);
    expect(applied([...positions, eq, dv], target)).toEqual([dv, eq]);
  });

  it('does not apply a vector of an older sequence number, another file, or another partition (position deletes apply then)', () => {
    const target = data(5n);
    const pos = position(6n);
    expect(applied([pos, vector(4n, target)], target)).toEqual([pos]);
    expect(applied([pos, vector(6n, data(5n))], target)).toEqual([pos]);
    expect(applied([pos, vector(6n, target, { partition: new Map([[1000, 'b']]) })], target)).toEqual([pos]);
  });

  it('keeps deletes of a partitioned spec in their partition and spec', () => {
    const target = data(1n);
    const otherPartition = { partition: new Map([[1000, 'b']]) };
    const otherSpec = { specId: 3, partition: new Map([[1000, 'a']]) };
    const index = new DeleteIndex([equality(2n, otherPartition), position(2n, otherPartition), equality(2n, otherSpec), position(2n, otherSpec)], (id) => id === 1);
    expect(index.forDataFile(target)).toEqual([]);
  });

  it('applies an equality delete of an unpartitioned spec (no field, or only void ones) to data of every spec and partition', () => {
    const global = equality(3n, { specId: 1, partition: new Map() });
    const voidOnly = equality(3n, { specId: 2, partition: new Map([[1001, null]]) });
    const unpartitionedPosition = position(3n, { specId: 1, partition: new Map() });
    const deletes = [global, voidOnly, unpartitionedPosition];
    expect(applied(deletes, data(2n))).toEqual([global, voidOnly]);
    expect(applied(deletes, data(2n, { partition: new Map([[1000, 'z']]) }))).toEqual([global, voidOnly]);
    expect(applied(deletes, data(3n))).toEqual([]);
    expect(applied(deletes, data(1n, { specId: 1, partition: new Map() }))).toEqual([unpartitionedPosition, global, voidOnly]);
  });

  it('refuses two live deletion vectors for one data file, naming both', () => {
    const target = data(1n);
    const first = vector(2n, target, { filePath: 'file:///t/first.puffin' });
    const second = vector(3n, target, { filePath: 'file:///t/second.puffin', contentOffset: 60n });
    expect(() => new DeleteIndex([first, second], unpartitioned)).toThrow(IcebergFormatError);
    expect(() => new DeleteIndex([first, second], unpartitioned)).toThrow(/first\.puffin.*second\.puffin/);
  });
});

const ID: TableIdentifier = { namespace: ['db'], name: 't' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;

describe('reading through commits', () => {
  beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'delete-rules', namespaces: [['db']] })));
  afterEach(() => warehouse.close());

  async function createTable(options: { partitioned?: boolean; formatVersion?: number } = {}): Promise<void> {
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'grp', required: false, type: primitive('string') },
      { name: 'day', required: false, type: primitive('date') },
    ]);
    const partitionSpec = options.partitioned === true ? { specId: 0, fields: [{ sourceId: fields[1]!.id, fieldId: 1000, name: 'grp', transform: 'identity' }] } : undefined;
    await catalog.createTable(ID, {
      schema: { schemaId: 0, identifierFieldIds: [], fields },
      ...(partitionSpec === undefined ? {} : { partitionSpec }),
      properties: { 'format-version': String(options.formatVersion ?? 2) },
    });
  }

  /** Rows id, grp, day of a SELECT over generated values, in a data file of the given partition. */
  async function dataFile(query: string, partition?: { specId: number; grp: string | null }): Promise<DataFile> {
    const { metadata } = await catalog.loadTable(ID);
    const [file] = await writeDataFiles({
      session,
      query,
      schema: currentSchema(metadata),
      specId: partition?.specId ?? metadata.defaultSpecId,
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'test',
    });
    return partition === undefined ? file! : { ...file!, specId: partition.specId, partition: new Map([[1000, partition.grp]]) };
  }

  /** An equality delete file on `columns` holding the rows of `query`, written as a foreign writer would (extra columns included). */
  async function equalityDeletes(query: string, columns: readonly string[], where: { specId?: number; partition?: DataFile['partition'] } = {}): Promise<DataFile> {
    const { metadata } = await catalog.loadTable(ID);
    const schema = currentSchema(metadata);
    const location = `${dataLocation(metadata)}/eq-${randomUUID()}.parquet`;
    const local = fromFileUri(location);
    mkdirSync(dirname(local), { recursive: true });
    const described = (await session.queryJson(`DESCRIBE ${query}`)).map((column) => String(column['column_name']));
    const fields = schema.fields.filter((field) => described.includes(field.name));
    await session.run(`COPY (${query}) TO ${quoteLiteral(local)} (FORMAT parquet, ${fieldIdsClause({ fields })})`);
    const [row] = await session.queryJson(`SELECT count(*)::VARCHAR AS n FROM read_parquet(${quoteLiteral(local)})`);
    return {
      content: DataFileContent.EqualityDeletes,
      filePath: location,
      fileFormat: 'PARQUET',
      specId: where.specId ?? 0,
      partition: where.partition ?? new Map(),
      recordCount: BigInt(String(row!['n'])),
      fileSizeInBytes: BigInt(statSync(local).size),
      equalityIds: columns.map((name) => schema.fields.find((field) => field.name === name)!.id),
    };
  }

  async function positionDeletes(target: DataFile, positions: readonly number[]): Promise<DataFile[]> {
    const { metadata } = await catalog.loadTable(ID);
    const values = positions.map((pos) => `(${quoteLiteral(target.filePath)}, ${pos})`).join(', ');
    return writePositionDeletes({
      session,
      positions: `(SELECT * FROM (VALUES ${values}) v(file_path, pos))`,
      groups: [{ specId: target.specId, partition: target.partition, dataFilePaths: [target.filePath] }],
      dataLocation: dataLocation(metadata),
      io,
      properties: metadata.properties,
      writerName: 'test',
    });
  }

  async function commit(data: DataFile[], deletes: DataFile[]): Promise<void> {
    const { metadata } = await catalog.loadTable(ID);
    await commitSnapshot({
      catalog,
      identifier: ID,
      base: { metadata, io, create: false },
      mode: 'row-delta',
      addedFiles: [],
      rowDelta: { addedDataFiles: data, addedDeleteFiles: deletes, removedDataFiles: [], removedDeleteFiles: [], validate: async () => {} },
    });
  }

  async function scan(select = 'id, grp'): Promise<Record<string, unknown>[]> {
    const { metadata } = await catalog.loadTable(ID);
    const rows = await openTableRows({ session, io, metadata });
    try {
      return await session.queryJson(`SELECT ${select} FROM (${rows.sql}) ORDER BY id`);
    } finally {
      await rows.release();
    }
  }

  const expected = async (query: string): Promise<Record<string, unknown>[]> => session.queryJson(`SELECT id, grp FROM (${query}) ORDER BY id`);
  const ROWS = `SELECT range::BIGINT AS id, CASE WHEN range % 10 = 0 THEN NULL ELSE 'g' || (range % 3) END AS grp, DATE '2025-01-01' + range::INTEGER AS day FROM range(30)`;

  it('applies equality deletes on one and two columns, null matching null, and never to data of their own commit', async () => {
    await createTable();
    const first = await dataFile(ROWS);
    await commit([first], []);
    // Same commit: a new data file with the same rows, and deletes that match rows of both.
    const second = await dataFile(`SELECT id + 100 AS id, grp, day FROM (${ROWS})`);
    const byGroup = await equalityDeletes(`SELECT 999::BIGINT AS id, 'g1' AS grp, DATE '2000-01-01' AS day`, ['grp']);
    const byNull = await equalityDeletes(`SELECT NULL::VARCHAR AS grp, 5::BIGINT AS id`, ['grp']);
    const byPair = await equalityDeletes(`SELECT * FROM (VALUES (2::BIGINT, 'g2'), (8::BIGINT, 'g1'), (102::BIGINT, 'g2'), (5::BIGINT, 'g2')) v(id, grp)`, ['id', 'grp']);
    await commit([second], [byGroup, byNull, byPair]);

    const { metadata } = await catalog.loadTable(ID);
    const plan = await planScan(io, metadata);
    expect(plan.tasks.find((task) => task.data.file.filePath === second.filePath)!.deletes).toEqual([]);
    expect(plan.tasks.find((task) => task.data.file.filePath === first.filePath)!.deletes).toHaveLength(3);

    const want = await expected(
      `SELECT * FROM (${ROWS}) WHERE grp IS NOT NULL AND grp <> 'g1' AND (id, grp) NOT IN ((2, 'g2'), (5, 'g2')) ` +
        `UNION ALL SELECT id + 100, grp, day FROM (${ROWS})`,
    );
    expect(want).toHaveLength(30 - 3 - 10 - 1 + 30);
    expect(await scan()).toEqual(want);

    // A later commit's deletes do apply to the second file: the equality on id alone.
    await commit([], [await equalityDeletes(`SELECT * FROM (VALUES (101::BIGINT), (103::BIGINT), (4::BIGINT)) v(id)`, ['id'])]);
    expect(await scan()).toEqual(want.filter((row) => ![101, 103, 4].includes(Number(row['id']))));
  });

  it('applies an equality delete of an unpartitioned spec across partitions, and a partitioned one in its partition only', async () => {
    await createTable({ partitioned: true });
    const rowsOf = (grp: string): string => `SELECT range::BIGINT AS id, '${grp}' AS grp, DATE '2025-01-01' AS day FROM range(${grp === 'a' ? 0 : 10}, ${grp === 'a' ? 10 : 20})`;
    const a = await dataFile(rowsOf('a'), { specId: 0, grp: 'a' });
    const b = await dataFile(rowsOf('b'), { specId: 0, grp: 'b' });
    await commit([a, b], []);
    // Spec 1: unpartitioned (a writer that dropped the partition field).
    await catalog.commitTable(ID, [], [{ action: 'add-spec', spec: { specId: 1, fields: [] } }]);
    const inA = await equalityDeletes(`SELECT * FROM (VALUES (1::BIGINT), (11::BIGINT)) v(id)`, ['id'], { specId: 0, partition: new Map([[1000, 'a']]) });
    const everywhere = await equalityDeletes(`SELECT * FROM (VALUES (2::BIGINT), (12::BIGINT)) v(id)`, ['id'], { specId: 1 });
    await commit([], [inA, everywhere]);
    const want = await expected(`${rowsOf('a')} UNION ALL ${rowsOf('b')}`);
    expect(await scan()).toEqual(want.filter((row) => ![1, 2, 12].includes(Number(row['id']))));
  });

  it('shadows the position delete files of a data file once it has a deletion vector (v2 table upgraded to v3)', async () => {
    await createTable();
    const file = await dataFile(ROWS);
    await commit([file], await positionDeletes(file, [0, 1, 2]));
    expect((await scan()).map((row) => Number(row['id']))).toEqual(Array.from({ length: 27 }, (_, i) => i + 3));

    await catalog.commitTable(ID, [], [{ action: 'upgrade-format-version', formatVersion: 3 }]);
    const { metadata } = await catalog.loadTable(ID);
    // The vector holds what the position file deleted, except position 1, and more: it alone counts.
    const vectors = await writeDeletionVectors({ io, dataLocation: dataLocation(metadata), vectors: [{ dataFile: file, positions: new BigInt64Array([0n, 2n, 7n, 29n]) }], writerName: 'test' });
    await commit([], vectors);
    const plan = await planScan(io, (await catalog.loadTable(ID)).metadata);
    expect(plan.tasks[0]!.deletes.map((d) => d.file.fileFormat)).toEqual(['PUFFIN']);
    expect((await scan()).map((row) => Number(row['id']))).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((id) => ![0, 2, 7, 29].includes(id)));
  });

  it('applies a large deletion vector, and equality deletes with it', async () => {
    await createTable({ formatVersion: 3 });
    const rows = 300_000;
    const file = await dataFile(`SELECT range::BIGINT AS id, 'g' || (range % 7) AS grp, DATE '2025-01-01' AS day FROM range(${rows})`);
    await commit([file], []);
    const { metadata } = await catalog.loadTable(ID);
    const positions = new BigInt64Array(rows / 2).map((_, i) => BigInt(2 * i));
    await commit([], await writeDeletionVectors({ io, dataLocation: dataLocation(metadata), vectors: [{ dataFile: file, positions }], writerName: 'test' }));
    await commit([], [await equalityDeletes(`SELECT 'g3' AS grp`, ['grp'])]);
    const [row] = await scan(`count(*)::INTEGER AS n, sum(id)::VARCHAR AS total, bool_and(id % 2 = 1 AND grp <> 'g3') AS odd_kept, 0 AS id`);
    const [want] = await session.queryJson(
      `SELECT count(*)::INTEGER AS n, sum(range)::VARCHAR AS total FROM range(${rows}) WHERE range % 2 = 1 AND range % 7 <> 3`,
    );
    expect(row).toEqual({ ...want, odd_kept: true, id: 0 });
  });

  it.each<[string, Partial<DataFile>, RegExp]>([
    ['an ORC equality delete file', { fileFormat: 'ORC' as FileFormat }, /ORC/],
    ['an Avro position delete file', { content: DataFileContent.PositionDeletes, fileFormat: 'AVRO' as FileFormat, equalityIds: undefined }, /AVRO/],
    ['an equality delete file without equality ids', { equalityIds: [] }, /equality_ids/],
  ])('refuses %s, naming it', async (_, change, message) => {
    await createTable();
    await commit([await dataFile(ROWS)], []);
    const base = await equalityDeletes(`SELECT 1::BIGINT AS id`, ['id']);
    const bad = { ...base, ...change, filePath: base.filePath.replace('.parquet', '.bad') } as DataFile;
    await commit([], [bad]);
    const { metadata } = await catalog.loadTable(ID);
    const error = await planScan(io, metadata).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IcebergFormatError);
    expect(String((error as Error).message)).toContain(bad.filePath);
    expect(String((error as Error).message)).toMatch(message);
  });

  it('refuses an equality delete file that lacks a column it lists', async () => {
    await createTable();
    await commit([await dataFile(ROWS)], []);
    const base = await equalityDeletes(`SELECT 1::BIGINT AS id`, ['id']);
    const grpId = currentSchema((await catalog.loadTable(ID)).metadata).fields.find((field) => field.name === 'grp')!.id;
    await commit([], [{ ...base, equalityIds: [base.equalityIds![0]!, grpId] }]);
    const { metadata } = await catalog.loadTable(ID);
    const error = await openTableRows({ session, io, metadata }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IcebergFormatError);
    expect(String((error as Error).message)).toContain(base.filePath);
  });
});
