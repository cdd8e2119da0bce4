/** The live rows of a table a pipeline file's catalog holds, read through Thund's scan (deletes applied). */
import type { OpenedCatalog } from '../../../src/app/open-catalog.js';
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
