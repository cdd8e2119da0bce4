/** A table name as a person writes it (`namespace.table`, namespaces may nest) → its identifier. */
import type { TableIdentifier } from '../../catalog/catalog.js';
import { InvalidInputError } from '../errors.js';

export function parseTableName(text: string): TableIdentifier {
  const parts = text.split('.');
  if (parts.length < 2 || parts.some((part) => part === '')) {
    throw new InvalidInputError(`"${text}" is not a table name: write namespace.table, e.g. lake.orders`, { context: { table: text } });
  }
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1] as string };
}
