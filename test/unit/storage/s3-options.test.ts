import { describe, expect, it } from 'vitest';
import { S3FileIO } from '../../../connectors/storage/s3-file-io.js';
import { MAX_PARTS, MIB, partSizeFor, transferSettings } from '../../../connectors/storage/s3-options.js';
import { InvalidInputError } from '../../../src/errors.js';

const base = { region: 'us-east-1' };

describe('S3 settings', () => {
  it('fills in defaults: 5 attempts, 8 MiB parts above 16 MiB, 4 parts at once, pages of 1000, 5 s to connect, 30 s of silence', () => {
    expect(transferSettings(base)).toEqual({
      maxAttempts: 5,
      retryBaseDelayMs: 100,
      maxRetryDelayMs: 20_000,
      multipartThresholdBytes: 16 * MIB,
      partSizeBytes: 8 * MIB,
      uploadConcurrency: 4,
      listPageSize: 1000,
      connectTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
    });
  });

  it('rejects values S3 cannot work with, naming the option', () => {
    expect(() => new S3FileIO({ ...base, partSizeBytes: 1 * MIB })).toThrow(InvalidInputError);
    expect(() => new S3FileIO({ ...base, partSizeBytes: 1 * MIB })).toThrow(/partSizeBytes/);
    expect(() => new S3FileIO({ ...base, maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => new S3FileIO({ ...base, uploadConcurrency: 1.5 })).toThrow(/uploadConcurrency/);
    expect(() => new S3FileIO({ ...base, listPageSize: 5000 })).toThrow(/listPageSize/);
  });

  it('grows the part size in whole MiB when a file would need more than 10,000 parts', () => {
    expect(partSizeFor(100 * MIB, 8 * MIB)).toBe(8 * MIB);
    expect(partSizeFor(8 * MIB * MAX_PARTS, 8 * MIB)).toBe(8 * MIB);
    const huge = 8 * MIB * MAX_PARTS + 1;
    const grown = partSizeFor(huge, 8 * MIB);
    expect(grown % MIB).toBe(0);
    expect(Math.ceil(huge / grown)).toBeLessThanOrEqual(MAX_PARTS);
    expect(grown).toBe(9 * MIB);
  });
});
