/**
 * Upsert into a table that carries equality deletes (written here as a foreign writer such as
 * Flink would: a Parquet file of the equality column, committed in a row delta). One delete row
 * deletes half of a data file, so record counts bound nothing: the upsert must count the file's
 * live rows to see that its matches cover them all, remove the file whole, and count as deleted
 * only the live rows it matched (not a key whose row an equality delete already removed).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { fromFileUri, type LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { quoteLiteral, type DuckDbSession } from '../../../src/duckdb/session.js';
import { DataFileContent, type DataFile } from '../../../src/iceberg/data-file.js';
import { fieldIdsClause } from '../../../src/iceberg/duckdb-types.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { upsert } from '../../../src/table/upsert.js';
import { writeDataFiles } from '../../../src/write/data-file-writer.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'keyed' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;

beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'eq-upsert', namespaces: [['db']] })));
afterEach(() => warehouse.close());

/** Ids 0..9, group 'keep' below 5 and 'gone' from 5, label old-<id>. */
const ROWS = `SELECT range::BIGINT AS id, CASE WHEN range < 5 THEN 'keep' ELSE 'gone' END AS grp, 'old-' || range AS label FROM range(10)`;

/** The table with one data file of ROWS, then one equality delete row grp = 'gone' (deleting ids 5..9). */
async function seed(properties: Record<string, string>): Promise<DataFile> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'grp', required: false, type: primitive('string') },
    { name: 'label', required: false, type: primitive('string') },
  ]);
  let { metadata } = await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties });
  const schema = currentSchema(metadata);
  const [data] = await writeDataFiles({
    session,
    query: ROWS,
    schema,
    specId: 0,
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
  await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: [data!] });

  ({ metadata } = await catalog.loadTable(ID));
  const grp = schema.fields.find((field) => field.name === 'grp')!;
  const location = `${dataLocation(metadata)}/eq-${randomUUID()}.parquet`;
  mkdirSync(dirname(fromFileUri(location)), { recursive: true });
  await session.run(`COPY (SELECT 'gone' AS grp) TO ${quoteLiteral(fromFileUri(location))} (FORMAT parquet, ${fieldIdsClause({ fields: [grp] })})`);
  const deletes: DataFile = {
    content: DataFileContent.EqualityDeletes,
    filePath: location,
    fileFormat: 'PARQUET',
    specId: 0,
    partition: new Map(),
    recordCount: 1n,
    fileSizeInBytes: BigInt(statSync(fromFileUri(location)).size),
    equalityIds: [grp.id],
  };
  await commitSnapshot({
    catalog,
    identifier: ID,
    base: { metadata, io, create: false },
    mode: 'row-delta',
    addedFiles: [],
    rowDelta: { addedDataFiles: [], addedDeleteFiles: [deletes], removedDataFiles: [], removedDeleteFiles: [], validate: async () => {} },
  });
  return data!;
}

async function scan(): Promise<Record<string, unknown>[]> {
  const { metadata } = await catalog.loadTable(ID);
  const rows = await openTableRows({ session, io, metadata });
  try {
    return await session.queryJson(`SELECT id::INTEGER AS id, grp, label FROM (${rows.sql}) ORDER BY id`);
  } finally {
    await rows.release();
  }
}

describe.each([
  { mode: 'merge-on-read', properties: {} },
  { mode: 'copy-on-write', properties: { 'write.update.mode': 'copy-on-write' } },
] as { mode: string; properties: Record<string, string> }[])('upsert over equality deletes ($mode)', ({ properties }) => {
  it('counts the live rows: the data file whose five live rows all match goes whole, and a key deleted before is not counted', async () => {
    const data = await seed(properties);
    expect(await scan()).toEqual(Array.from({ length: 5 }, (_, id) => ({ id, grp: 'keep', label: `old-${id}` })));

    // Every live key 0..4, and key 7 (deleted by the equality delete): 5 live rows match. The new
    // row 7 is in group 'gone' again: the older equality delete does not apply to it.
    const source = `SELECT range::BIGINT AS id, 'keep' AS grp, 'new-' || range AS label FROM range(5) UNION ALL SELECT 7, 'gone', 'new-7'`;
    const result = await upsert({ catalog, identifier: ID, io, session }, { keyColumns: ['id'], sourceQuery: source });
    expect(result.deletedRows).toBe(5n);
    expect(result.addedRows).toBe(6n);
    expect(result.removedDataFiles.map((file) => file.filePath)).toEqual([data.filePath]);
    expect(result.addedDeleteFiles).toEqual([]);

    const want = await session.queryJson(`SELECT id::INTEGER AS id, grp, label FROM (${source}) ORDER BY id`);
    expect(await scan()).toEqual(want);
  });
});
