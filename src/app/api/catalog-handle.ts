/**
 * A catalog opened from code: the embedded SQLite catalog (the default), a REST catalog or AWS
 * Glue, from a config object written as a pipeline spec's `catalog` and `storage` blocks are
 * (checked by the same schemas, opened by the same code as `thund run`).
 */
import type { TableIdentifier } from '../../../catalog/catalog.js';
import { parseTableName } from '../table-name.js';
import type { ConnectionConfig } from '../connection-config.js';
import { tableHandle, type ThundTable } from './table-handle.js';

export interface ThundCatalog {
  /** One line for people: `warehouse: /abs/dir` or `catalog: rest http://…`. */
  readonly description: string;
  /** The embedded catalog's warehouse folder. */
  readonly warehousePath?: string;
  /** A table by name (`namespace.table`); it need not exist until written. */
  table(name: string | TableIdentifier): ThundTable;
  /** The tables of a namespace. */
  listTables(namespace: string | readonly string[]): Promise<TableIdentifier[]>;
  close(): Promise<void>;
}

export async function openCatalog(config: ConnectionConfig = {}): Promise<ThundCatalog> {
  // Loaded here: the config's schemas, the embedded catalog's SQLite and the REST and Glue clients are not needed to import the package.
  const [{ connectionFromConfig }, { openCatalog: openConnection }] = await Promise.all([import('../connection-config.js'), import('../open-catalog.js')]);
  const connection = connectionFromConfig(config);
  const opened = await openConnection(connection);
  return {
    description: opened.description,
    ...(opened.warehousePath === undefined ? {} : { warehousePath: opened.warehousePath }),
    table: (name) => tableHandle(opened, typeof name === 'string' ? parseTableName(name) : name),
    listTables: (namespace) => opened.catalog.listTables(typeof namespace === 'string' ? namespace.split('.') : namespace),
    close: () => opened.close(),
  };
}
