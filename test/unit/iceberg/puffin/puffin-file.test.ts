import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../../src/errors.js';
import type { FileIO } from '../../../../src/iceberg/file-io.js';
import { readManifest } from '../../../../src/iceberg/manifest.js';
import { decodeDeletionVector, encodeDeletionVector } from '../../../../src/iceberg/puffin/deletion-vector.js';
import { deletionVectorBlob, readPuffinFooter, writePuffinFile, type PuffinBlobInput } from '../../../../src/iceberg/puffin/puffin-file.js';
import { readDeletionVector } from '../../../../src/iceberg/puffin/read-deletion-vector.js';
import { THUND_VERSION } from '../../../../src/version.js';

const FIXTURES = resolve(process.cwd(), process.env.THUND_FIXTURES ?? '../shared/fixtures');
const JAVA_PUFFIN = join(FIXTURES, 'iceberg-rust/crates/iceberg/testdata/puffin/java-generated');
const LEGACY_TABLE = join(FIXTURES, 'duckdb-iceberg/data/persistent/legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector');

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A whole Puffin file around blob bytes and an uncompressed footer JSON, built independently of the writer. */
function frame(blobs: Uint8Array, footerJson: string): Uint8Array {
  const payload = utf8(footerJson);
  const tail = new Uint8Array(12);
  new DataView(tail.buffer).setInt32(0, payload.length, true);
  tail.set(utf8('PFA1'), 8);
  return Uint8Array.from([...utf8('PFA1'), ...blobs, ...utf8('PFA1'), ...payload, ...tail]);
}

function javaFile(name: string): Uint8Array {
  return Uint8Array.from(readFileSync(join(JAVA_PUFFIN, name)));
}

function fakeIO(files: Record<string, Uint8Array>, withRange: boolean): { io: FileIO; calls: string[] } {
  const calls: string[] = [];
  const get = (location: string): Uint8Array => {
    const bytes = files[location];
    if (bytes === undefined) throw new Error(`no such file ${location}`);
    return bytes;
  };
  const refuse = (): never => {
    throw new Error('not used');
  };
  const io: FileIO = {
    read: async (location) => {
      calls.push(`read ${location}`);
      return get(location);
    },
    writeNew: async () => refuse(),
    exists: async (location) => files[location] !== undefined,
    length: async (location) => BigInt(get(location).length),
    delete: async () => refuse(),
    ...(withRange
      ? {
          readRange: async (location: string, offset: number, length: number) => {
            calls.push(`readRange ${location} ${offset} ${length}`);
            return get(location).subarray(offset, offset + length);
          },
        }
      : {}),
  };
  return { io, calls };
}

