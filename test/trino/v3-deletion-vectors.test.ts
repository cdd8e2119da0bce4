/**
 * Trino reads a format v3 table Thund wrote with merge-on-read deletes and upserts (deletion
 * vectors, merged across operations) straight from the embedded SQLite catalog: the rows must be
 * the DuckDB model's (the same operations applied as plain SQL), now and at the snapshot of the
 * first delete. See test/interop/v3-spark.test.ts for the same against Spark 4.1 / Iceberg 1.12.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { ModelledTable, sortedKeys } from '../interop/v3-support.js';
import { startTrino, TRINO_VERSION, type RunningTrino } from '../stack/trino.js';
import { queryTrinoRows } from './trino-rows.js';

describe(`trino ${TRINO_VERSION} reads a Thund v3 table with deletion vectors`, () => {
  let work: string;
  let session: DuckDbSession;
  let catalog: SqlCatalog;
  let trino: RunningTrino;
  let table: ModelledTable;
  let afterDelete: { snapshotId: bigint; model: string };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'thund-trino-v3-'));
    session = await DuckDbSession.open({ threads: 1 });
    const io = new LocalFileIO();
    catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: toFileUri(work), io });
    await catalog.createNamespace(['lake']);
    table = new ModelledTable({ catalog, io, session }, 'lake.dv', [
      { name: 'id', type: 'long', duck: 'BIGINT' },
      { name: 'label', type: 'string', duck: 'VARCHAR' },
    ]);
    await table.createV3();
    const rows = (from: number, count: number, version: number): string => `SELECT range::BIGINT AS id, 'v${version}-' || range AS label FROM range(${from}, ${from + count})`;
    for (const from of [0, 100, 200]) await table.append(rows(from, 100, 0));
    const deleted = await table.deleteWhere('id % 10 = 3');
    afterDelete = { snapshotId: deleted.snapshot!.snapshotId, model: await table.keepModel('after_delete') };
    await table.upsert(rows(10, 20, 1));
    await table.upsert(rows(25, 30, 2));
    await table.deleteWhere('id BETWEEN 150 AND 160');
    trino = await startTrino({ catalogs: { thund: { type: 'sqlite', catalogDb: join(work, 'catalog.db'), warehouse: pathToFileURL(work).href, catalogName: 'default' } } });
  });

  afterAll(async () => {
    await trino?.stop();
    session?.close();
    await catalog?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  const trinoRows = async (suffix = ''): Promise<string[]> =>
    sortedKeys((await queryTrinoRows(trino.uri, `SELECT CAST(id AS VARCHAR) AS id, label FROM thund.lake.dv${suffix}`)).rows, ['id', 'label']);

  it('reads exactly the rows of the model after the deletes and upserts', async () => {
    expect(await trinoRows()).toEqual(await table.expected());
  });

  it('reads exactly the rows of the model at the snapshot of the first delete', async () => {
    expect(await trinoRows(` FOR VERSION AS OF ${afterDelete.snapshotId}`)).toEqual(await table.canonical(`SELECT * FROM ${afterDelete.model}`));
  });
});
