import { expect } from 'vitest';

/**
 * An independent reader of the container header (Avro spec, "Object Container Files"): magic,
 * a map<bytes> of metadata in zigzag-varint blocks, then the 16-byte sync marker.
 */
export function parseHeader(bytes: Uint8Array): { metadata: Record<string, string>; end: number } {
  expect([...bytes.subarray(0, 4)]).toEqual([0x4f, 0x62, 0x6a, 0x01]);
  let pos = 4;
  const readLong = (): number => {
    let n = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[pos++]!;
      n |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
    }
    return Number((n >> 1n) ^ -(n & 1n));
  };
  const readBytes = (): Uint8Array => {
    const len = readLong();
    const out = bytes.subarray(pos, pos + len);
    pos += len;
    return out;
  };
  const metadata: Record<string, string> = {};
  for (;;) {
    let count = readLong();
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      readLong(); // block byte size
    }
    for (let i = 0; i < count; i++) {
      const key = new TextDecoder().decode(readBytes());
      metadata[key] = new TextDecoder().decode(readBytes());
    }
  }
  return { metadata, end: pos + 16 };
}

