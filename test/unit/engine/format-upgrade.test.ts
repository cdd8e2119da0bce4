/**
 * A pipeline table whose properties ask for a higher `format-version` than the table has is
 * upgraded in the run's commit (as Spark's ALTER TABLE … SET TBLPROPERTIES does); the run's
 * upsert then writes what v3 requires (deletion vectors), and a lower version is refused.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { TableIdentifier } from '../../../catalog/catalog.js';
import type { SqlCatalog } from '../../../catalog/sql/index.js';
import type { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import type { DuckDbSession } from '../../../src/duckdb/session.js';
import { InvalidInputError } from '../../../src/errors.js';
import { isDeletionVector } from '../../../src/iceberg/data-file.js';
import { runFlow, type FlowRunRequest } from '../../../src/engine/run-flow.js';
import { liveFilesOf } from '../../../src/table/delete-planning.js';
import { openTableRows } from '../../../src/table/table-rows.js';
import { openLocalWarehouse, type LocalWarehouse } from '../local-warehouse.js';

const ID: TableIdentifier = { namespace: ['db'], name: 'orders' };
let warehouse: LocalWarehouse;
let io: LocalFileIO, catalog: SqlCatalog, session: DuckDbSession;
beforeEach(async () => ({ io, catalog, session } = warehouse = await openLocalWarehouse({ prefix: 'upgrade', namespaces: [['db']] })));
afterEach(() => warehouse.close());

const run = (sql: string, tableProperties: Record<string, string>, mode: FlowRunRequest['mode'] = 'upsert') =>
  runFlow({ session, catalog, io, flowName: 'orders', sql, target: ID, mode, keys: ['id'], tableProperties, summaryProperties: {} });

it('upgrades a v2 table to v3 in the run that asks for it, and the upsert writes deletion vectors', async () => {
  await run('SELECT range::BIGINT AS id, range * 10 AS amount FROM range(0, 20)', {});
  expect((await catalog.loadTable(ID)).metadata.formatVersion).toBe(2);
  await run('SELECT range::BIGINT AS id, range * 100 AS amount FROM range(5, 8)', { 'format-version': '3' });
  const { metadata } = await catalog.loadTable(ID);
  expect(metadata.formatVersion).toBe(3);
  expect(metadata.nextRowId).toBeGreaterThan(0n);
  const snapshot = metadata.snapshots.find((s) => s.snapshotId === metadata.currentSnapshotId)!;
  const { deletes } = await liveFilesOf(io, snapshot);
  expect(deletes.length).toBe(1);
  expect(deletes.every(({ file }) => isDeletionVector(file))).toBe(true);
  const rows = await openTableRows({ session, io, metadata });
  try {
    const read = await session.queryJson(`SELECT id::INTEGER AS id, amount::INTEGER AS amount FROM (${rows.sql}) ORDER BY id`);
    expect(read).toEqual(Array.from({ length: 20 }, (_, id) => ({ id, amount: id >= 5 && id < 8 ? id * 100 : id * 10 })));
  } finally {
    await rows.release();
  }
});

it('refuses a format-version below the table’s, naming the table, and commits nothing', async () => {
  await run('SELECT 1::BIGINT AS id, 1 AS amount', { 'format-version': '3' }, 'append');
  const before = (await catalog.loadTable(ID)).metadata.currentSnapshotId;
  await expect(run('SELECT 2::BIGINT AS id, 2 AS amount', { 'format-version': '2' }, 'append')).rejects.toThrow(InvalidInputError);
  await expect(run('SELECT 2::BIGINT AS id, 2 AS amount', { 'format-version': '2' }, 'append')).rejects.toThrow(/db\.orders is format v3.*never goes down/);
  expect((await catalog.loadTable(ID)).metadata.currentSnapshotId).toBe(before);
});
