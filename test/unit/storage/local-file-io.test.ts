import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileIO, fromFileUri, toFileUri } from '../../../connectors/storage/local-file-io.js';
import { InvalidInputError, StorageError } from '../../../src/errors.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'thund-fileio-'));
}

describe('LocalFileIO', () => {
  it('round-trips bytes through a file: URI and creates parent folders', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const location = toFileUri(join(dir, 'a', 'b', 'c.bin'));
    const bytes = new Uint8Array(256).map((_, i) => 255 - i);
    await io.writeNew(location, bytes);
    expect(await io.read(location)).toEqual(bytes);
    expect(await io.length(location)).toBe(256n);
    expect(await io.exists(location)).toBe(true);
    // Written as plain bytes at the path the URI names.
    expect(new Uint8Array(await readFile(join(dir, 'a', 'b', 'c.bin')))).toEqual(bytes);
  });

  it('never overwrites: a second writeNew fails and the first bytes stay intact', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const location = toFileUri(join(dir, 'v1.metadata.json'));
    await io.writeNew(location, new TextEncoder().encode('first'));
    const second = io.writeNew(location, new TextEncoder().encode('second, longer'));
    await expect(second).rejects.toBeInstanceOf(StorageError);
    await expect(second).rejects.toThrow(location);
    expect(new TextDecoder().decode(await io.read(location))).toBe('first');
    // No temporary files are left behind.
    expect(await readdir(dir)).toEqual(['v1.metadata.json']);
  });

  it('does not overwrite a file another writer created', async () => {
    const dir = await tempDir();
    const path = join(dir, 'x.json');
    await writeFile(path, 'foreign');
    await expect(new LocalFileIO().writeNew(path, new Uint8Array([1]))).rejects.toBeInstanceOf(StorageError);
    expect(await readFile(path, 'utf8')).toBe('foreign');
  });

  it('of concurrent writers to one location exactly one wins', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const location = toFileUri(join(dir, 'race.json'));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => io.writeNew(location, new TextEncoder().encode(`writer ${i}`))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(new TextDecoder().decode(await io.read(location))).toMatch(/^writer \d$/);
  });

  it('accepts absolute paths and reports missing files as StorageError naming the location', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const path = join(dir, 'plain.bin');
    await io.writeNew(path, new Uint8Array([7, 8]));
    expect(await io.read(path)).toEqual(new Uint8Array([7, 8]));
    const missing = toFileUri(join(dir, 'missing.bin'));
    expect(await io.exists(missing)).toBe(false);
    await expect(io.read(missing)).rejects.toBeInstanceOf(StorageError);
    await expect(io.read(missing)).rejects.toThrow(missing);
    await expect(io.length(missing)).rejects.toBeInstanceOf(StorageError);
  });

  it('deletes files; deleting a missing file succeeds', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const location = toFileUri(join(dir, 'd.bin'));
    await io.writeNew(location, new Uint8Array([1]));
    await io.delete(location);
    expect(await io.exists(location)).toBe(false);
    await expect(io.delete(location)).resolves.toBeUndefined();
  });

  it('rejects locations it cannot serve with StorageError', async () => {
    const io = new LocalFileIO();
    await expect(io.read('s3://bucket/key')).rejects.toBeInstanceOf(StorageError);
    await expect(io.read('relative/path')).rejects.toBeInstanceOf(StorageError);
    expect(io.localPathFor('s3://bucket/key')).toBeUndefined();
    expect(io.localPathFor('file:///tmp/x/y.parquet')).toBe('/tmp/x/y.parquet');
  });
});

