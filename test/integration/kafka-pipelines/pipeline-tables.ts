/**
 * For the tests of Kafka pipelines: a fresh folder with an embedded-catalog warehouse per test, and
 * the live rows of a table read through Thund's scan (deletes applied).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openCatalog, type OpenedCatalog } from '../../../src/app/open-catalog.js';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { openTableRows } from '../../../src/table/table-rows.js';

export async function liveTableRows(opened: OpenedCatalog, identifier: { namespace: string[]; name: string }, columns: string, orderBy: string): Promise<unknown[][]> {
  const { metadata, io } = await opened.catalog.loadTable(identifier);
  const session = await DuckDbSession.open({ threads: 1 });
  const rows = await openTableRows({ session, io, metadata });
  try {
    return (await session.queryJson(`SELECT ${columns} FROM (${rows.sql}) ORDER BY ${orderBy}`)).map((row) => Object.values(row));
  } finally {
    await rows.release();
    session.close();
  }
}

/** A test's folder and the embedded catalog of its `warehouse/`, fresh for every test of the file and removed after it. */
export function warehousePerTest(prefix: string): { work: string; opened: OpenedCatalog } {
  const place = { work: '', opened: undefined as unknown as OpenedCatalog };
  beforeEach(async () => {
    place.work = mkdtempSync(join(tmpdir(), prefix));
    place.opened = await openCatalog(undefined, { warehouse: join(place.work, 'warehouse') });
  });
  afterEach(async () => {
    await place.opened.close();
    rmSync(place.work, { recursive: true, force: true });
  });
  return place;
}
