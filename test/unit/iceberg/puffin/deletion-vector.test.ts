import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../../src/errors.js';
import { decodeDeletionVector, encodeDeletionVector, mergePositions, toSortedPositions } from '../../../../src/iceberg/puffin/deletion-vector.js';
import { CASE_POSITIONS, expectSamePositions, JAVA_BLOBS, lcgPositions } from './position-cases.js';

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const positions = (...values: bigint[]): BigInt64Array => BigInt64Array.from(values);

describe('deletion-vector-v1 blobs', () => {
  it('covers every position case with a Java-written blob', () => {
    expect(Object.keys(JAVA_BLOBS).sort()).toEqual(Object.keys(CASE_POSITIONS).sort());
  });

  for (const [name, make] of Object.entries(CASE_POSITIONS)) {
    it(`writes the bytes Iceberg Java writes: ${name}`, () => {
      const java = JAVA_BLOBS[name]!;
      const sorted = toSortedPositions(make());
      const blob = encodeDeletionVector(sorted);
      if (java.hex !== undefined) expect(Buffer.from(blob).toString('hex')).toBe(java.hex);
      expect(blob.length).toBe(java.length);
      expect(sha256(blob)).toBe(java.sha256);
      expectSamePositions(decodeDeletionVector(blob, name), sorted);
      if (java.hex !== undefined) expectSamePositions(decodeDeletionVector(fromHex(java.hex), `java ${name}`), sorted);
    });
  }

  it('reads and rewrites Iceberg’s all-container-types test resource', () => {
    // Java's TestBitmapPositionDeleteIndex: arrays, array-like ranges and a bitset range that
    // runOptimize() turns into run containers, in two 32-bit bitmaps.
    const java = fromHex(
      '00000056d1d339640200000000000000000000003b30020006000001000100e6030200fdff0500070001000100e60301000100fdff' +
        '010000003b30020006000001000100e9010200fdff0a00140001000a00e90101000100fdffc89be397',
    );
    const expected: bigint[] = [];
    const at = (bitmap: bigint, container: bigint, value: bigint): bigint => (bitmap << 32n) + container * 65536n + value;
    const range = (bitmap: bigint, container: bigint, from: bigint, to: bigint): void => {
      for (let v = from; v < to; v++) expected.push(at(bitmap, container, v));
    };
    expected.push(at(0n, 0n, 5n), at(0n, 0n, 7n));
    range(0n, 1n, 1n, 1000n);
    range(0n, 2n, 1n, 65535n);
    expected.push(at(1n, 0n, 10n), at(1n, 0n, 20n));
    range(1n, 1n, 10n, 500n);
    range(1n, 2n, 1n, 65535n);
    const decoded = decodeDeletionVector(java, 'all-container-types-position-index.bin');
    expectSamePositions(decoded, BigInt64Array.from(expected));
    expect(Buffer.from(encodeDeletionVector(decoded)).equals(Buffer.from(java))).toBe(true);
  });

  it('refuses a bad length, magic or CRC, naming the blob', () => {
    const good = encodeDeletionVector(positions(1n, 3n, 5n, 7n, 9n));
    const where = 's3://b/t/data/x-deletes.puffin (blob at offset 4)';
    const corrupt = (change: (bytes: Uint8Array) => void): Uint8Array => {
      const bytes = good.slice();
      change(bytes);
      return bytes;
    };
    expect(() => decodeDeletionVector(corrupt((b) => (b[4] = 0xd2)), where)).toThrow(/x-deletes\.puffin.*magic bytes are d2d33964, expected d1d33964/);
    expect(() => decodeDeletionVector(corrupt((b) => (b[b.length - 1]! ^= 1)), where)).toThrow(/x-deletes\.puffin.*CRC-32 of magic and bitmap is 0xb3fb20be, the blob says 0xb3fb20bf/);
    expect(() => decodeDeletionVector(corrupt((b) => (b[30]! ^= 0x40)), where)).toThrow(/CRC-32/);
    expect(() => decodeDeletionVector(corrupt((b) => (b[3] = 0x2b)), where)).toThrow(/length field says 43 bytes of magic and bitmap, but the blob has 42/);
    expect(() => decodeDeletionVector(good.subarray(0, good.length - 1), where)).toThrow(/length field says 42/);
    expect(() => decodeDeletionVector(good.subarray(0, 11), where)).toThrow(/11 bytes, fewer than the 12/);
    expect(() => decodeDeletionVector(good.subarray(0, 11), where)).toThrow(IcebergFormatError);
    try {
      decodeDeletionVector(corrupt((b) => (b[5] = 0)), where);
      expect.unreachable();
    } catch (error) {
      expect((error as IcebergFormatError).context['file']).toBe(where);
    }
  });

  it('refuses a blob whose CRC matches but whose bitmap is corrupt', () => {
    // Valid framing around a bitmap with an unknown cookie.
    const bitmap = fromHex('0100000000000000' + '00000000' + '3930000000000000');
    const blob = encodeDeletionVector(positions());
    const framed = new Uint8Array(8 + 4 + bitmap.length);
    const view = new DataView(framed.buffer);
    view.setInt32(0, 4 + bitmap.length);
    framed.set(blob.subarray(4, 8), 4);
    framed.set(bitmap, 8);
    view.setUint32(8 + bitmap.length, Number.parseInt(createCrc(framed.subarray(4, 8 + bitmap.length)), 16));
    expect(() => decodeDeletionVector(framed, 'crafted.puffin')).toThrow(/crafted\.puffin.*unknown Roaring cookie/);
  });
});

function createCrc(bytes: Uint8Array): string {
  // Independent CRC-32 (IEEE, reflected) so the test does not trust the code under test.
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ((crc ^ 0xffffffff) >>> 0).toString(16);
}

describe('position lists', () => {
  it('sorts and dedupes positions without changing the input', () => {
    const input = positions(9n, 1n, 9n, 1n << 40n, 0n, 3n);
    expect(toSortedPositions(input)).toEqual(positions(0n, 1n, 3n, 9n, 1n << 40n));
    expect(input).toEqual(positions(9n, 1n, 9n, 1n << 40n, 0n, 3n));
    expect(toSortedPositions(new Set([5n, 2n]))).toEqual(positions(2n, 5n));
    expect(toSortedPositions([])).toHaveLength(0);
  });

  it('merges sorted lists into their sorted union', () => {
    expect(mergePositions(positions(1n, 4n, 4n, 9n), positions(0n, 4n, 10n, 1n << 33n))).toEqual(positions(0n, 1n, 4n, 9n, 10n, 1n << 33n));
    expect(mergePositions(positions(), positions(2n, 2n))).toEqual(positions(2n));
    expect(mergePositions(positions(), positions())).toHaveLength(0);
    const a = toSortedPositions(lcgPositions(1n, 50_000, 1n << 34n));
    const b = toSortedPositions(lcgPositions(2n, 50_000, 1n << 34n).concat([...a.subarray(0, 1000)]));
    const merged = mergePositions(a, b);
    expectSamePositions(merged, toSortedPositions([...a, ...b]));
    expectSamePositions(mergePositions(b, a), merged);
  });

  it('refuses to merge a list that is not ascending', () => {
    expect(() => mergePositions(positions(1n, 5n, 3n), positions(4n))).toThrow(/list a is not ascending at index 2 \(3\)/);
    expect(() => mergePositions(positions(1n), positions(7n, 2n))).toThrow(IcebergFormatError);
  });
});
