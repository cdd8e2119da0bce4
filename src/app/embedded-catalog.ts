/**
 * The embedded default: a local warehouse folder with the SQLite catalog file inside it.
 * No services; pyiceberg's SqlCatalog and Spark's JdbcCatalog open the same file.
 */
import { resolve } from 'node:path';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';

export const DEFAULT_WAREHOUSE = './warehouse';
export const CATALOG_FILE_NAME = 'catalog.db';

export interface EmbeddedCatalogOptions {
  readonly warehouse?: string;
  readonly catalogName?: string;
}

export function openEmbeddedCatalog(options: EmbeddedCatalogOptions = {}): { catalog: SqlCatalog; io: LocalFileIO; warehousePath: string } {
  const warehousePath = resolve(options.warehouse ?? DEFAULT_WAREHOUSE);
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({
    ...(options.catalogName === undefined ? {} : { name: options.catalogName }),
    databasePath: resolve(warehousePath, CATALOG_FILE_NAME),
    warehouse: toFileUri(warehousePath),
    io,
  });
  return { catalog, io, warehousePath };
}
