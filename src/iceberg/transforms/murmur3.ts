/**
 * 32-bit MurmurHash3 (x86 variant, seed 0), the hash behind Iceberg's bucket transform (spec
 * §5; ICEBERG.md §5). Results are signed 32-bit integers, as Java's Guava returns them.
 */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

function mixH(h: number, k: number): number {
  h ^= mixK(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

export function murmur3Hash(bytes: Uint8Array): number {
  const length = bytes.length;
  const blocks = length >>> 2;
  let h = 0;
  for (let i = 0; i < blocks; i++) {
    const j = i * 4;
    h = mixH(h, bytes[j]! | (bytes[j + 1]! << 8) | (bytes[j + 2]! << 16) | (bytes[j + 3]! << 24));
  }
  const tail = blocks * 4;
  const rest = length & 3;
  if (rest > 0) {
    let k = bytes[tail]!;
    if (rest > 1) k |= bytes[tail + 1]! << 8;
    if (rest > 2) k |= bytes[tail + 2]! << 16;
    h ^= mixK(k);
  }
  return finalMix(h, length);
}

/** The hash of a value's 8-byte little-endian int64 form, without building the bytes. */
export function murmur3HashLong(value: bigint): number {
  const low = Number(BigInt.asIntN(32, value));
  const high = Number(BigInt.asIntN(32, value >> 32n));
  return finalMix(mixH(mixH(0, low), high), 8);
}
