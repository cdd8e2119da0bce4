/**
 * The embedded default: a local warehouse folder with the SQLite catalog file inside it.
 * No services; pyiceberg's SqlCatalog and Spark's JdbcCatalog open the same file.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { NoSuchTableError } from '../errors.js';
import { SqlCatalog } from '../../catalog/sql/index.js';
import { LocalFileIO, toFileUri } from '../../connectors/storage/local-file-io.js';

export const DEFAULT_WAREHOUSE = './warehouse';
export const CATALOG_FILE_NAME = 'catalog.db';

export interface EmbeddedCatalogOptions {
  readonly warehouse?: string;
  readonly catalogName?: string;
  /** Refuse a warehouse without a catalog file instead of creating it. */
  readonly existingOnly?: boolean;
}

export function openEmbeddedCatalog(options: EmbeddedCatalogOptions = {}): { catalog: SqlCatalog; io: LocalFileIO; warehousePath: string } {
  const warehousePath = resolve(options.warehouse ?? DEFAULT_WAREHOUSE);
  const databasePath = resolve(warehousePath, CATALOG_FILE_NAME);
  if (options.existingOnly === true && !existsSync(databasePath)) {
    const missing = existsSync(warehousePath) ? `no ${CATALOG_FILE_NAME} in the warehouse ${warehousePath}` : `the warehouse ${warehousePath} does not exist`;
    throw new NoSuchTableError(`${missing} (thund run creates it; --warehouse DIR names another)`, { context: { warehouse: warehousePath } });
  }
  const io = new LocalFileIO();
  const catalog = new SqlCatalog({
    ...(options.catalogName === undefined ? {} : { name: options.catalogName }),
    databasePath,
    warehouse: toFileUri(warehousePath),
    io,
  });
  return { catalog, io, warehousePath };
}
