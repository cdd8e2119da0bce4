/**
 * upsert with delete keys apart from the added rows (the change set of CDC apply-changes):
 * rows with a delete key go without a replacement, added rows may share a key, a composite key
 * (SCD2: key and __START_AT) deletes only its version, nothing to do still commits with
 * commitEmpty, and a null delete key is refused before anything is written. Expected rows are
 * computed by DuckDB over the same generated rows; the table is read through Thund's scan.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { InvalidInputError } from '../../../src/errors.js';
import { assignFreshIds } from '../../../src/iceberg/schema.js';
import { currentSchema, defaultSpec } from '../../../src/iceberg/snapshot-ancestry.js';
import { primitive } from '../../../src/iceberg/types.js';
import { commitSnapshot } from '../../../src/table/commit-snapshot.js';
import { dataLocation } from '../../../src/table/locations.js';
import type { RowOperationTarget } from '../../../src/table/row-operation.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { upsert } from '../../../src/table/upsert.js';
import { writePartitionedDataFiles } from '../../../src/write/partitioned-data-file-writer.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'versions' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;

beforeEach(async () => {
  ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'delete-keys', namespaces: [['db']] }));
});

afterEach(() => warehouse.close());

/** Versions (id, start) of 40 keys, three each: start 0, 10, 20; label v<start>-<id>. */
const VERSIONS = `SELECT (range // 3)::BIGINT AS id, ((range % 3) * 10)::BIGINT AS start, 'v' || ((range % 3) * 10) || '-' || (range // 3) AS label FROM range(120)`;

async function seed(properties: Record<string, string> = {}): Promise<void> {
  const { fields } = assignFreshIds([
    { name: 'id', required: false, type: primitive('long') },
    { name: 'start', required: false, type: primitive('long') },
    { name: 'label', required: false, type: primitive('string') },
  ]);
  const { metadata } = await catalog.createTable(ID, { schema: { schemaId: 0, identifierFieldIds: [], fields }, properties });
  const files = await writePartitionedDataFiles({
    session,
    query: VERSIONS,
    schema: currentSchema(metadata),
    spec: defaultSpec(metadata),
    dataLocation: dataLocation(metadata),
    io,
    properties: metadata.properties,
    writerName: 'test',
  });
  await commitSnapshot({ catalog, identifier: ID, base: { metadata, io, create: false }, mode: 'append', addedFiles: files });
}

async function scan(): Promise<Record<string, unknown>[]> {
  const { metadata } = await catalog.loadTable(ID);
  const rows = await openTableRows({ session, io, metadata });
  try {
    return await session.queryJson(`SELECT * FROM (${rows.sql}) ORDER BY id, start`);
  } finally {
    await rows.release();
  }
}

const target = (): RowOperationTarget => ({ catalog, identifier: ID, io, session, summaryProperties: { 'thund.test': 'delta' } });

describe.each([
  { mode: 'merge-on-read', properties: {} },
  { mode: 'copy-on-write', properties: { 'write.update.mode': 'copy-on-write' } },
] as { mode: string; properties: Record<string, string> }[])('upsert with delete keys under $mode', ({ properties }) => {
  it('deletes exactly the named versions and adds rows that share keys with each other and with kept rows', async () => {
    await seed(properties);
    // Delete the version at 20 of even ids and the version at 0 of id 5; add two versions of id 100 and a version at 30 of id 1.
    const deletes = `SELECT id, 20::BIGINT AS start FROM range(0, 40, 2) t(id) UNION ALL SELECT 5, 0`;
    const adds = `SELECT * FROM (VALUES (100::BIGINT, 0::BIGINT, 'n0-100'), (100, 10, 'n10-100'), (1, 30, 'n30-1')) t(id, start, label)`;
    const result = await upsert(target(), { keyColumns: ['id', 'start'], deleteKeysQuery: deletes, sourceQuery: adds, commitEmpty: true });
    expect(result.deletedRows).toBe(21n);
    expect(result.addedRows).toBe(3n);
    expect(result.snapshot?.summary['thund.test']).toBe('delta');
    const expected = await session.queryJson(
      `SELECT * FROM (SELECT * FROM (${VERSIONS}) WHERE (id, start) NOT IN (SELECT (id, start) FROM (${deletes})) UNION ALL ${adds}) ORDER BY id, start`,
    );
    expect(await scan()).toEqual(expected);
  });
});

describe('upsert with delete keys: edge cases', () => {
  it('commits an empty snapshot with the summary when there is nothing to delete or add, and nothing without commitEmpty', async () => {
    await seed();
    const none = `SELECT 1::BIGINT AS id, 1::BIGINT AS start WHERE false`;
    const noRows = `SELECT 1::BIGINT AS id, 1::BIGINT AS start, 'x' AS label WHERE false`;
    const skipped = await upsert(target(), { keyColumns: ['id', 'start'], deleteKeysQuery: none, sourceQuery: noRows });
    expect(skipped.snapshot).toBeUndefined();
    const empty = await upsert(target(), { keyColumns: ['id', 'start'], deleteKeysQuery: none, sourceQuery: noRows, commitEmpty: true });
    const { metadata } = await catalog.loadTable(ID);
    expect(metadata.snapshots).toHaveLength(2);
    expect(empty.snapshot?.snapshotId).toBe(metadata.snapshots.at(-1)?.snapshotId);
    expect(empty.snapshot?.summary).toMatchObject({ operation: 'append', 'thund.test': 'delta', 'total-records': '120' });
  });

  it('deletes keys no added row replaces (a delete), and refuses a null delete key naming the key columns', async () => {
    await seed();
    await upsert(target(), { keyColumns: ['id', 'start'], deleteKeysQuery: 'SELECT id, start FROM (VALUES (3, 10), (3, 10), (39, 0)) t(id, start)', sourceQuery: `SELECT 1::BIGINT AS id, 1::BIGINT AS start, 'x' AS label WHERE false` });
    expect(await scan()).toEqual(await session.queryJson(`SELECT * FROM (${VERSIONS}) WHERE (id, start) NOT IN ((3, 10), (39, 0)) ORDER BY id, start`));
    const refused = upsert(target(), { keyColumns: ['id', 'start'], deleteKeysQuery: 'SELECT 4 AS id, NULL::BIGINT AS start', sourceQuery: `SELECT 1::BIGINT AS id, 1::BIGINT AS start, 'x' AS label` });
    await expect(refused).rejects.toThrow(InvalidInputError);
    await expect(refused).rejects.toThrow(/null key.*"id", "start"/);
    expect((await catalog.loadTable(ID)).metadata.snapshots).toHaveLength(2);
  });
});
