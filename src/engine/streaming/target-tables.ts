/**
 * The streaming loop's tables: the target, created from the first batch's flow output when it
 * does not exist (all columns optional), and the dead-letter table with its fixed schema. Two
 * workers creating the same table at once both end up with the one that won.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../../catalog/catalog.js';
import { AlreadyExistsError, NoSuchTableError } from '../../errors.js';
import { duckDbTypeToIceberg } from '../../iceberg/duckdb-types.js';
import { assignFreshIds } from '../../iceberg/schema.js';
import type { Schema } from '../../iceberg/types.js';
import type { DescribedColumn } from './batch-flow.js';

export async function loadIfExists(catalog: Catalog, identifier: TableIdentifier): Promise<LoadedTable | undefined> {
  try {
    return await catalog.loadTable(identifier);
  } catch (error) {
    if (error instanceof NoSuchTableError) return undefined;
    throw error;
  }
}

export function schemaFromColumns(columns: readonly DescribedColumn[]): Schema {
  const { fields } = assignFreshIds(columns.map((c) => ({ name: c.name, required: false, type: duckDbTypeToIceberg(c.type, c.name) })));
  return { schemaId: 0, identifierFieldIds: [], fields };
}

export async function createOrLoad(
  catalog: Catalog,
  identifier: TableIdentifier,
  schema: Schema,
  properties: Readonly<Record<string, string>>,
): Promise<LoadedTable> {
  const existing = await loadIfExists(catalog, identifier);
  if (existing !== undefined) return existing;
  if (identifier.namespace.length > 0 && !(await catalog.namespaceExists(identifier.namespace))) {
    await catalog.createNamespace(identifier.namespace).catch((error: unknown) => {
      if (!(error instanceof AlreadyExistsError)) throw error;
    });
  }
  try {
    return await catalog.createTable(identifier, { schema, properties });
  } catch (error) {
    if (error instanceof AlreadyExistsError) return catalog.loadTable(identifier);
    throw error;
  }
}
