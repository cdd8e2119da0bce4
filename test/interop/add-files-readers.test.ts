/**
 * Files registered by add-files, read by pyiceberg and by Spark with Iceberg's Java runtime: a
 * table partitioned by identity(region) and day(ts), Parquet files DuckDB wrote one per
 * partition, one with field ids and two without (read through the name mapping add-files set).
 * Each reader must return exactly the rows DuckDB computes from the source, with and without a
 * filter on the partition column.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../catalog/catalog.js';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { NAME_MAPPING_PROPERTY } from '../../src/iceberg/name-mapping.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive } from '../../src/iceberg/types.js';
import { addFiles } from '../../src/table/add-files.js';
import { readWithPyiceberg } from './pyiceberg.js';
import type { SqliteCatalogReadArgs } from './read-table-output.js';
import { readWithSpark } from './spark.js';
import { verifyTableRows, type ColumnType, type Row } from './verify.js';

const TABLE = 'lake.added';
const ID: TableIdentifier = { namespace: ['lake'], name: 'added' };
const { fields } = assignFreshIds([
  { name: 'id', required: true, type: primitive('long') },
  { name: 'region', required: false, type: primitive('string') },
  { name: 'ts', required: false, type: primitive('timestamptz') },
  { name: 'note', required: false, type: primitive('string') },
]);
const COLUMNS: readonly ColumnType[] = fields.map((f) => ({ name: f.name, type: f.type.kind }));

/** One file per (region, day), the first with field ids. */
const PARTS = [
  { region: 'eu', day: '2026-03-01', from: 0, ids: true },
  { region: 'us', day: '2026-03-01', from: 1000, ids: false },
  { region: 'eu', day: '2026-03-02', from: 2000, ids: false },
] as const;
const SOURCE = PARTS.map(
  (p) =>
    `SELECT range::BIGINT AS id, '${p.region}' AS region, TIMESTAMPTZ '${p.day} 00:00:00+00' + to_seconds(range % 86400) AS ts, ` +
    `CASE WHEN range % 7 = 0 THEN NULL ELSE 'n' || range END AS note FROM range(${p.from}, ${p.from + 300})`,
);

let work: string;
let session: DuckDbSession;

const readArgs = (filter?: string): SqliteCatalogReadArgs => ({
  catalogDb: join(work, 'warehouse', 'catalog.db'),
  warehouse: pathToFileURL(join(work, 'warehouse')).href,
  catalogName: 'default',
  table: TABLE,
  ...(filter === undefined ? {} : { filter }),
});

const expectedRows = (where?: string): Promise<Row[]> =>
  session.queryJson(`SELECT id, region, epoch_us(ts) AS ts, note FROM (${SOURCE.join(' UNION ALL ')}) ${where === undefined ? '' : `WHERE ${where}`}`);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'thund-add-files-readers-'));
  mkdirSync(join(work, 'incoming'));
  mkdirSync(join(work, 'warehouse'));
  session = await DuckDbSession.open();
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(work, 'warehouse', 'catalog.db'), warehouse: toFileUri(join(work, 'warehouse')), io });
  try {
    await catalog.createNamespace(['lake']);
    await catalog.createTable(ID, {
      schema: { schemaId: 0, identifierFieldIds: [], fields },
      partitionSpec: {
        specId: 0,
        fields: [
          { sourceId: 2, fieldId: 1000, name: 'region', transform: 'identity' },
          { sourceId: 3, fieldId: 1001, name: 'ts_day', transform: 'day' },
        ],
      },
    });
    const locations: string[] = [];
    for (const [i, part] of PARTS.entries()) {
      const path = join(work, 'incoming', `part-${i}.parquet`);
      const ids = part.ids ? ', FIELD_IDS {id: 1, region: 2, ts: 3, note: 4}' : '';
      await session.run(`COPY (${SOURCE[i]}) TO ${quoteLiteral(path)} (FORMAT parquet, ROW_GROUP_SIZE 100${ids})`);
      locations.push(toFileUri(path));
    }
    const table = await catalog.loadTable(ID);
    await addFiles({ catalog, identifier: ID, table, locations });
    expect((await catalog.loadTable(ID)).metadata.properties[NAME_MAPPING_PROPERTY]).toBeDefined();
  } finally {
    await catalog.close();
  }
}, 300_000);

afterAll(() => {
  session?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('files registered by add-files', () => {
  it('pyiceberg reads exactly the files rows, and prunes by the derived partitions', async () => {
    const full = await readWithPyiceberg(readArgs());
    verifyTableRows({ expected: await expectedRows(), actual: full.rows, columns: COLUMNS, reader: 'pyiceberg', table: TABLE });
    expect(full.dataFiles.length).toBe(3);
    const filtered = await readWithPyiceberg(readArgs(`region = 'us'`));
    verifyTableRows({ expected: await expectedRows(`region = 'us'`), actual: filtered.rows, columns: COLUMNS, reader: 'pyiceberg (filtered)', table: TABLE });
    expect(filtered.dataFiles.length).toBe(1);
  }, 300_000);

  it('Spark reads exactly the files rows, with and without a filter', async () => {
    const full = await readWithSpark(readArgs());
    verifyTableRows({ expected: await expectedRows(), actual: full.rows, columns: COLUMNS, reader: 'spark', table: TABLE });
    const filtered = await readWithSpark(readArgs(`region = 'eu' AND id >= 2000`));
    verifyTableRows({ expected: await expectedRows(`region = 'eu' AND id >= 2000`), actual: filtered.rows, columns: COLUMNS, reader: 'spark (filtered)', table: TABLE });
  }, 900_000);
});
