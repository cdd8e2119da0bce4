/** Errors every catalog raises the same way, each naming the table or namespace. */
import { AlreadyExistsError, CommitConflictError, InvalidInputError, NoSuchNamespaceError, NoSuchTableError } from '../src/errors.js';
import { formatIdentifier, type TableIdentifier } from './catalog.js';

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

/** An `assert-create` commit lost to another writer that created the same table first. */
export function createdConcurrently(identifier: TableIdentifier, cause: unknown): CommitConflictError {
  return new CommitConflictError(`Requirement assert-create failed: ${formatIdentifier(identifier)} was created concurrently`, {
    cause,
    context: { requirement: 'assert-create', table: formatIdentifier(identifier) },
  });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A key both removed and set is ambiguous (the REST spec's 422); the reserved key may be neither. */
export function checkPropertyChanges(
  namespace: readonly string[],
  removals: readonly string[],
  updates: Readonly<Record<string, string>>,
  reserved: readonly string[] = [],
): void {
  const both = removals.filter((key) => Object.hasOwn(updates, key));
  if (both.length > 0) {
    throw new InvalidInputError(`Namespace ${namespace.join('.')}: properties both removed and set: ${both.join(', ')}`, {
      context: { namespace: namespace.join('.'), properties: both.join(',') },
    });
  }
  const touched = [...removals, ...Object.keys(updates)].filter((key) => reserved.includes(key));
  if (touched.length > 0) {
    throw new InvalidInputError(`Namespace ${namespace.join('.')}: cannot change reserved property "${touched[0]}"`, {
      context: { namespace: namespace.join('.'), property: touched[0] },
    });
  }
}
