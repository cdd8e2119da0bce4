/**
 * S3FileIO against the MinIO of the test stack: bytes round-trip (one object over 5 MB), writeNew
 * never replaces an object, missing objects and bad credentials fail with a StorageError naming
 * the location and not the secret, and the data file writer puts Parquet files on S3 through it.
 * writeNewFromFile: multipart uploads read back byte for byte, of two racing writers exactly one
 * wins, and a failed upload leaves no parts behind; readRange reads exact byte ranges.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileIoFor } from '../../connectors/storage/file-io-for.js';
import { LocalFileIO } from '../../connectors/storage/local-file-io.js';
import { S3FileIO, parseS3Location, type S3FileIOOptions } from '../../connectors/storage/s3-file-io.js';
import { uploadFileInParts } from '../../connectors/storage/s3-multipart-upload.js';
import { DuckDbSession, quoteLiteral } from '../../src/duckdb/session.js';
import { StorageError } from '../../src/errors.js';
import { assignFreshIds } from '../../src/iceberg/schema.js';
import { primitive, type Schema } from '../../src/iceberg/types.js';
import { writeDataFiles } from '../../src/write/data-file-writer.js';
import { requireServiceEnv } from '../stack/service.js';
import { testS3Client, testS3FileIOOptions } from '../stack/s3-env.js';

const MIB = 1024 * 1024;
let options: S3FileIOOptions;
/** Cuts files above 5 MiB into 5 MiB parts, so multipart uploads stay small in tests. */
let multipartOptions: S3FileIOOptions;
let io: S3FileIO;
let raw: S3Client;
let root: string;
let work: string;

beforeAll(() => {
  options = testS3FileIOOptions();
  multipartOptions = { ...options, multipartThresholdBytes: 5 * MIB, partSizeBytes: 5 * MIB };
  io = new S3FileIO(options);
  raw = testS3Client();
  root = `s3://${requireServiceEnv('THUND_TEST_S3_BUCKET')}/it-s3-file-io/${randomUUID()}`;
  work = mkdtempSync(join(tmpdir(), 'thund-s3-it-'));
});

afterAll(() => {
  io?.close();
  raw?.destroy();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function localFile(name: string, bytes: Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

async function etagOf(location: string): Promise<string> {
  const { bucket, key } = parseS3Location(location);
  return (await raw.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? '';
}

async function openUploads(location: string): Promise<unknown[]> {
  const { bucket, key } = parseS3Location(location);
  return (await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }))).Uploads ?? [];
}

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

describe('S3FileIO.writeNewFromFile (MinIO)', () => {
  it('uploads a file over the threshold in parts and reads it back byte-identical', async () => {
    const big = new S3FileIO(multipartOptions);
    try {
      const bytes = sampleBytes(12 * MIB + 12_345);
      const location = `${root}/multipart/big.bin`;
      await big.writeNewFromFile(location, localFile('big.bin', bytes));
      // A multipart object's ETag ends in the part count: 5 + 5 + 2 MiB.
      expect(await etagOf(location)).toMatch(/-3"$/);
      expect(await big.length(location)).toBe(BigInt(bytes.byteLength));
      expect(Buffer.from(await big.read(location)).equals(Buffer.from(bytes))).toBe(true);
      expect(await openUploads(location)).toEqual([]);
    } finally {
      big.close();
    }
  });

  it('sends a file up to the threshold in one PutObject, through s3n:// too', async () => {
    const bytes = sampleBytes(300_000);
    const location = `${root}/single/small.bin`;
    await io.writeNewFromFile(location.replace(/^s3:/, 's3n:'), localFile('small.bin', bytes));
    expect(await etagOf(location)).not.toContain('-');
    expect(Buffer.from(await io.read(location)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('of two writers racing for one key exactly one wins, and the loser leaves no parts', async () => {
    const writers = [new S3FileIO(multipartOptions), new S3FileIO(multipartOptions)];
    try {
      const location = `${root}/race/data.parquet`;
      const files = writers.map((_, i) => sampleBytes(11 * MIB + i));
      const paths = files.map((bytes, i) => localFile(`racer-${i}.bin`, bytes));
      const results = await Promise.allSettled(writers.map((writer, i) => writer.writeNewFromFile(location, paths[i]!)));
      const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
      expect(winners).toHaveLength(1);
      const loser = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(StorageError);
      expect((loser.reason as StorageError).context['reason']).toBe('already-exists');
      expect(Buffer.from(await io.read(location)).equals(Buffer.from(files[winners[0]!]!))).toBe(true);
      expect(await openUploads(location)).toEqual([]);

      // Not only in a race: a later multipart upload to the same key is refused as well.
      const late = await caught(writers[0]!.writeNewFromFile(location, paths[1]!));
      expect((late as StorageError).context['reason']).toBe('already-exists');
      expect(Buffer.from(await io.read(location)).equals(Buffer.from(files[winners[0]!]!))).toBe(true);
      expect(await openUploads(location)).toEqual([]);
    } finally {
      for (const writer of writers) writer.close();
    }
  });

  it('aborts the upload when a part fails: no object, no parts left', async () => {
    const failing = testS3Client();
    failing.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { PartNumber?: number };
        if (context.commandName === 'UploadPartCommand' && input.PartNumber === 2) throw new Error('injected part failure');
        return next(args);
      },
      { step: 'initialize', name: 'injectPartFailure' },
    );
    try {
      const location = `${root}/aborted/data.parquet`;
      const bytes = sampleBytes(16 * MIB);
      const error = await caught(
        uploadFileInParts({
          client: failing,
          target: parseS3Location(location),
          location,
          localPath: localFile('aborted.bin', bytes),
          size: bytes.byteLength,
          partSize: 5 * MIB,
          concurrency: 2,
        }),
      );
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).message).toContain(location);
      expect((error as StorageError).message).toContain('injected part failure');
      expect(await io.exists(location)).toBe(false);
      expect(await openUploads(location)).toEqual([]);
    } finally {
      failing.destroy();
    }
  });

  it('fails naming the location when the local file is missing', async () => {
    const location = `${root}/missing-source/x.bin`;
    const error = await caught(io.writeNewFromFile(location, join(work, 'no-such-file.bin')));
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).message).toContain(location);
    expect(await io.exists(location)).toBe(false);
  });
});

