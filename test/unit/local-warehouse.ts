/**
 * A warehouse for tests that need real tables without services: a SQLite catalog and local data
 * files in a fresh temp folder, and a DuckDB session; `close()` removes everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';

export interface LocalWarehouse {
  readonly work: string;
  readonly io: LocalFileIO;
  readonly catalog: SqlCatalog;
  readonly session: DuckDbSession;
  close(): Promise<void>;
}

export async function openLocalWarehouse(options: { readonly prefix: string; readonly namespaces?: readonly (readonly string[])[] }): Promise<LocalWarehouse> {
  const work = mkdtempSync(join(tmpdir(), `thund-${options.prefix}-`));
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({ databasePath: join(work, 'catalog.db'), warehouse: toFileUri(work), io });
  for (const namespace of options.namespaces ?? []) await catalog.createNamespace(namespace);
  const session = await DuckDbSession.open({ threads: 1 });
  return {
    work,
    io,
    catalog,
    session,
    async close() {
      session.close();
      await catalog.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
