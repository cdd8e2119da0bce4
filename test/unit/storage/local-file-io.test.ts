import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
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
