/**
 * Loading a table that may not exist, and creating one (the dead-letter table, with its fixed
 * schema) that two workers may create at once: both end up with the one that won.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../../../catalog/catalog.js';
import { ensureNamespace } from '../../../../catalog/ensure-namespace.js';
import { AlreadyExistsError, NoSuchTableError } from '../../../errors.js';
import type { Schema } from '../../../iceberg/types.js';

export async function loadIfExists(catalog: Catalog, identifier: TableIdentifier): Promise<LoadedTable | undefined> {
  try {
    return await catalog.loadTable(identifier);
  } catch (error) {
    if (error instanceof NoSuchTableError) return undefined;
    throw error;
  }
}

export async function createOrLoad(
  catalog: Catalog,
  identifier: TableIdentifier,
  schema: Schema,
  properties: Readonly<Record<string, string>>,
): Promise<LoadedTable> {
  const existing = await loadIfExists(catalog, identifier);
  if (existing !== undefined) return existing;
  await ensureNamespace(catalog, identifier.namespace);
  try {
    return await catalog.createTable(identifier, { schema, properties });
  } catch (error) {
    if (error instanceof AlreadyExistsError) return catalog.loadTable(identifier);
    throw error;
  }
}
