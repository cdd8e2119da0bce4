/**
 * Settings of S3FileIO: where the store is, how the SDK retries, and how big files are cut into
 * parts. Validated once, so a bad value fails at startup naming the option rather than mid-upload.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../src/errors.js';

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
  /** Attempts per request, the first one included (default 5); 1 turns retries off. */
  readonly maxAttempts?: number;
  /**
   * Backoff before the n-th retry: a random delay between d/2 and d, where
   * d = min(maxRetryDelayMs, retryBaseDelayMs · 2^(n-1)). Defaults 100 ms and 20 s.
   */
  readonly retryBaseDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** writeNewFromFile uses a multipart upload for files larger than this (default 16 MiB). */
  readonly multipartThresholdBytes?: number;
  /** Part size of multipart uploads, at least 5 MiB (default 8 MiB); grown when a file would need more than 10,000 parts. */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once (default 4); an upload holds about partSizeBytes × this in memory. */
  readonly uploadConcurrency?: number;
  /** Keys per ListObjectsV2 page (default and maximum 1000). */
  readonly listPageSize?: number;
  /** A request whose connection is not made within this fails, and is retried (default 5 s). */
  readonly connectTimeoutMs?: number;
  /** A request whose socket carries nothing for this long fails, and is retried (default 30 s): a store that stopped answering is noticed. */
  readonly idleTimeoutMs?: number;
}

export const MIB = 1024 * 1024;
/** S3's limits: every part but the last is 5 MiB to 5 GiB, and an upload has at most 10,000 parts. */
export const MIN_PART_SIZE = 5 * MIB;
export const MAX_PART_SIZE = 5 * 1024 * MIB;
export const MAX_PARTS = 10_000;

export interface S3TransferSettings {
  readonly maxAttempts: number;
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly multipartThresholdBytes: number;
  readonly partSizeBytes: number;
  readonly uploadConcurrency: number;
  readonly listPageSize: number;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

const Settings = z.object({
  maxAttempts: z.int().min(1).max(20).default(5),
  retryBaseDelayMs: z.int().min(0).max(60_000).default(100),
  maxRetryDelayMs: z.int().min(0).max(300_000).default(20_000),
  multipartThresholdBytes: z.int().min(0).default(16 * MIB),
  partSizeBytes: z.int().min(MIN_PART_SIZE).max(MAX_PART_SIZE).default(8 * MIB),
  uploadConcurrency: z.int().min(1).max(64).default(4),
  listPageSize: z.int().min(1).max(1000).default(1000),
  connectTimeoutMs: z.int().min(100).max(300_000).default(5_000),
  idleTimeoutMs: z.int().min(100).max(3_600_000).default(30_000),
});

export function transferSettings(options: S3FileIOOptions): S3TransferSettings {
  const parsed = Settings.safeParse({
    maxAttempts: options.maxAttempts,
    retryBaseDelayMs: options.retryBaseDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs,
    multipartThresholdBytes: options.multipartThresholdBytes,
    partSizeBytes: options.partSizeBytes,
    uploadConcurrency: options.uploadConcurrency,
    listPageSize: options.listPageSize,
    connectTimeoutMs: options.connectTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new InvalidInputError(`Invalid S3 settings: ${problems}`, { context: { problems } });
  }
  return parsed.data;
}

/** The part size for a file: the configured one, grown in whole MiB until the file fits in 10,000 parts. */
export function partSizeFor(fileSize: number, configured: number): number {
  if (fileSize <= configured * MAX_PARTS) return configured;
  return Math.ceil(fileSize / MAX_PARTS / MIB) * MIB;
}
