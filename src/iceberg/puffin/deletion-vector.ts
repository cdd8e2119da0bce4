/**
 * The `deletion-vector-v1` blob (ICEBERG.md §6.4): int32 big-endian length of magic + bitmap,
 * magic D1 D3 39 64, the Roaring portable 64-bit bitmap, then a big-endian CRC-32 of magic +
 * bitmap. The length and CRC framing is Delta Lake's, which Iceberg kept for compatibility.
 */
import { crc32 } from 'node:zlib';
import { IcebergFormatError } from '../../errors.js';
import { deserializeRoaring64, halves, HI_HALF, LO_HALF, serializeRoaring64 } from './roaring-bitmap.js';

const MAGIC = [0xd1, 0xd3, 0x39, 0x64] as const;
// Local copies: an imported binding may compile to a getter call, which hot loops feel.
const LO = LO_HALF;
const HI = HI_HALF;

/** The blob for ascending, unique positions (see serializeRoaring64 for the accepted range). */
export function encodeDeletionVector(sortedPositions: BigInt64Array): Uint8Array {
  const bitmap = serializeRoaring64(sortedPositions);
  const length = MAGIC.length + bitmap.length;
  const blob = new Uint8Array(length + 8);
  const view = new DataView(blob.buffer);
  view.setInt32(0, length, false);
  blob.set(MAGIC, 4);
  blob.set(bitmap, 8);
  view.setUint32(4 + length, crc32(blob.subarray(4, 4 + length)) >>> 0, false);
  return blob;
}

/** The ascending, unique positions of a blob; `where` names the Puffin file and blob in errors. */
export function decodeDeletionVector(blob: Uint8Array, where: string): BigInt64Array {
  const fail = (message: string): never => {
    throw new IcebergFormatError(`Invalid deletion vector in ${where}: ${message}`, { context: { file: where, blobLength: blob.length } });
  };
  if (blob.length < 12) fail(`the blob has ${blob.length} bytes, fewer than the 12 of an empty vector`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const length = view.getInt32(0, false);
  if (length !== blob.length - 8) fail(`its length field says ${length} bytes of magic and bitmap, but the blob has ${blob.length - 8}`);
  if (MAGIC.some((byte, i) => blob[4 + i] !== byte)) {
    fail(`magic bytes are ${hex(blob.subarray(4, 8))}, expected ${hex(Uint8Array.from(MAGIC))}`);
  }
  const expected = view.getUint32(4 + length, false);
  const actual = crc32(blob.subarray(4, 4 + length)) >>> 0;
  if (actual !== expected) fail(`CRC-32 of magic and bitmap is 0x${actual.toString(16)}, the blob says 0x${expected.toString(16)}`);
  return deserializeRoaring64(blob.subarray(8, 4 + length), where);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/**
 * The sorted union of two ascending position lists (duplicates, within or across them, kept
 * once). Fails if either list is not ascending.
 */
export function mergePositions(a: BigInt64Array, b: BigInt64Array): BigInt64Array {
  const out = new BigInt64Array(a.length + b.length);
  const wa = halves(a);
  const wb = halves(b);
  const wo = halves(out);
  const na = a.length;
  const nb = b.length;
  let i = 0;
  let j = 0;
  let k = 0;
  // The last position written, as signed high and unsigned low halves.
  let lastHi = -1;
  let lastLo = -1;
  while (i < na || j < nb) {
    let hi: number;
    let lo: number;
    let fromA: boolean;
    if (j >= nb) fromA = true;
    else if (i >= na) fromA = false;
    else {
      const ah = wa[2 * i + HI]! | 0;
      const bh = wb[2 * j + HI]! | 0;
      fromA = ah < bh || (ah === bh && wa[2 * i + LO]! <= wb[2 * j + LO]!);
    }
    if (fromA) {
      hi = wa[2 * i + HI]! | 0;
      lo = wa[2 * i + LO]!;
      i++;
    } else {
      hi = wb[2 * j + HI]! | 0;
      lo = wb[2 * j + LO]!;
      j++;
    }
    if (k > 0 && hi === lastHi && lo === lastLo) continue;
    if (k > 0 && (hi < lastHi || (hi === lastHi && lo < lastLo))) {
      const list = fromA ? 'a' : 'b';
      const index = fromA ? i - 1 : j - 1;
      throw new IcebergFormatError(`Cannot merge deletion vector positions: list ${list} is not ascending at index ${index} (${(fromA ? a : b)[index]})`, {
        context: { list, index },
      });
    }
    wo[2 * k + HI] = hi;
    wo[2 * k + LO] = lo;
    lastHi = hi;
    lastLo = lo;
    k++;
  }
  return k === out.length ? out : out.slice(0, k);
}

/** Positions in any order, with repeats, as an ascending, unique BigInt64Array (a new array). */
export function toSortedPositions(values: Iterable<bigint> | BigInt64Array): BigInt64Array {
  const sorted = (values instanceof BigInt64Array ? values.slice() : BigInt64Array.from(values)).sort();
  const w = halves(sorted);
  let k = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (k > 0 && w[2 * i] === w[2 * k - 2] && w[2 * i + 1] === w[2 * k - 1]) continue;
    w[2 * k] = w[2 * i]!;
    w[2 * k + 1] = w[2 * i + 1]!;
    k++;
  }
  return k === sorted.length ? sorted : sorted.slice(0, k);
}
