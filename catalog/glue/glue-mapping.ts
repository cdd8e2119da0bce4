/**
 * How Iceberg tables and namespaces map onto Glue, as Java's GlueCatalog and
 * IcebergToGlueConverter map them: an EXTERNAL_TABLE with `table_type=ICEBERG` and
 * `metadata_location` / `previous_metadata_location` parameters; a database whose LocationUri
 * and Description carry the `location` and `comment` namespace properties.
 */
import type { Database as GlueDatabase, DatabaseInput, Table as GlueTable, TableInput } from '@aws-sdk/client-glue';
import { IcebergFormatError, NoSuchTableError } from '../../src/errors.js';
import type { TableMetadata } from '../../src/iceberg/table-metadata.js';
import { formatIdentifier, type TableIdentifier } from '../catalog.js';

const TABLE_TYPE = 'table_type';
const ICEBERG = 'ICEBERG';
export const METADATA_LOCATION = 'metadata_location';
const PREVIOUS_METADATA_LOCATION = 'previous_metadata_location';
const LOCATION_PROPERTY = 'location';
const COMMENT_PROPERTY = 'comment';


/** Keeps whatever else the Glue table carried (other parameters, description) and swaps the pointers. */
export function tableInput(
  name: string,
  metadata: TableMetadata,
  metadataLocation: string,
  previous: string | undefined,
  existing: GlueTable | undefined,
): TableInput {
  return {
    Name: name,
    TableType: 'EXTERNAL_TABLE',
    ...(existing?.Description === undefined ? {} : { Description: existing.Description }),
    Parameters: {
      ...(existing?.Parameters ?? {}),
      [TABLE_TYPE]: ICEBERG,
      [METADATA_LOCATION]: metadataLocation,
      ...(previous === undefined ? {} : { [PREVIOUS_METADATA_LOCATION]: previous }),
    },
    StorageDescriptor: { ...(existing?.StorageDescriptor ?? {}), Location: metadata.location },
  };
}

export function isIcebergTable(table: GlueTable): boolean {
  return table.Parameters?.[TABLE_TYPE]?.toUpperCase() === ICEBERG;
}

export function currentMetadataLocation(identifier: TableIdentifier, table: GlueTable): string {
  if (!isIcebergTable(table)) {
    throw new NoSuchTableError(`Glue table ${formatIdentifier(identifier)} is not an Iceberg table`, {
      context: { table: formatIdentifier(identifier), tableType: table.Parameters?.[TABLE_TYPE] ?? '' },
    });
  }
  const location = table.Parameters?.[METADATA_LOCATION];
  if (location === undefined || location === '') {
    throw new IcebergFormatError(`Glue table ${formatIdentifier(identifier)} has no ${METADATA_LOCATION} parameter`, {
      context: { table: formatIdentifier(identifier) },
    });
  }
  return location;
}

/** Java's IcebergToGlueConverter.toDatabaseInput: `location` → LocationUri, `comment` → Description, the rest Parameters. */
export function databaseInput(db: string, properties: Readonly<Record<string, string>>): DatabaseInput {
  const { [LOCATION_PROPERTY]: location, [COMMENT_PROPERTY]: comment, ...parameters } = properties;
  return {
    Name: db,
    ...(location === undefined ? {} : { LocationUri: location }),
    ...(comment === undefined ? {} : { Description: comment }),
    Parameters: parameters,
  };
}

export function namespaceProperties(database: GlueDatabase): Record<string, string> {
  return {
    ...(database.Parameters ?? {}),
    ...(database.LocationUri === undefined || database.LocationUri === '' ? {} : { [LOCATION_PROPERTY]: database.LocationUri }),
    ...(database.Description === undefined ? {} : { [COMMENT_PROPERTY]: database.Description }),
  };
}

/** The input that recreates `source` under another name (Java keeps owner, type, parameters and storage descriptor). */
export function copiedTableInput(name: string, source: GlueTable): TableInput {
  return {
    Name: name,
    ...(source.Owner === undefined ? {} : { Owner: source.Owner }),
    ...(source.Description === undefined ? {} : { Description: source.Description }),
    ...(source.TableType === undefined ? {} : { TableType: source.TableType }),
    ...(source.Parameters === undefined ? {} : { Parameters: source.Parameters }),
    ...(source.StorageDescriptor === undefined ? {} : { StorageDescriptor: source.StorageDescriptor }),
  };
}
