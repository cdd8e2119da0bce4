/**
 * Snappy block decompression (the raw format, no framing), enough to read Avro files written
 * with codec `snappy`. Avro appends a 4-byte big-endian CRC32 of the uncompressed block; the
 * caller strips it.
 */
export class SnappyError extends Error {}

function readVarint32(input: Uint8Array, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let pos = start;
  for (;;) {
    if (pos >= input.length || shift > 28) throw new SnappyError('bad length varint');
    const byte = input[pos++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next: pos };
    shift += 7;
  }
}

export function snappyDecompress(input: Uint8Array): Uint8Array {
  const { value: length, next } = readVarint32(input, 0);
  const out = new Uint8Array(length);
  let pos = next;
  let o = 0;
  while (pos < input.length) {
    const tag = input[pos++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        if (pos + extra > input.length) throw new SnappyError('truncated literal length');
        len = 0;
        for (let i = 0; i < extra; i++) len += input[pos + i]! * 2 ** (8 * i);
        pos += extra;
      }
      len += 1;
      if (pos + len > input.length || o + len > length) throw new SnappyError('literal out of range');
      out.set(input.subarray(pos, pos + len), o);
      pos += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[pos++]!;
    } else if (kind === 2) {
      len = (tag >>> 2) + 1;
      offset = input[pos]! | (input[pos + 1]! << 8);
      pos += 2;
    } else {
      len = (tag >>> 2) + 1;
      offset = (input[pos]! | (input[pos + 1]! << 8) | (input[pos + 2]! << 16)) + input[pos + 3]! * 2 ** 24;
      pos += 4;
    }
    if (pos > input.length || offset === 0 || offset > o || o + len > length) {
      throw new SnappyError('copy out of range');
    }
    // Copies may overlap their own output (run-length style), so go byte by byte.
    for (let i = 0; i < len; i++, o++) out[o] = out[o - offset]!;
  }
  if (o !== length) throw new SnappyError(`decompressed ${o} bytes, header says ${length}`);
  return out;
}
