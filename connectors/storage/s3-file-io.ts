/**
 * FileIO on S3 and S3-compatible object stores (MinIO) for `s3://bucket/key` locations
 * (`s3a://` and `s3n://`, Hadoop's spellings of the same thing, are accepted too).
 *
 * writeNew sends `If-None-Match: *`, so the store itself refuses to replace an existing object:
 * two writers racing for the same metadata file cannot both win. Errors name the location and
 * never the credentials; `retryable` is set for 5xx, throttling and network failures.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { StorageError } from '../../src/errors.js';
import type { FileIO } from '../../src/iceberg/file-io.js';

export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface S3FileIOOptions {
  /** e.g. `http://127.0.0.1:9000` for MinIO; omit for AWS. */
  readonly endpoint?: string;
  readonly region: string;
  /** Omit to use the SDK's default provider chain (environment, profile, instance role). */
  readonly credentials?: S3Credentials;
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and most S3-compatible stores need. */
  readonly forcePathStyle?: boolean;
}

export interface S3Location {
  readonly bucket: string;
  readonly key: string;
}

const S3_SCHEMES = ['s3://', 's3a://', 's3n://'];

/** True for locations S3FileIO serves. */
export function isS3Location(location: string): boolean {
  return S3_SCHEMES.some((scheme) => location.startsWith(scheme));
}

/** `s3://bucket/some/key` → { bucket, key }; the key is taken verbatim (no URL decoding). */
export function parseS3Location(location: string): S3Location {
  const scheme = S3_SCHEMES.find((candidate) => location.startsWith(candidate));
  if (scheme !== undefined) {
    const rest = location.slice(scheme.length);
    const slash = rest.indexOf('/');
    if (slash > 0 && slash < rest.length - 1) return { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
  }
  throw new StorageError(`S3FileIO cannot serve ${location}: expected s3://bucket/key`, {
    context: { location, reason: 'unsupported-location' },
  });
}

export class S3FileIO implements FileIO {
  private readonly client: S3Client;

  constructor(options: S3FileIOOptions) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
      forcePathStyle: options.forcePathStyle ?? false,
    });
  }

  async read(location: string): Promise<Uint8Array> {
    const { bucket, key } = parseS3Location(location);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (response.Body === undefined) throw new StorageError(`Cannot read ${location}: the response has no body`, { context: { location } });
      return await response.Body.transformToByteArray();
    } catch (error) {
      throw s3Error('read', location, error);
    }
  }

  /** One PutObject (S3 takes up to 5 GB that way) that the store refuses when the key exists. */
  async writeNew(location: string, bytes: Uint8Array): Promise<void> {
    const { bucket, key } = parseS3Location(location);
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.byteLength, IfNoneMatch: '*' }),
      );
    } catch (error) {
      if (statusOf(error) === 412) {
        throw new StorageError(`Cannot write ${location}: the object already exists`, {
          cause: error,
          context: { location, reason: 'already-exists' },
        });
      }
      throw s3Error('write', location, error);
    }
  }

  async exists(location: string): Promise<boolean> {
    const { bucket, key } = parseS3Location(location);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw s3Error('stat', location, error);
    }
  }

  async length(location: string): Promise<bigint> {
    const { bucket, key } = parseS3Location(location);
    let size: number | undefined;
    try {
      size = (await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength;
    } catch (error) {
      throw s3Error('stat', location, error);
    }
    if (size === undefined) throw new StorageError(`Cannot stat ${location}: the store sent no Content-Length`, { context: { location } });
    return BigInt(size);
  }

  /** Deleting an object that is already gone succeeds (S3 itself answers 204 for a missing key). */
  async delete(location: string): Promise<void> {
    const { bucket, key } = parseS3Location(location);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw s3Error('delete', location, error);
    }
  }

  /** Objects have no local path: the data file writer stages locally and calls writeNew. */
  localPathFor(_location: string): string | undefined {
    return undefined;
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}

const THROTTLING = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException', 'RequestTimeout']);
const NOT_FOUND = new Set(['NoSuchKey', 'NotFound', 'NoSuchBucket']);

function statusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && '$metadata' in error) {
    const metadata = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata;
    return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
  }
  return undefined;
}

function s3Error(operation: string, location: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const status = statusOf(error);
  const name = error instanceof Error ? error.name : undefined;
  const notFound = status === 404 || (name !== undefined && NOT_FOUND.has(name));
  const detail = name === 'NoSuchBucket' ? 'no such bucket' : notFound ? 'no such object' : describe(error, status);
  // A service answer below 500 is final; no answer at all (connection refused, reset, timeout) may pass.
  const retryable =
    (status !== undefined && (status >= 500 || status === 429)) ||
    (name !== undefined && THROTTLING.has(name)) ||
    (!(error instanceof S3ServiceException) && status === undefined);
  return new StorageError(`Cannot ${operation} ${location}: ${detail}`, {
    cause: error,
    retryable,
    context: { location, operation, httpStatus: status, s3Code: name, reason: notFound ? 'not-found' : undefined },
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