describe('Puffin files', () => {
  it('has the fixture folders', () => {
    expect(existsSync(JAVA_PUFFIN), `${JAVA_PUFFIN} missing: set THUND_FIXTURES`).toBe(true);
    expect(existsSync(LEGACY_TABLE), `${LEGACY_TABLE} missing: set THUND_FIXTURES`).toBe(true);
  });

  it('writes an empty file framed like Java’s empty Puffin file, plus created-by', () => {
    const java = javaFile('empty-puffin-uncompressed.bin');
    expect(Buffer.from(frame(new Uint8Array(0), '{"blobs":[]}')).equals(Buffer.from(java))).toBe(true);
    const ours = writePuffinFile([]);
    const expected = frame(new Uint8Array(0), `{"blobs":[],"properties":{"created-by":"thund ${THUND_VERSION}"}}`);
    expect(Buffer.from(ours.bytes).toString('latin1')).toBe(Buffer.from(expected).toString('latin1'));
    expect(ours.blobs).toEqual([]);
    expect(ours.footerSize).toBe(ours.bytes.length - 4);
    expect(readPuffinFooter(java, 'empty-puffin-uncompressed.bin')).toEqual({ blobs: [], properties: {}, footerSize: 28 });
    expect(readPuffinFooter(ours.bytes, 'ours')).toEqual({ blobs: [], properties: { 'created-by': `thund ${THUND_VERSION}` }, footerSize: ours.footerSize });
  });

  for (const name of ['sample-metric-data-uncompressed.bin', 'sample-metric-data-compressed-zstd.bin']) {
    it(`reads Java’s ${name} and writes it back byte for byte`, () => {
      const java = javaFile(name);
      const footer = readPuffinFooter(java, name);
      expect(footer.properties).toEqual({ 'created-by': 'Test 1234' });
      expect(footer.blobs.map((blob) => [blob.type, blob.fields, blob.snapshotId, blob.sequenceNumber, blob.compressionCodec])).toEqual([
        ['some-blob', [1], 2n, 1n, name.includes('zstd') ? 'zstd' : undefined],
        ['some-other-blob', [2], 2n, 1n, name.includes('zstd') ? 'zstd' : undefined],
      ]);
      expect(footer.blobs[0]!.offset).toBe(4n);
      if (!name.includes('zstd')) {
        expect(footer.blobs.map((blob) => [blob.offset, blob.length])).toEqual([
          [4n, 9n],
          [13n, 83n],
        ]);
        expect(Buffer.from(java.subarray(4, 13)).toString('utf8')).toBe('abcdefghi');
      }
      const inputs: PuffinBlobInput[] = footer.blobs.map((blob) => ({
        ...blob,
        data: java.subarray(Number(blob.offset), Number(blob.offset + blob.length)),
      }));
      const rewritten = writePuffinFile(inputs, footer.properties);
      expect(Buffer.from(rewritten.bytes).equals(Buffer.from(java))).toBe(true);
      expect(rewritten.blobs).toEqual(footer.blobs);
      expect(rewritten.footerSize).toBe(footer.footerSize);
    });
  }

  it('writes the Puffin file Iceberg Java’s BaseDVFileWriter writes for the same deletes', () => {
    // Java 1.12.0 wrote three DVs (in its HashMap order: c, b, a) into a 938-byte file.
    const createdBy = 'Apache Iceberg 1.12.0 (commit 212aa894e919ff9fdf89160da4aadcbe6858ac01)';
    const dense = new BigInt64Array(100_000).map((_, i) => BigInt(i));
    const file = writePuffinFile(
      [
        deletionVectorBlob('s3://bucket/data/c.parquet', BigInt64Array.of((5n << 32n) + 17n)),
        deletionVectorBlob('s3://bucket/data/b.parquet', dense),
        deletionVectorBlob('s3://bucket/data/a.parquet', BigInt64Array.of(1n, 3n, 5n, 7n, 9n)),
      ],
      { 'created-by': createdBy },
    );
    expect(file.blobs.map((blob) => [blob.offset, blob.length])).toEqual([
      [4n, 102n],
      [106n, 49n],
      [155n, 50n],
    ]);
    expect(file.bytes.length).toBe(938);
    expect(sha256(file.bytes)).toBe('1e51cfab13796aaab20b64775ff8f9ef9a6424b7395433196fa78415de2d3a6f');
    const footer = readPuffinFooter(file.bytes, 'dv.puffin');
    expect(footer.properties).toEqual({ 'created-by': createdBy });
    expect(footer.blobs[2]).toEqual({
      type: 'deletion-vector-v1',
      fields: [2147483645],
      snapshotId: -1n,
      sequenceNumber: -1n,
      offset: 155n,
      length: 50n,
      properties: { 'referenced-data-file': 's3://bucket/data/a.parquet', cardinality: '5' },
    });
    expect(footer.footerSize).toBe(938 - 205);
    const text = Buffer.from(file.bytes.subarray(209, 938 - 12)).toString('utf8');
    expect(text).toContain('{"type":"deletion-vector-v1","fields":[2147483645],"snapshot-id":-1,"sequence-number":-1,"offset":106,"length":49,"properties":{"referenced-data-file":"s3://bucket/data/b.parquet","cardinality":"100000"}}');
  });

  it('names thund as the writer by default', () => {
    const file = writePuffinFile([deletionVectorBlob('file:///t/data/x.parquet', BigInt64Array.of(4n))], { extra: 'yes' });
    expect(readPuffinFooter(file.bytes, 'x').properties).toEqual({ 'created-by': `thund ${THUND_VERSION}`, extra: 'yes' });
    expect(file.blobs[0]!.properties).toEqual({ 'referenced-data-file': 'file:///t/data/x.parquet', cardinality: '1' });
    expect(file.blobs[0]).not.toHaveProperty('compressionCodec');
  });

  it('refuses broken files with errors naming them', () => {
    const good = writePuffinFile([deletionVectorBlob('d.parquet', BigInt64Array.of(1n))]).bytes;
    const where = 's3://b/t/data/broken.puffin';
    const broken = (change: (bytes: Uint8Array) => void): Uint8Array => {
      const bytes = good.slice();
      change(bytes);
      return bytes;
    };
    const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(() => readPuffinFooter(good.subarray(0, 10), where)).toThrow(/broken\.puffin: 10 bytes is shorter/);
    expect(() => readPuffinFooter(broken((b) => (b[0] = 0x51)), where)).toThrow(/broken\.puffin: it does not start with the magic/);
    expect(() => readPuffinFooter(good.subarray(0, good.length - 1), where)).toThrow(/does not end with the magic/);
    expect(() => readPuffinFooter(broken((b) => view(b).setInt32(b.length - 12, b.length, true)), where)).toThrow(/payload length \d+ does not fit/);
    expect(() => readPuffinFooter(broken((b) => view(b).setInt32(b.length - 12, -1, true)), where)).toThrow(/payload length -1 does not fit/);
    expect(() => readPuffinFooter(broken((b) => view(b).setInt32(b.length - 12, view(b).getInt32(b.length - 12, true) - 1, true)), where)).toThrow(/no PFA1 magic at byte/);
    expect(() => readPuffinFooter(broken((b) => (b[b.length - 8] = 1)), where)).toThrow(/footer payload is LZ4-compressed/);
    expect(() => readPuffinFooter(frame(new Uint8Array(2), '{"blobs":[{"type":"x","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":3}]}'), where)).toThrow(/blob 0 \(x\) at offset 4 with length 3 lies outside the blob area \[4, 6\)/);
    expect(() => readPuffinFooter(frame(new Uint8Array(0), '{"blobs":[{"type":"x","fields":[1]}]}'), where)).toThrow(/blob 0 has no integer "offset"/);
    expect(() => readPuffinFooter(frame(new Uint8Array(0), '{"blobs":{}}'), where)).toThrow(/not an object with a "blobs" list/);
    expect(() => readPuffinFooter(frame(new Uint8Array(0), '{"blobs":[],"properties":{"a":1}}'), where)).toThrow(/file properties are not a JSON object of strings/);
    expect(() => readPuffinFooter(frame(new Uint8Array(0), '{"blobs":['), where)).toThrow(IcebergFormatError);
  });
});

