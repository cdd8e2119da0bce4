/**
 * One error family for the whole project. Every error carries a stable code, whether a retry
 * may succeed, and structured context naming the record, file, field or flow that is wrong.
 * Messages often repeat what a server answered: the message, the context and the cause chain are
 * scrubbed of every secret the process holds (secrets.ts) when the error is made.
 */
import { scrubErrorChain, scrubSecrets } from './secrets.js';

export type ErrorContext = Readonly<Record<string, string | number | bigint | boolean | undefined>>;

export interface ThundErrorOptions {
  readonly retryable?: boolean;
  readonly cause?: unknown;
  readonly context?: ErrorContext;
}

export class ThundError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly context: ErrorContext;

  constructor(code: string, message: string, options: ThundErrorOptions = {}) {
    super(scrubSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.context = scrubbedContext(options.context ?? {});
    scrubErrorChain(options.cause);
  }
}

function scrubbedContext(context: ErrorContext): ErrorContext {
  return Object.fromEntries(Object.entries(context).map(([key, value]) => [key, typeof value === 'string' ? scrubSecrets(value) : value]));
}

/** Input from a user (pipeline spec, CLI arguments, source data) is wrong. */
export class InvalidInputError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('INVALID_INPUT', message, options);
  }
}

/** A value or type cannot be represented in Iceberg, or metadata breaks the spec. */
export class IcebergFormatError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('ICEBERG_FORMAT', message, options);
  }
}

/** A commit requirement did not hold against the current table state (retry after refresh). */
export class CommitConflictError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('COMMIT_CONFLICT', message, { retryable: true, ...options });
  }
}

/** The commit outcome is unknown (5xx, timeout): never clean up files, reload and look. */
export class CommitStateUnknownError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('COMMIT_STATE_UNKNOWN', message, options);
  }
}

export class NoSuchTableError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('NO_SUCH_TABLE', message, options);
  }
}

export class NoSuchNamespaceError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('NO_SUCH_NAMESPACE', message, options);
  }
}

/**
 * Another writer changed the table's schema or partition spec while a commit that also changes
 * them was in flight:
 * the change must be recomputed from the new schema (not retried as it is).
 */
export class ConcurrentSchemaChangeError extends CommitConflictError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'ConcurrentSchemaChangeError';
  }
}

/**
 * The source positions a streaming batch started from are no longer the table's: another run of
 * the same flow committed first. The batch is planned again from the table's positions, never
 * committed on top of them (it would land the same input twice).
 */
export class StalePositionsError extends CommitConflictError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'StalePositionsError';
  }
}

/**
 * A maintenance rewrite (compaction, position delete rewrite) met a concurrent commit that
 * deleted rows from, or removed, a file it rewrites: nothing was committed; plan it again.
 */
export class CompactionConflictError extends CommitConflictError {
  override readonly code = 'COMPACTION_CONFLICT';

  constructor(message: string, options: ThundErrorOptions = {}) {
    super(message, { ...options, retryable: false });
    this.name = 'CompactionConflictError';
  }
}

/** A namespace cannot be dropped while it holds tables, views or child namespaces. */
export class NamespaceNotEmptyError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('NAMESPACE_NOT_EMPTY', message, options);
    this.name = 'NamespaceNotEmptyError';
  }
}

export class AlreadyExistsError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('ALREADY_EXISTS', message, options);
  }
}

/** Reading or writing bytes failed (file system, object store). */
export class StorageError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('STORAGE', message, options);
  }
}

/** A pipeline flow failed while running (SQL error, bad source data). */
export class FlowError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('FLOW_FAILED', message, options);
  }
}

/** The table exists with a schema that the pipeline's output cannot be written into. */
export class SchemaMismatchError extends ThundError {
  constructor(message: string, options: ThundErrorOptions = {}) {
    super('SCHEMA_MISMATCH', message, options);
  }
}
