/**
 * The streaming loop's tables: the target, created from the first batch's flow output when it
 * does not exist (all columns optional), and the dead-letter table with its fixed schema. Two
 * workers creating the same table at once both end up with the one that won.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../../../catalog/catalog.js';
import { AlreadyExistsError, NoSuchTableError } from '../../../errors.js';
import { duckDbTypeToIceberg } from '../../../iceberg/duckdb-types.js';
import { assignFreshIds, type UnassignedField } from '../../../iceberg/schema.js';
import { evolveSchema } from '../../../iceberg/schema-evolution.js';
import { schemaUpdate, type SchemaUpdate } from '../../../iceberg/schema-update.js';
import { currentSchema } from '../../../iceberg/snapshot-ancestry.js';
import type { TableMetadata } from '../../../iceberg/table-metadata.js';
import type { Schema } from '../../../iceberg/types.js';
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

export interface AddedColumns {
  /** Empty updates when the table has every column already (another worker may have added them). */
  readonly update: SchemaUpdate;
  readonly added: readonly string[];
  /** Output columns no Iceberg type fits (only nulls, say): still not written. */
  readonly untyped: readonly string[];
}

/**
 * The schema change that adds the output columns a table lacks, optional, typed from the batch
 * and appended after the existing ones with fresh ids (schema-evolution.ts; existing columns
 * stay as they are).
 */
export function addedColumnsUpdate(table: string, metadata: TableMetadata, columns: readonly DescribedColumn[]): AddedColumns {
  const current = currentSchema(metadata).fields;
  const incoming: UnassignedField[] = [];
  const untyped: string[] = [];
  for (const column of columns) {
    try {
      incoming.push({ name: column.name, required: false, type: duckDbTypeToIceberg(column.type, column.name) });
    } catch {
      untyped.push(column.name);
    }
  }
  const evolution = evolveSchema({ table, fields: current, lastColumnId: metadata.lastColumnId, incoming: [...current, ...incoming] });
  const added = evolution.changes.flatMap((change) => (change.kind === 'add-column' ? [change.path.join('.')] : []));
  return { update: schemaUpdate(metadata, evolution.fields), added, untyped };
}
