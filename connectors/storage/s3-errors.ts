/**
 * S3 SDK failures → StorageError naming the location and never the credentials; `retryable` is
 * set for 5xx, throttling and network failures (the SDK has already retried those by then).
 */
import { S3ServiceException } from '@aws-sdk/client-s3';
import { StorageError } from '../../src/errors.js';

const THROTTLING = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException', 'RequestTimeout']);
const NOT_FOUND = new Set(['NoSuchKey', 'NotFound', 'NoSuchBucket']);

export function statusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && '$metadata' in error) {
    const metadata = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata;
    return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
  }
  return undefined;
}

/** A conditional write (`If-None-Match: *`) refused because the key exists. */
export function isPreconditionFailed(error: unknown): boolean {
  return statusOf(error) === 412 || (error instanceof Error && error.name === 'PreconditionFailed');
}

export function alreadyExistsError(location: string, cause?: unknown): StorageError {
  return new StorageError(`Cannot write ${location}: the object already exists`, {
    cause,
    context: { location, reason: 'already-exists' },
  });
}

export function s3Error(operation: string, location: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const status = statusOf(error);
  const name = error instanceof Error ? error.name : undefined;
  const notFound = status === 404 || (name !== undefined && NOT_FOUND.has(name));
  const outOfRange = status === 416 || name === 'InvalidRange';
  const detail = name === 'NoSuchBucket' ? 'no such bucket' : notFound ? 'no such object' : outOfRange ? 'range starts past the end of the object' : describe(error, status);
  // A service answer below 500 is final; no answer at all (connection refused, reset, timeout) may pass.
  const retryable =
    (status !== undefined && (status >= 500 || status === 429)) ||
    (name !== undefined && THROTTLING.has(name)) ||
    (!(error instanceof S3ServiceException) && status === undefined);
  return new StorageError(`Cannot ${operation} ${location}: ${detail}`, {
    cause: error,
    retryable,
    context: {
      location,
      operation,
      httpStatus: status,
      s3Code: name,
      reason: notFound ? 'not-found' : outOfRange ? 'out-of-range' : undefined,
    },
  });
}

function describe(error: unknown, status: number | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : 'Error';
  // HEAD answers carry no body, so the SDK has only the status to go on ("Unknown", "UnknownError").
  const vague = message === '' || message === name || message === 'UnknownError' || message === 'Unknown';
  const text = vague ? (status === 403 ? 'access denied' : name) : `${name}: ${message}`;
  return status === undefined ? text : `${text} (HTTP ${status})`;
}
