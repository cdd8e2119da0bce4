export { SqlCatalog, DEFAULT_CATALOG_NAME } from './sql-catalog.js';
export { parseMetadataVersion, newMetadataFileLocation } from '../metadata-files.js';
export type { SqlCatalogOptions } from './sql-catalog.js';
export {
  CATALOG_TABLE,
  NAMESPACE_PROPERTIES_TABLE,
  NAMESPACE_EXISTS_PROPERTY,
  CREATE_CATALOG_TABLE_SQL,
  CREATE_NAMESPACE_PROPERTIES_TABLE_SQL,
  ADD_RECORD_TYPE_SQL,
  ensureCatalogSchema,
} from './schema.js';