describe('S3FileIO.readRange (MinIO)', () => {
  it('reads exact byte ranges with a Range header, and fewer bytes at the end', async () => {
    const bytes = sampleBytes(10_000);
    const location = `${root}/ranges/r.bin`;
    await io.writeNew(location, bytes);
    const same = (actual: Uint8Array, expected: Uint8Array) => expect(Buffer.from(actual).equals(Buffer.from(expected))).toBe(true);
    same(await io.readRange(location, 0, 4), bytes.subarray(0, 4));
    same(await io.readRange(location, 4321, 1000), bytes.subarray(4321, 5321));
    same(await io.readRange(location, 9_992, 8), bytes.subarray(9_992));
    same(await io.readRange(location, 9_990, 100), bytes.subarray(9_990));
    same(await io.readRange(location.replace(/^s3:/, 's3a:'), 100, 10), bytes.subarray(100, 110));
    expect((await io.readRange(location, 500, 0)).byteLength).toBe(0);
  });

  it('fails past the end and for missing objects with a StorageError naming the location', async () => {
    const location = `${root}/ranges/short.bin`;
    await io.writeNew(location, sampleBytes(10));
    const pastEnd = await caught(io.readRange(location, 10, 5));
    expect(pastEnd).toBeInstanceOf(StorageError);
    expect((pastEnd as StorageError).message).toContain(location);
    expect((pastEnd as StorageError).context['reason']).toBe('out-of-range');
    const missing = await caught(io.readRange(`${root}/ranges/none.bin`, 0, 5));
    expect((missing as StorageError).context['reason']).toBe('not-found');
    await expect(io.readRange(location, -1, 5)).rejects.toBeInstanceOf(StorageError);
  });
});

describe('S3FileIO.list (MinIO)', () => {
  it('lists every object under a prefix across pages, in key order', async () => {
    const pagedIo = new S3FileIO({ ...options, listPageSize: 2 });
    try {
      const prefix = `${root}/listing/`;
      const names = ['a.parquet', 'b/c.parquet', 'b/d.txt', 'e.parquet', 'f.parquet'];
      for (const name of names) await io.writeNew(`${prefix}${name}`, sampleBytes(name.length));
      const listed = [];
      for await (const entry of pagedIo.list(prefix)) listed.push(entry);
      expect(listed.map((entry) => entry.location)).toEqual(names.map((name) => `${prefix}${name}`).sort());
      expect(listed.map((entry) => entry.size)).toEqual(names.map((name) => name.length));
    } finally {
      pagedIo.close();
    }
  });
});

describe('writeDataFiles on S3 (MinIO)', () => {
  it('streams a data file bigger than the multipart threshold; the uploaded file reads back with every row', async () => {
    const { fields } = assignFreshIds([
      { name: 'id', required: false, type: primitive('long') },
      { name: 'payload', required: false, type: primitive('string') },
    ]);
    const schema: Schema = { schemaId: 0, identifierFieldIds: [], fields };
    const rows = 300_000;
    const big = new S3FileIO(multipartOptions);
    const session = await DuckDbSession.open();
    try {
      const files = await writeDataFiles({
        session,
        query: `SELECT range::BIGINT AS id, md5(range::VARCHAR) AS payload FROM range(${rows})`,
        schema,
        specId: 0,
        dataLocation: `${root}/multipart-table/data`,
        io: big,
        properties: { 'write.parquet.compression-codec': 'uncompressed' },
        writerName: 's3-multipart-test',
      });
      expect(files).toHaveLength(1);
      const file = files[0]!;
      expect(Number(file.fileSizeInBytes)).toBeGreaterThan(5 * MIB);
      expect(await etagOf(file.filePath)).toMatch(/-\d+"$/);
      const copy = localFile('downloaded.parquet', await big.read(file.filePath));
      const [check] = await session.queryJson(`SELECT count(*) AS n, sum(id) AS s, max(payload) AS p FROM read_parquet(${quoteLiteral(copy)})`);
      const [expected] = await session.queryJson(`SELECT count(*) AS n, sum(range) AS s, max(md5(range::VARCHAR)) AS p FROM range(${rows})`);
      expect(check).toEqual(expected);
    } finally {
      session.close();
      big.close();
    }
  });
});