describe('reading deletion vectors', () => {
  it('reads the bare deletion vector of duckdb-iceberg’s legacy fixture and rewrites its bytes', async () => {
    const manifest = join(LEGACY_TABLE, 'metadata/legacy-bare-deletion-vector-m0.avro');
    const [entry] = readManifest(readFileSync(manifest), manifest, { snapshotId: 1n, sequenceNumber: 1n });
    const dv = entry!.dataFile;
    expect([dv.fileFormat, dv.contentOffset, dv.contentSizeInBytes, dv.recordCount]).toEqual(['PUFFIN', 0n, 42n, 1n]);
    const bytes = Uint8Array.from(readFileSync(join(LEGACY_TABLE, 'data/legacy-bare-deletion-vector.puffin')));
    // The blob is the whole file: no Puffin framing around it.
    expect(() => readPuffinFooter(bytes, dv.filePath)).toThrow(/does not start with the magic PFA1/);
    for (const withRange of [true, false]) {
      const { io, calls } = fakeIO({ [dv.filePath]: bytes }, withRange);
      const positions = await readDeletionVector(io, dv);
      expect(positions).toEqual(BigInt64Array.of(1n));
      expect(calls).toEqual([withRange ? `readRange ${dv.filePath} 0 42` : `read ${dv.filePath}`]);
      expect(Buffer.from(encodeDeletionVector(positions)).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it('reads exactly the blob a delete file entry points at', async () => {
    const positions = BigInt64Array.of(0n, 2n, 1n << 33n);
    const file = writePuffinFile([deletionVectorBlob('a.parquet', BigInt64Array.of(7n)), deletionVectorBlob('b.parquet', positions)]);
    const blob = file.blobs[1]!;
    const entry = { filePath: 's3://b/t/data/dv.puffin', contentOffset: blob.offset, contentSizeInBytes: blob.length, referencedDataFile: 'b.parquet' };
    for (const withRange of [true, false]) {
      const { io, calls } = fakeIO({ [entry.filePath]: file.bytes }, withRange);
      expect(await readDeletionVector(io, entry)).toEqual(positions);
      expect(calls).toEqual([withRange ? `readRange ${entry.filePath} ${blob.offset} ${blob.length}` : `read ${entry.filePath}`]);
    }
    expect(decodeDeletionVector(file.bytes.subarray(Number(blob.offset), Number(blob.offset + blob.length)), 'b')).toEqual(positions);
  });

  it('refuses entries it cannot locate or whose blob is cut short or wrong', async () => {
    const file = writePuffinFile([deletionVectorBlob('a.parquet', BigInt64Array.of(7n))]);
    const path = 's3://b/t/data/dv.puffin';
    const { io } = fakeIO({ [path]: file.bytes }, false);
    await expect(readDeletionVector(io, { filePath: path, referencedDataFile: 'a.parquet' })).rejects.toThrow(
      /Deletion vector of data file a\.parquet in Puffin file s3:\/\/b\/t\/data\/dv\.puffin has no content_offset\/content_size_in_bytes/,
    );
    await expect(readDeletionVector(io, { filePath: path, contentOffset: 4n })).rejects.toThrow(IcebergFormatError);
    await expect(readDeletionVector(io, { filePath: path, contentOffset: -1n, contentSizeInBytes: 4n })).rejects.toThrow(/invalid blob range/);
    await expect(readDeletionVector(io, { filePath: path, contentOffset: BigInt(file.bytes.length - 10), contentSizeInBytes: 42n })).rejects.toThrow(
      /dv\.puffin is truncated: its blob at offset \d+ should have 42 bytes, the file has 10 there/,
    );
    const blob = file.blobs[0]!;
    await expect(readDeletionVector(io, { filePath: path, contentOffset: blob.offset, contentSizeInBytes: blob.length, recordCount: 2n })).rejects.toThrow(
      /holds 1 positions, but its manifest entry's record_count is 2/,
    );
    expect(await readDeletionVector(io, { filePath: path, contentOffset: blob.offset, contentSizeInBytes: blob.length, recordCount: 1n })).toEqual(BigInt64Array.of(7n));
    // Pointing one byte off: the blob's own length check catches it, naming the file.
    await expect(readDeletionVector(io, { filePath: path, contentOffset: 5n, contentSizeInBytes: file.blobs[0]!.length })).rejects.toThrow(
      /Invalid deletion vector in Puffin file s3:\/\/b\/t\/data\/dv\.puffin/,
    );
  });
});
