/** Errors the SQL catalog raises, each naming the table or namespace. */
import { AlreadyExistsError, NoSuchNamespaceError, NoSuchTableError } from '../../src/errors.js';
import { formatIdentifier, type TableIdentifier } from '../catalog.js';

export function noSuchTable(identifier: TableIdentifier): NoSuchTableError {
  return new NoSuchTableError(`Table does not exist: ${formatIdentifier(identifier)}`, {
    context: { table: formatIdentifier(identifier) },
  });
}

export function noSuchNamespace(namespace: readonly string[]): NoSuchNamespaceError {
  return new NoSuchNamespaceError(`Namespace does not exist: ${namespace.join('.')}`, {
    context: { namespace: namespace.join('.') },
  });
}

export function alreadyExists(identifier: TableIdentifier, cause?: unknown): AlreadyExistsError {
  return new AlreadyExistsError(`Table already exists: ${formatIdentifier(identifier)}`, {
    cause,
    context: { table: formatIdentifier(identifier) },
  });
}

export function sqliteCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
