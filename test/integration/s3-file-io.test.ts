/**
 * S3FileIO against the MinIO of the test stack: bytes round-trip (one object over 5 MB), writeNew
 * never replaces an object, missing objects and bad credentials fail with a StorageError naming
 * the location and not the secret, and the data file writer puts Parquet files on S3 through it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileIoFor } from '../../connectors/storage/file-io-for.js';
import { LocalFileIO } from '../../connectors/storage/local-file-io.js';
import { S3FileIO, type S3FileIOOptions } from '../../connectors/storage/s3-file-io.js';
import { DuckDbSession } from '../../src/duckdb/session.js';
import { StorageError } from '../../src/errors.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3FileIOOptions } from '../stack/s3-env.js';

let options: S3FileIOOptions;
let io: S3FileIO;
let root: string;

beforeAll(() => {
  options = testS3FileIOOptions();
  io = new S3FileIO(options);
  root = `s3://${requireServiceEnv('THUND_TEST_S3_BUCKET')}/it-s3-file-io/${randomUUID()}`;
});

afterAll(() => io?.close());

/** Every byte value first, then random bytes. */
function sampleBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < Math.min(256, size); i++) bytes[i] = i;
  if (size > 256) bytes.set(randomBytes(size - 256), 256);
  return bytes;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to fail');
}

describe('S3FileIO (MinIO)', () => {
  it('round-trips bytes, including a 6 MB object', async () => {
    for (const size of [0, 1, 300_000, 6 * 1024 * 1024]) {
      const location = `${root}/round-trip/${size}.bin`;
      const bytes = sampleBytes(size);
      await io.writeNew(location, bytes);
      const back = await io.read(location);
      expect(back.byteLength).toBe(size);
      expect(Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
      expect(await io.length(location)).toBe(BigInt(size));
    }
  });

  it('accepts s3a:// for the same object', async () => {
    const location = `${root}/scheme/a.bin`;
    await io.writeNew(location, sampleBytes(10));
    expect(Buffer.from(await io.read(location.replace(/^s3:/, 's3a:'))).equals(Buffer.from(sampleBytes(10)))).toBe(true);
  });

  it('refuses to overwrite in writeNew and keeps the original bytes', async () => {
    const location = `${root}/metadata/00000-first.metadata.json`;
    const original = new TextEncoder().encode('{"format-version":2}');
    await io.writeNew(location, original);
    const error = await caught(io.writeNew(location, new TextEncoder().encode('something else')));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).message).toContain(location);
    expect((error as StorageError).message).toMatch(/already exists/);
    expect((error as StorageError).context['reason']).toBe('already-exists');
    expect((error as StorageError).retryable).toBe(false);
    expect(Buffer.from(await io.read(location)).equals(Buffer.from(original))).toBe(true);
  });

  it('answers exists and length, and deletes (a missing object too)', async () => {
    const location = `${root}/lifecycle/file.bin`;
    expect(await io.exists(location)).toBe(false);
    await io.writeNew(location, sampleBytes(1234));
    expect(await io.exists(location)).toBe(true);
    expect(await io.length(location)).toBe(1234n);
    await io.delete(location);
    expect(await io.exists(location)).toBe(false);
    await expect(io.delete(location)).resolves.toBeUndefined();
    const lengthError = await caught(io.length(location));
    expect(lengthError).toBeInstanceOf(StorageError);
    expect((lengthError as StorageError).message).toContain(location);
  });

  it('fails to read a missing object with a StorageError naming the location', async () => {
    const location = `${root}/missing/nothing-here.parquet`;
    const error = await caught(io.read(location));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).message).toContain(location);
    expect((error as StorageError).context['reason']).toBe('not-found');
    expect((error as StorageError).retryable).toBe(false);
  });

  it('fails with wrong credentials without revealing the secret', async () => {
    const secret = `wrong-secret-${randomUUID()}`;
    const stranger = new S3FileIO({ ...options, credentials: { accessKeyId: 'not-the-key', secretAccessKey: secret } });
    try {
      for (const operation of [
        () => stranger.read(`${root}/any.bin`),
        () => stranger.writeNew(`${root}/any.bin`, sampleBytes(3)),
        () => stranger.length(`${root}/any.bin`),
      ]) {
        const error = await caught(operation());
        expect(error).toBeInstanceOf(StorageError);
        const storageError = error as StorageError;
        expect(storageError.message).toContain(`${root}/any.bin`);
        expect(storageError.context['httpStatus']).toBe(403);
        expect(storageError.retryable).toBe(false);
        const shown = [storageError.message, storageError.stack, JSON.stringify(storageError.context), String(storageError.cause)].join('\n');
        expect(shown).not.toContain(secret);
        expect(shown).not.toContain(options.credentials!.secretAccessKey);
      }
    } finally {
      stranger.close();
    }
  });

  it('marks an unreachable endpoint as retryable', async () => {
    const nowhere = new S3FileIO({ ...options, endpoint: 'http://127.0.0.1:9' });
    try {
      const error = await caught(nowhere.read(`${root}/any.bin`));
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).message).toContain(`${root}/any.bin`);
      expect((error as StorageError).retryable).toBe(true);
    } finally {
      nowhere.close();
    }
  });

  it('fileIoFor picks S3FileIO for s3:// and LocalFileIO for file:', () => {
    expect(fileIoFor(`${root}/x`, { s3: options })).toBeInstanceOf(S3FileIO);
    expect(fileIoFor('file:///tmp/x')).toBeInstanceOf(LocalFileIO);
    expect(fileIoFor('/tmp/x')).toBeInstanceOf(LocalFileIO);
    expect(() => fileIoFor(`${root}/x`)).toThrow(/S3/);
    expect(() => fileIoFor('gs://bucket/x')).toThrow(/gs:\/\/bucket\/x/);
  });

  it('writes Parquet data files to S3 through writeDataFiles', async () => {
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'payload', required: false, type: primitive('string') },
    ]);
    const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields };
    const rows = 200_000;
    const dataLocation = `${root}/table/data`;
    const session = await DuckDbSession.open();
    try {
      const files = await writeDataFiles({
        session,
        query: `SELECT range::BIGINT AS id, md5(range::VARCHAR) AS payload FROM range(${rows})`,
        schema,
        specId: 0,
        dataLocation,
        io,
        properties: { 'write.target-file-size-bytes': String(1024 * 1024) },
        writerName: 's3-test',
      });
      expect(files.length).toBeGreaterThan(1);
      expect(files.reduce((n, file) => n + file.recordCount, 0n)).toBe(BigInt(rows));
      for (const file of files) {
        expect(file.filePath.startsWith(`${dataLocation}/`)).toBe(true);
        expect(await io.length(file.filePath)).toBe(file.fileSizeInBytes);
      }
      const bytes = await io.read(files[0]!.filePath);
      const magic = (at: number) => new TextDecoder().decode(bytes.subarray(at, at + 4));
      expect(magic(0)).toBe('PAR1');
      expect(magic(bytes.byteLength - 4)).toBe('PAR1');
    } finally {
      session.close();
    }
  });
});