describe('LocalFileIO.writeNewFromFile', () => {
  it('copies a local file to a new location, creating folders, and keeps the source', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const source = join(dir, 'staged.parquet');
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(source, bytes);
    const location = toFileUri(join(dir, 'table', 'data', 'f.parquet'));
    await io.writeNewFromFile(location, source);
    expect(Buffer.from(await io.read(location)).equals(bytes)).toBe(true);
    expect((await readFile(source)).equals(bytes)).toBe(true);
    expect(await readdir(join(dir, 'table', 'data'))).toEqual(['f.parquet']);
  });

  it('never overwrites: the existing file stays, no temporary file is left', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const source = join(dir, 'staged.bin');
    await writeFile(source, 'new bytes');
    const target = join(dir, 'out', 'v1.json');
    await io.writeNew(target, new TextEncoder().encode('first'));
    const second = io.writeNewFromFile(target, source);
    await expect(second).rejects.toBeInstanceOf(StorageError);
    await expect(second).rejects.toThrow(/already exists/);
    expect(await readFile(target, 'utf8')).toBe('first');
    expect(await readdir(join(dir, 'out'))).toEqual(['v1.json']);
  });

  it('of concurrent writers from files to one location exactly one wins', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const sources = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const path = join(dir, `source-${i}.bin`);
        await writeFile(path, `writer ${i}`);
        return path;
      }),
    );
    const target = toFileUri(join(dir, 'out', 'race.bin'));
    const results = await Promise.allSettled(sources.map((source) => io.writeNewFromFile(target, source)));
    const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(new TextDecoder().decode(await io.read(target))).toBe(`writer ${winners[0]}`);
    expect(await readdir(join(dir, 'out'))).toEqual(['race.bin']);
  });

  it('fails naming the location when the source file is missing, and writes nothing', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const target = toFileUri(join(dir, 'out', 'x.bin'));
    const attempt = io.writeNewFromFile(target, join(dir, 'missing.bin'));
    await expect(attempt).rejects.toBeInstanceOf(StorageError);
    await expect(attempt).rejects.toThrow(target);
    expect(await readdir(join(dir, 'out'))).toEqual([]);
  });
});

describe('LocalFileIO.readRange', () => {
  it('reads exact ranges, fewer bytes at the end, nothing for length 0', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const bytes = randomBytes(5000);
    const location = toFileUri(join(dir, 'r.bin'));
    await io.writeNew(location, bytes);
    expect(Buffer.from(await io.readRange(location, 0, 4)).equals(bytes.subarray(0, 4))).toBe(true);
    expect(Buffer.from(await io.readRange(location, 1234, 1000)).equals(bytes.subarray(1234, 2234))).toBe(true);
    expect(Buffer.from(await io.readRange(location, 4990, 100)).equals(bytes.subarray(4990))).toBe(true);
    expect((await io.readRange(location, 10, 0)).byteLength).toBe(0);
  });

  it('fails past the end, for negative offsets and for missing files with StorageError', async () => {
    const dir = await tempDir();
    const io = new LocalFileIO();
    const location = toFileUri(join(dir, 'short.bin'));
    await io.writeNew(location, new Uint8Array(10));
    const pastEnd = io.readRange(location, 10, 1);
    await expect(pastEnd).rejects.toBeInstanceOf(StorageError);
    await expect(pastEnd).rejects.toThrow(location);
    await expect(io.readRange(location, -1, 1)).rejects.toBeInstanceOf(StorageError);
    const missing = toFileUri(join(dir, 'missing.bin'));
    await expect(io.readRange(missing, 0, 1)).rejects.toThrow(missing);
  });
});

describe('file URIs', () => {
  it('keeps spaces and percent signs verbatim, as Iceberg engines treat locations', async () => {
    const dir = await tempDir();
    const path = join(dir, 'my dir', '100%25 done', 'f.json');
    const uri = toFileUri(path);
    expect(uri).toBe(`file://${path}`);
    expect(fromFileUri(uri)).toBe(path);
    const io = new LocalFileIO();
    await io.writeNew(uri, new Uint8Array([1, 2, 3]));
    expect(await readdir(join(dir, 'my dir'))).toEqual(['100%25 done']);
    expect(await io.read(uri)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('reads the file: forms other engines write', () => {
    expect(fromFileUri('file:///tmp/wh/t')).toBe('/tmp/wh/t');
    expect(fromFileUri('file:/tmp/wh/t')).toBe('/tmp/wh/t'); // Hadoop/Spark form
    expect(fromFileUri('file://localhost/tmp/wh/t')).toBe('/tmp/wh/t');
    expect(fromFileUri('/tmp/wh/t')).toBe('/tmp/wh/t');
    expect(() => fromFileUri('file://otherhost/tmp')).toThrow(InvalidInputError);
    expect(() => toFileUri('relative')).toThrow(InvalidInputError);
  });
});
