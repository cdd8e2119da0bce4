/**
 * add-files against the real SQLite catalog and local files: Parquet files DuckDB wrote with and
 * without field ids, registered without rewriting, read back through Thund's scan; partition
 * values derived from the statistics; refusals that name the file and commit nothing.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { toFileUri } from '../../../connectors/storage/local-file-io.js';
import { InvalidInputError } from '../../../src/errors.js';
import { decodeSingleValue } from '../../../src/iceberg/bounds.js';
import { NAME_MAPPING_PROPERTY, parseNameMapping } from '../../../src/iceberg/name-mapping.js';
import { assignFreshIds, type UnassignedField } from '../../../src/iceberg/schema.js';
import type { PartitionSpec } from '../../../src/iceberg/table-metadata.js';
import { decimal, primitive } from '../../../src/iceberg/types.js';
import { addFiles } from '../../../src/table/add-files.js';
import { liveDataFiles } from '../../../src/table/scan.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ID: TableIdentifier = { namespace: ['db'], name: 't' };
let warehouse: LocalWarehouse;
beforeEach(async () => {
  warehouse = await openLocalWarehouse({ prefix: 'add-files', namespaces: [['db']] });
});
afterEach(() => warehouse.close());

const COLUMNS: UnassignedField[] = [
  { name: 'id', required: true, type: primitive('long') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'ts', required: false, type: primitive('timestamp') },
  { name: 'amount', required: false, type: decimal(10, 2) },
  { name: 'd', required: false, type: primitive('date') },
];

async function createTable(partitioned: boolean): Promise<void> {
  const { fields } = assignFreshIds(COLUMNS);
  const partitionSpec: PartitionSpec | undefined = partitioned
    ? {
        specId: 0,
        fields: [
          { sourceId: 2, fieldId: 1000, name: 'region', transform: 'identity' },
          { sourceId: 3, fieldId: 1001, name: 'ts_day', transform: 'day' },
        ],
      }
    : undefined;
  await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, ...(partitionSpec === undefined ? {} : { partitionSpec }) });
}

/** Rows id in [from, from + count) of one region and one day (by default). */
function rowsSql(from: number, count: number, region = "'eu'", day = "'2026-03-01'"): string {
  return (
    `SELECT range::BIGINT AS id, ${region} AS region, (${day}::TIMESTAMP + INTERVAL (range % 7) HOUR) AS ts, ` +
    `(range * 1.25)::DECIMAL(10,2) AS amount, (${day}::DATE + (range % 3)::INTEGER) AS d FROM range(${from}, ${from + count})`
  );
}

/** Writes a Parquet file outside the table's folder; with field ids 1..5 (the table's) unless `withIds` is false. */
async function writeFile(name: string, query: string, withIds = true): Promise<string> {
  const path = join(warehouse.work, 'incoming', name);
  await warehouse.session.run(`CREATE OR REPLACE TEMP TABLE src AS ${query}`);
  mkdirSync(join(warehouse.work, 'incoming'), { recursive: true });
  const ids = withIds ? ', FIELD_IDS {id: 1, region: 2, ts: 3, amount: 4, d: 5}' : '';
  await warehouse.session.run(`COPY src TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 100${ids})`);
  return toFileUri(path);
}

async function tableRows(): Promise<unknown[]> {
  const table = await warehouse.catalog.loadTable(ID);
  const rows = await openTableRows({ session: warehouse.session, io: table.io, metadata: table.metadata });
  try {
    return await warehouse.session.queryJson(`SELECT id, region, ts::VARCHAR AS ts, amount::VARCHAR AS amount, d::VARCHAR AS d FROM (${rows.sql}) ORDER BY id`);
  } finally {
    await rows.release();
  }
}

async function expectedRows(...queries: string[]): Promise<unknown[]> {
  return warehouse.session.queryJson(
    `SELECT id, region, ts::VARCHAR AS ts, amount::VARCHAR AS amount, d::VARCHAR AS d FROM (${queries.join(' UNION ALL ')}) ORDER BY id`,
  );
}

async function add(locations: string[], dryRun = false) {
  const table = await warehouse.catalog.loadTable(ID);
  return addFiles({ catalog: warehouse.catalog, identifier: ID, table, locations, dryRun });
}

async function refusal(promise: Promise<unknown>): Promise<InvalidInputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
}

