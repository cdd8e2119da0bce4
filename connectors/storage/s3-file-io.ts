/**
 * FileIO on S3 and S3-compatible object stores (MinIO) for `s3://bucket/key` locations
 * (`s3a://` and `s3n://` too, see s3-location.ts).
 *
 * Writes send `If-None-Match: *` (PutObject, and CompleteMultipartUpload for big files), so the
 * store itself refuses to replace an existing object: two writers racing for the same metadata
 * file cannot both win. Errors name the location and never the credentials (s3-errors.ts).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { readFile, stat, unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StorageError } from '../../src/errors.js';
import type { FileIO, ListedFile } from '../../src/iceberg/file-io.js';
import { createS3Client } from './s3-client.js';
import { alreadyExistsError, isPreconditionFailed, s3Error, statusOf } from './s3-errors.js';
import { parseS3Location, parseS3Prefix } from './s3-location.js';
import { uploadFileInParts } from './s3-multipart-upload.js';
import { partSizeFor, transferSettings, type S3FileIOOptions, type S3TransferSettings } from './s3-options.js';

export { isS3Location, parseS3Location, type S3Location } from './s3-location.js';
export type { S3Credentials, S3FileIOOptions } from './s3-options.js';

/** One object a listing found. */
export interface S3ObjectEntry {
  /** The object's location, in the scheme the listing was asked with. */
  readonly location: string;
  readonly key: string;
  readonly size: number;
}

/** An object as a listing found it: with the time it was last written. */
export type ListedS3Object = S3ObjectEntry & ListedFile;

export class S3FileIO implements FileIO {
  private readonly client: S3Client;
  private readonly settings: S3TransferSettings;

  constructor(options: S3FileIOOptions) {
    this.settings = transferSettings(options);
    this.client = createS3Client(options, this.settings);
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

  /** One GET with a Range header. */
  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(location, offset, length);
    const { bucket, key } = parseS3Location(location);
    try {
      if (length === 0) {
        await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return new Uint8Array(0);
      }
      const range = `bytes=${offset}-${offset + length - 1}`;
      const response = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
      if (response.Body === undefined) throw new StorageError(`Cannot read ${location}: the response has no body`, { context: { location } });
      return await response.Body.transformToByteArray();
    } catch (error) {
      throw s3Error('read', location, error);
    }
  }

  /** Streams an object into a new local file (never replacing one); a failed download leaves no file. */
  async readToFile(location: string, localPath: string): Promise<void> {
    const { bucket, key } = parseS3Location(location);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (response.Body === undefined) throw new StorageError(`Cannot read ${location}: the response has no body`, { context: { location } });
      await pipeline(response.Body as Readable, createWriteStream(localPath, { flags: 'wx' }));
      const written = (await stat(localPath)).size;
      if (response.ContentLength !== undefined && written !== response.ContentLength) {
        throw new StorageError(`Cannot read ${location}: got ${written} of ${response.ContentLength} bytes`, { retryable: true, context: { location } });
      }
    } catch (error) {
      if (isFileExists(error)) {
        throw new StorageError(`Cannot copy ${location} to ${localPath}: the local file already exists`, {
          cause: error,
          context: { location, path: localPath, reason: 'already-exists' },
        });
      }
      await unlink(localPath).catch(() => undefined);
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
      if (isPreconditionFailed(error)) throw alreadyExistsError(location, error);
      throw s3Error('write', location, error);
    }
  }

  /**
   * Files up to multipartThresholdBytes go in one PutObject (read whole: that size is the bound);
   * bigger ones as a multipart upload, a few parts in memory at a time.
   */
  async writeNewFromFile(location: string, localPath: string): Promise<void> {
    const target = parseS3Location(location);
    const size = await localFileSize(location, localPath);
    if (size <= this.settings.multipartThresholdBytes || size === 0) {
      await this.writeNew(location, await readSmallFile(location, localPath, size));
      return;
    }
    await uploadFileInParts({
      client: this.client,
      target,
      location,
      localPath,
      size,
      partSize: partSizeFor(size, this.settings.partSizeBytes),
      concurrency: this.settings.uploadConcurrency,
    });
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

  /** Every object whose key starts with the prefix `s3://bucket/prefix`, in key order, page by page. */
  async *list(prefixLocation: string): AsyncGenerator<ListedS3Object> {
    const parsed = parseS3Prefix(prefixLocation);
    if (parsed === undefined) {
      throw new StorageError(`S3FileIO cannot list ${prefixLocation}: expected s3://bucket/prefix`, {
        context: { location: prefixLocation, reason: 'unsupported-location' },
      });
    }
    const scheme = prefixLocation.slice(0, prefixLocation.indexOf('://') + 3);
    let continuationToken: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: parsed.bucket,
            Prefix: parsed.key,
            MaxKeys: this.settings.listPageSize,
            ContinuationToken: continuationToken,
          }),
        );
      } catch (error) {
        throw s3Error('list', prefixLocation, error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield {
          location: `${scheme}${parsed.bucket}/${object.Key}`,
          key: object.Key,
          size: object.Size ?? 0,
          // Without a time the object counts as just written: orphan removal keeps it.
          lastModifiedMs: object.LastModified?.getTime() ?? Date.now(),
        };
      }
      continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /** Objects have no local path: the data file writer stages locally and calls writeNewFromFile. */
  localPathFor(_location: string): string | undefined {
    return undefined;
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}

export function checkRange(location: string, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new StorageError(`Cannot read ${location}: invalid range offset ${offset}, length ${length}`, {
      context: { location, reason: 'invalid-range' },
    });
  }
}

async function localFileSize(location: string, localPath: string): Promise<number> {
  try {
    return (await stat(localPath)).size;
  } catch (error) {
    throw new StorageError(`Cannot write ${location}: cannot read ${localPath}`, { cause: error, context: { location, path: localPath } });
  }
}

async function readSmallFile(location: string, localPath: string, size: number): Promise<Uint8Array> {
  let bytes: Buffer;
  try {
    bytes = await readFile(localPath);
  } catch (error) {
    throw new StorageError(`Cannot write ${location}: cannot read ${localPath}`, { cause: error, context: { location, path: localPath } });
  }
  if (bytes.byteLength !== size) {
    throw new StorageError(`Cannot write ${location}: ${localPath} changed size while it was being uploaded`, {
      context: { location, path: localPath, reason: 'source-changed' },
    });
  }
  return bytes;
}

function isFileExists(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EEXIST';
}
