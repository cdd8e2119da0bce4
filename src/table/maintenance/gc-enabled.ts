/**
 * Java's `gc.enabled`: false says the table's files may be shared with another table, so no
 * maintenance action may delete them (Java's ExpireSnapshots and DeleteOrphanFiles refuse too).
 */
import { formatIdentifier, type TableIdentifier } from '../../../catalog/catalog.js';
import { InvalidInputError } from '../../errors.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';

export const GC_ENABLED_PROPERTY = 'gc.enabled';

export function requireGcEnabled(metadata: TableMetadata, identifier: TableIdentifier, action: string): void {
  if (metadata.properties[GC_ENABLED_PROPERTY]?.toLowerCase() !== 'false') return;
  const table = formatIdentifier(identifier);
  throw new InvalidInputError(`Cannot ${action} ${table}: its property gc.enabled is false (its files may be shared with other tables, so none may be deleted)`, {
    context: { table, property: GC_ENABLED_PROPERTY },
  });
}