describe('add-files', () => {
  it('registers files with and without field ids; rows read back, metrics and a name mapping are set', async () => {
    await createTable(false);
    const withIds = await writeFile('a.parquet', rowsSql(0, 250));
    const withoutIds = await writeFile('b.parquet', rowsSql(1000, 120, "'us'"), false);
    const result = await add([withIds, withoutIds]);
    expect(result.plan.rows).toBe(370n);
    expect(result.plan.bytes).toBe(BigInt(statSync(new URL(withIds)).size + statSync(new URL(withoutIds)).size));
    expect(result.snapshotId).toBeDefined();

    expect(await tableRows()).toEqual(await expectedRows(rowsSql(0, 250), rowsSql(1000, 120, "'us'")));

    const table = await warehouse.catalog.loadTable(ID);
    expect(table.metadata.currentSnapshotId).toBe(result.snapshotId);
    const mapping = parseNameMapping(table.metadata.properties[NAME_MAPPING_PROPERTY]!, 't');
    expect(mapping.map((m) => [m.fieldId, m.names])).toEqual([
      [1, ['id']],
      [2, ['region']],
      [3, ['ts']],
      [4, ['amount']],
      [5, ['d']],
    ]);
    const files = await liveDataFiles(table.io, table.metadata);
    const a = files.find((f) => f.filePath === withIds)!;
    const b = files.find((f) => f.filePath === withoutIds)!;
    expect(a.recordCount).toBe(250n);
    expect(a.valueCounts?.get(1)).toBe(250n);
    expect(a.nullValueCounts?.get(2)).toBe(0n);
    expect(a.columnSizes?.get(1)).toBeGreaterThan(0n);
    expect(decodeSingleValue({ kind: 'long' }, a.lowerBounds!.get(1)!)).toBe(0n);
    expect(decodeSingleValue({ kind: 'long' }, a.upperBounds!.get(1)!)).toBe(249n);
    expect(decodeSingleValue({ kind: 'long' }, b.lowerBounds!.get(1)!)).toBe(1000n);
    expect(decodeSingleValue({ kind: 'string' }, b.upperBounds!.get(2)!)).toBe('us');
    expect(decodeSingleValue(decimal(10, 2), a.upperBounds!.get(4)!)).toBe(31125n);
    // 2026-03-01 + 0..2 days
    expect(decodeSingleValue({ kind: 'date' }, a.lowerBounds!.get(5)!)).toBe(20513);
    expect(decodeSingleValue({ kind: 'date' }, a.upperBounds!.get(5)!)).toBe(20515);
    expect(decodeSingleValue({ kind: 'timestamp' }, a.upperBounds!.get(3)!)).toBe((20513n * 86_400n + 6n * 3600n) * 1_000_000n);
  });

  it('derives identity and day partition values; a file spanning two partitions refuses the whole request', async () => {
    await createTable(true);
    const eu = await writeFile('eu.parquet', rowsSql(0, 150, "'eu'", "'2026-03-01'"));
    const us = await writeFile('us.parquet', rowsSql(500, 50, "'us'", "'2026-03-02'"), false);
    const mixed = await writeFile('mixed.parquet', `${rowsSql(900, 10, "'eu'")} UNION ALL ${rowsSql(950, 10, "'us'")}`);
    const twoDays = await writeFile('days.parquet', `${rowsSql(1900, 10, "'eu'", "'2026-03-01'")} UNION ALL ${rowsSql(1950, 10, "'eu'", "'2026-03-05'")}`);

    const error = await refusal(add([eu, us, mixed, twoDays]));
    expect(error.message).toContain('2 files refused');
    expect(error.message).toContain(`Cannot add ${mixed}: its rows fall into more than one partition (partition field region, column region)`);
    expect(error.message).toContain(`Cannot add ${twoDays}: its rows fall into more than one partition (partition field ts_day, column ts)`);
    expect((await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId).toBeUndefined();

    await add([eu, us]);
    const table = await warehouse.catalog.loadTable(ID);
    const partitions = new Map((await liveDataFiles(table.io, table.metadata)).map((f) => [f.filePath, [...f.partition.values()]]));
    expect(partitions.get(eu)).toEqual(['eu', 20513]);
    expect(partitions.get(us)).toEqual(['us', 20514]);
    expect(await tableRows()).toEqual(await expectedRows(rowsSql(0, 150, "'eu'", "'2026-03-01'"), rowsSql(500, 50, "'us'", "'2026-03-02'")));
  });

  it('refuses a column of the wrong type and a missing required column, naming the file and column', async () => {
    await createTable(false);
    const good = await writeFile('good.parquet', rowsSql(0, 10));
    const wrongType = await writeFile('wrong.parquet', `SELECT id::VARCHAR AS id, region, ts, amount, d FROM (${rowsSql(0, 10)})`);
    const missing = await writeFile('missing.parquet', `SELECT region, ts FROM (${rowsSql(0, 10)})`, false);
    const one = await refusal(add([good, wrongType]));
    expect(one.message).toBe(`Cannot add ${wrongType}: column id is BYTE_ARRAY (string) in the file, which cannot be read as long`);
    expect(one.context['table']).toBe('db.t');
    const other = await refusal(add([missing]));
    expect(other.message).toBe(`Cannot add ${missing}: column id is required by the table but missing from the file`);
    const nulls = await writeFile('nulls.parquet', `SELECT CASE WHEN id = 3 THEN NULL ELSE id END AS id, region, ts, amount, d FROM (${rowsSql(0, 10)})`);
    expect((await refusal(add([nulls]))).message).toBe(`Cannot add ${nulls}: column id is required by the table but holds nulls in the file`);
    expect((await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId).toBeUndefined();
  });

  it('refuses a file already in the table and a file named twice', async () => {
    await createTable(false);
    const a = await writeFile('a.parquet', rowsSql(0, 10));
    const b = await writeFile('b.parquet', rowsSql(10, 10));
    await add([a]);
    const snapshot = (await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId;
    const again = await refusal(add([a]));
    expect(again.message).toBe(`Cannot add ${a}: it is already a data file of db.t`);
    const twice = await refusal(add([b, b]));
    expect(twice.message).toBe(`Cannot add ${b}: it is named twice in the request`);
    expect((await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId).toBe(snapshot);
    expect(await tableRows()).toEqual(await expectedRows(rowsSql(0, 10)));
  });

  it('a dry run plans without committing; files with field ids set no name mapping', async () => {
    await createTable(false);
    const a = await writeFile('a.parquet', rowsSql(0, 10));
    const dry = await add([a], true);
    expect(dry.snapshotId).toBeUndefined();
    expect(dry.plan.files.map((f) => f.filePath)).toEqual([a]);
    expect((await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId).toBeUndefined();
    await add([a]);
    expect((await warehouse.catalog.loadTable(ID)).metadata.properties[NAME_MAPPING_PROPERTY]).toBeUndefined();
  });
  it('matches struct, list and map columns with and without field ids; rows read back, leaf metrics by path', async () => {
    const { fields } = assignFreshIds([
      { name: 'id', required: true, type: primitive('long') },
      { name: 'st', required: false, type: { kind: 'struct', fields: [{ name: 'a', required: false, type: primitive('int') }, { name: 'b', required: false, type: primitive('string') }] } },
      { name: 'li', required: false, type: { kind: 'list', element: primitive('long'), elementRequired: false } },
      { name: 'mp', required: false, type: { kind: 'map', key: primitive('string'), value: primitive('double'), valueRequired: false } },
    ] as UnassignedField[]);
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields } });
    const query = (from: number) =>
      `SELECT range::BIGINT AS id, {'a': range::INTEGER, 'b': 's' || range} AS st, [range, range + 1] AS li, MAP {'k' || range: (range * 0.5)::DOUBLE} AS mp FROM range(${from}, ${from + 20})`;
    const st = fields.find((f) => f.name === 'st')!;
    const li = fields.find((f) => f.name === 'li')!;
    const mp = fields.find((f) => f.name === 'mp')!;
    const [stA, stB] = st.type.kind === 'struct' ? st.type.fields.map((f) => f.id) : [];
    const elementId = li.type.kind === 'list' ? li.type.elementId : -1;
    const [keyId, valueId] = mp.type.kind === 'map' ? [mp.type.keyId, mp.type.valueId] : [];
    const ids = `FIELD_IDS {id: ${fields[0]!.id}, st: {__duckdb_field_id: ${st.id}, a: ${stA}, b: ${stB}}, li: {__duckdb_field_id: ${li.id}, element: ${elementId}}, mp: {__duckdb_field_id: ${mp.id}, key: ${keyId}, value: ${valueId}}}`;
    const withIdsPath = join(warehouse.work, 'nested-ids.parquet');
    const withoutIdsPath = join(warehouse.work, 'nested.parquet');
    await warehouse.session.run(`COPY (${query(0)}) TO '${withIdsPath}' (FORMAT parquet, ${ids})`);
    await warehouse.session.run(`COPY (${query(100)}) TO '${withoutIdsPath}' (FORMAT parquet)`);
    await add([toFileUri(withIdsPath), toFileUri(withoutIdsPath)]);

    const table = await warehouse.catalog.loadTable(ID);
    const rows = await openTableRows({ session: warehouse.session, io: table.io, metadata: table.metadata });
    try {
      const got = await warehouse.session.queryJson(`SELECT id, st::VARCHAR AS st, li::VARCHAR AS li, mp::VARCHAR AS mp FROM (${rows.sql}) ORDER BY id`);
      const want = await warehouse.session.queryJson(`SELECT id, st::VARCHAR AS st, li::VARCHAR AS li, mp::VARCHAR AS mp FROM (${query(0)} UNION ALL ${query(100)}) ORDER BY id`);
      expect(got).toEqual(want);
    } finally {
      await rows.release();
    }
    const files = await liveDataFiles(table.io, table.metadata);
    for (const file of files) {
      expect(decodeSingleValue({ kind: 'string' }, file.upperBounds!.get(stB!)!)).toMatch(/^s\d+$/);
      expect(file.valueCounts?.get(stA!)).toBe(20n);
      expect(file.columnSizes?.get(elementId)).toBeGreaterThan(0n);
      expect(file.lowerBounds?.has(elementId)).toBe(false);
    }
  });
  it("reads files through the table's own name mapping, aliases included, and leaves it as it was", async () => {
    const { fields } = assignFreshIds([
      { name: 'id', required: true, type: primitive('long') },
      { name: 'label', required: false, type: primitive('string') },
    ]);
    const mapping = JSON.stringify([
      { 'field-id': 1, names: ['id', 'record_id'] },
      { 'field-id': 2, names: ['label', 'title'] },
    ]);
    await warehouse.catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties: { [NAME_MAPPING_PROPERTY]: mapping } });
    const renamed = await writeFile('renamed.parquet', `SELECT range::BIGINT AS record_id, 't' || range AS title, range AS ignored FROM range(5)`, false);
    const plain = await writeFile('plain.parquet', `SELECT range::BIGINT AS id FROM range(5, 8)`, false);
    await add([renamed, plain]);
    const table = await warehouse.catalog.loadTable(ID);
    expect(table.metadata.properties[NAME_MAPPING_PROPERTY]).toBe(mapping);
    const rows = await openTableRows({ session: warehouse.session, io: table.io, metadata: table.metadata });
    try {
      expect(await warehouse.session.queryJson(`SELECT id::INTEGER AS id, label FROM (${rows.sql}) ORDER BY id`)).toEqual([
        ...[0, 1, 2, 3, 4].map((id) => ({ id, label: `t${id}` })),
        ...[5, 6, 7].map((id) => ({ id, label: null })),
      ]);
    } finally {
      await rows.release();
    }
    const files = await liveDataFiles(table.io, table.metadata);
    expect(decodeSingleValue({ kind: 'long' }, files.find((f) => f.filePath === renamed)!.upperBounds!.get(1)!)).toBe(4n);
  });
  it('checks the plan again when another writer committed first: a file it added meanwhile is refused, others land', async () => {
    await createTable(false);
    const [a, b, c] = [await writeFile('a.parquet', rowsSql(0, 10)), await writeFile('b.parquet', rowsSql(10, 10)), await writeFile('c.parquet', rowsSql(20, 10))];
    const stale = await warehouse.catalog.loadTable(ID);
    await add([a]);
    const moved = (await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId;
    const error = await refusal(addFiles({ catalog: warehouse.catalog, identifier: ID, table: stale, locations: [b, a] }));
    expect(error.message).toBe(`Cannot add ${a}: it is already a data file of db.t`);
    expect((await warehouse.catalog.loadTable(ID)).metadata.currentSnapshotId).toBe(moved);

    const landed = await addFiles({ catalog: warehouse.catalog, identifier: ID, table: stale, locations: [b, c] });
    const table = await warehouse.catalog.loadTable(ID);
    expect(table.metadata.currentSnapshotId).toBe(landed.snapshotId);
    expect(table.metadata.snapshots.find((s) => s.snapshotId === landed.snapshotId)?.parentSnapshotId).toBe(moved);
    expect(await tableRows()).toEqual(await expectedRows(rowsSql(0, 30)));
  });
});
