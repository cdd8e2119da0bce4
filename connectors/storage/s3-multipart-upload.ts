/**
 * Uploads a local file as one S3 object in parts, holding at most `concurrency` parts in memory.
 *
 * The object appears only when CompleteMultipartUpload succeeds, and that call carries
 * `If-None-Match: *`, so an existing object is never replaced: of two writers racing for one
 * key exactly one completes, the other gets 412. On any failure (a part, the completion, the
 * local file) the upload is aborted once no part request is in flight any more, so the store
 * keeps no orphaned parts.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { open, type FileHandle } from 'node:fs/promises';
import { StorageError } from '../../src/errors.js';
import { runLimited } from './run-limited.js';
import { alreadyExistsError, isPreconditionFailed, s3Error } from './s3-errors.js';
import type { S3Location } from './s3-location.js';

export interface MultipartUploadRequest {
  readonly client: S3Client;
  readonly target: S3Location;
  /** The target as written, for messages. */
  readonly location: string;
  readonly localPath: string;
  /** The file's size when the upload starts; a file that changes size meanwhile fails the upload. */
  readonly size: number;
  readonly partSize: number;
  readonly concurrency: number;
}

export async function uploadFileInParts(request: MultipartUploadRequest): Promise<void> {
  const { client, target, location } = request;
  let uploadId: string | undefined;
  try {
    const created = await client.send(
      new CreateMultipartUploadCommand({ Bucket: target.bucket, Key: target.key, ChecksumAlgorithm: 'CRC32' }),
    );
    uploadId = created.UploadId;
    if (uploadId === undefined) throw new StorageError(`Cannot write ${location}: the store returned no upload id`, { context: { location } });
    const parts = await uploadParts(request, uploadId);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: target.bucket,
        Key: target.key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
        IfNoneMatch: '*',
      }),
    );
  } catch (error) {
    if (uploadId !== undefined) await abort(client, target, uploadId);
    if (isPreconditionFailed(error)) throw alreadyExistsError(location, error);
    throw s3Error('write', location, error);
  }
}

async function uploadParts(request: MultipartUploadRequest, uploadId: string): Promise<CompletedPart[]> {
  const partCount = Math.ceil(request.size / request.partSize);
  const parts: CompletedPart[] = new Array<CompletedPart>(partCount);
  const handle = await openForUpload(request);
  // One buffer per part in flight, reused: memory stays at concurrency × partSize, however big
  // the file, instead of waiting for the garbage collector to free a buffer per part.
  const buffers: Buffer[] = [];
  try {
    await runLimited(partCount, request.concurrency, async (index) => {
      const buffer = buffers.pop() ?? Buffer.allocUnsafe(request.partSize);
      try {
        parts[index] = await uploadPart(request, handle, uploadId, index, buffer);
      } finally {
        buffers.push(buffer);
      }
    });
  } finally {
    await handle.close();
  }
  return parts;
}

async function uploadPart(
  request: MultipartUploadRequest,
  handle: FileHandle,
  uploadId: string,
  index: number,
  buffer: Buffer,
): Promise<CompletedPart> {
  const offset = index * request.partSize;
  const length = Math.min(request.partSize, request.size - offset);
  const bytes = buffer.subarray(0, length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(bytes, filled, length - filled, offset + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled < length) {
    throw new StorageError(`Cannot write ${request.location}: ${request.localPath} shrank while it was being uploaded`, {
      context: { location: request.location, path: request.localPath, reason: 'source-changed' },
    });
  }
  const partNumber = index + 1;
  const answer = await request.client.send(
    new UploadPartCommand({
      Bucket: request.target.bucket,
      Key: request.target.key,
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: bytes,
      ContentLength: length,
      ChecksumAlgorithm: 'CRC32',
    }),
  );
  return { PartNumber: partNumber, ETag: answer.ETag, ChecksumCRC32: answer.ChecksumCRC32 };
}

async function openForUpload(request: MultipartUploadRequest): Promise<FileHandle> {
  try {
    return await open(request.localPath, 'r');
  } catch (error) {
    throw new StorageError(`Cannot write ${request.location}: cannot open ${request.localPath}`, {
      cause: error,
      context: { location: request.location, path: request.localPath },
    });
  }
}

/**
 * Best effort: when the abort itself fails the parts stay until a bucket lifecycle rule
 * (AbortIncompleteMultipartUpload) removes them; the caller still gets the original error.
 */
async function abort(client: S3Client, target: S3Location, uploadId: string): Promise<void> {
  try {
    await client.send(new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: target.key, UploadId: uploadId }));
  } catch {
    // The original failure is what the caller needs to see.
  }
}
