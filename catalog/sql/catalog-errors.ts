/** Errors the SQL catalog raises, each naming the table or namespace. */
import { InvalidInputError, ThundError } from '../../src/errors.js';
import { messageOf } from '../catalog-errors.js';
import { formatIdentifier, type TableIdentifier } from '../catalog.js';

export function sqliteCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

export function checkTableName(identifier: TableIdentifier): void {
  if (identifier.name === '') {
    throw new InvalidInputError('A table name must not be empty', { context: { table: formatIdentifier(identifier) } });
  }
}

/** Runs a statement; SQLite failures become ThundErrors (busy/locked ones retryable). */
export function runSql<T>(catalog: string, what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw sqlError(catalog, what, error);
  }
}

export function sqlError(catalog: string, what: string, error: unknown): ThundError {
  if (error instanceof ThundError) return error;
  const code = sqliteCode(error);
  return new ThundError('CATALOG_SQL', `SQLite catalog ${catalog}: cannot ${what}: ${messageOf(error)}`, {
    cause: error,
    retryable: code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'),
    context: { catalog, sqliteCode: code },
  });
}
