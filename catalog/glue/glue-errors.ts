/**
 * Names and errors of the Glue catalog: Glue's naming rules for databases and tables, and how
 * AWS SDK failures map onto Thund's errors (a 4xx changed nothing; anything else may have).
 */
import { EntityNotFoundException } from '@aws-sdk/client-glue';
import { CommitStateUnknownError, InvalidInputError, ThundError } from '../../src/errors.js';
import { formatIdentifier, type TableIdentifier } from '../catalog.js';
import { messageOf } from '../catalog-errors.js';

/** Glue databases are flat: exactly one level, lower-case letters, digits and '_' (Glue's own rule). */
export function databaseName(namespace: readonly string[]): string {
  if (namespace.length !== 1) {
    throw new InvalidInputError(`Glue supports single-level namespaces only, got ${namespace.length} levels`, {
      context: { namespace: namespace.join('.') },
    });
  }
  const db = namespace[0] ?? '';
  if (!/^[a-z0-9_]{1,252}$/.test(db)) {
    throw new InvalidInputError(`Invalid Glue database name "${db}": use 1-252 lower-case letters, digits or '_'`, {
      context: { namespace: db },
    });
  }
  return db;
}

export function checkTableName(identifier: TableIdentifier): void {
  if (!/^[a-z0-9_]{1,255}$/.test(identifier.name)) {
    throw new InvalidInputError(`Invalid Glue table name "${identifier.name}": use lower-case letters, digits or '_'`, {
      context: { table: formatIdentifier(identifier) },
    });
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof EntityNotFoundException;
}

export function httpStatus(error: unknown): number | undefined {
  const meta = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return meta?.httpStatusCode;
}

/** A 4xx answer: Glue read the request and refused it, so it changed nothing. */
export function isClientRejection(error: unknown): boolean {
  const status = httpStatus(error);
  return status !== undefined && status >= 400 && status < 500;
}

/** Glue may or may not have applied the swap: the new metadata file must stay. */
export function unknownOutcome(table: string, metadataLocation: string, error: unknown): CommitStateUnknownError {
  return new CommitStateUnknownError(`Commit of ${table} to Glue has an unknown outcome: ${messageOf(error)}`, {
    cause: error,
    context: { table, metadataLocation },
  });
}

export function glueError(what: string, error: unknown): ThundError {
  const status = httpStatus(error);
  return new ThundError('CATALOG_ERROR', `Glue failed to ${what}${status === undefined ? '' : ` (HTTP ${status})`}: ${messageOf(error)}`, {
    cause: error,
    retryable: status === undefined || status >= 500 || status === 429,
    context: { operation: what, status },
  });
}
