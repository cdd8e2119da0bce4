import { describe, expect, it } from 'vitest';
import { IcebergFormatError } from '../../../../src/errors.js';
import { toSortedPositions } from '../../../../src/iceberg/puffin/deletion-vector.js';
import { deserializeRoaring64, serializeRoaring64 } from '../../../../src/iceberg/puffin/roaring-bitmap.js';
import { expectSamePositions, lcgPositions } from './position-cases.js';

const KEY = 1n << 32n;
const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const positions = (...values: bigint[]): BigInt64Array => BigInt64Array.from(values);

function roundTrip(values: bigint[]): BigInt64Array {
  const sorted = toSortedPositions(values);
  const decoded = deserializeRoaring64(serializeRoaring64(sorted), 'round trip');
  expectSamePositions(decoded, sorted);
  return decoded;
}

function rangeOf(from: bigint, to: bigint): bigint[] {
  const out: bigint[] = [];
  for (let v = from; v < to; v++) out.push(v);
  return out;
}

describe('Roaring portable 64-bit bitmaps', () => {
  it('round-trips empty, single, dense, sparse and high-key position sets', () => {
    expect(roundTrip([])).toHaveLength(0);
    expect(roundTrip([7n])).toEqual(positions(7n));
    expect(roundTrip(rangeOf(0n, 200_000n))).toHaveLength(200_000);
    expect(roundTrip(rangeOf(0n, 1000n).map((i) => i * 7919n))).toHaveLength(1000);
    const high = [0n, KEY - 1n, KEY, KEY + 65535n, KEY + 65536n, 3n * KEY + 12345n, 9n * KEY + 0xffffffffn, 1000n * KEY + 65536n * 40000n];
    expect(roundTrip(high)).toEqual(BigInt64Array.from(high));
  });

  it('round-trips containers of exactly 4096 and 4097 values, dense and alternating', () => {
    for (const count of [4096n, 4097n]) {
      roundTrip(rangeOf(0n, count));
      roundTrip(rangeOf(0n, count).map((i) => 65536n * 3n + 2n * i));
      roundTrip(rangeOf(0n, count).map((i) => KEY * 2n + 65536n * 5n + 2n * i + 1n));
    }
  });

  it('round-trips 100k random positions over three keys', () => {
    const values = lcgPositions(99n, 100_000, 3n * KEY);
    const decoded = roundTrip(values);
    expect(decoded.length).toBe(new Set(values).size);
    expect(decoded.length).toBeGreaterThan(99_000);
  });

  it('writes one empty bitmap per missing key below the largest, as Java does', () => {
    const bytes = serializeRoaring64(positions(2n * KEY + 1n));
    // count 3; key 0 and key 1 empty (cookie 12346, 0 containers); key 2 one array container.
    expect(toHex(bytes)).toBe(
      '0300000000000000' + '00000000' + '3a30000000000000' + '01000000' + '3a30000000000000' + '02000000' + '3a300000010000000000000010000000' + '0100',
    );
  });

  it('writes array, bitset and run containers with Java’s cookies and offset headers', () => {
    // Three run containers: cookie 12347 with count-1 in the high half, flags 0b111, no offsets.
    const three = serializeRoaring64(toSortedPositions([0n, 1n, 2n].flatMap((c) => rangeOf(c * 65536n, c * 65536n + 10n))));
    expect(toHex(three.subarray(12, 21))).toBe('3b300200' + '07' + '00000900');
    expect(three.length).toBe(12 + 4 + 1 + 12 + 3 * 6);
    // Four containers, one a run: the offset header is present (count >= 4).
    const four = serializeRoaring64(positions(0n, 65536n, 2n * 65536n, 3n * 65536n, 3n * 65536n + 1n, 3n * 65536n + 2n, 3n * 65536n + 3n));
    expect(toHex(four.subarray(12, 17))).toBe('3b300300' + '08');
    expect(four.length).toBe(12 + 4 + 1 + 16 + 16 + 3 * 2 + 6);
    // 4097 alternating values: a bitset (8192 bytes) under cookie 12346.
    const bitset = serializeRoaring64(toSortedPositions(rangeOf(0n, 4097n).map((i) => 2n * i)));
    expect(toHex(bitset.subarray(12, 28))).toBe('3a300000' + '01000000' + '00000010' + '10000000');
    expect(bitset.length).toBe(12 + 16 + 8192);
  });

  it('decodes bitmaps CRoaring wrote without run optimization (Iceberg’s 64map test resources)', () => {
    const thirtyTwoBit = fromHex('0100000000000000000000003a3000000100000000000900100000000000010002000300040005000600070008000900');
    expect(deserializeRoaring64(thirtyTwoBit, '64map32bitvals.bin')).toEqual(BigInt64Array.from(rangeOf(0n, 10n)));
    expect(deserializeRoaring64(fromHex('0000000000000000'), '64mapempty.bin')).toHaveLength(0);
    const perKey = '3a3000000100000000000900100000000000010002000300040005000600070008000900';
    const spread = fromHex('0a00000000000000' + rangeOf(0n, 10n).map((k) => toHex(Uint8Array.of(Number(k), 0, 0, 0)) + perKey).join(''));
    expect(deserializeRoaring64(spread, '64mapspreadvals.bin')).toEqual(BigInt64Array.from(rangeOf(0n, 10n).flatMap((k) => rangeOf(k * KEY, k * KEY + 10n))));
    // Java run-optimizes 0..9 into one run container, so its bytes differ from CRoaring's.
    expect(toHex(serializeRoaring64(BigInt64Array.from(rangeOf(0n, 10n))))).toBe('0100000000000000' + '00000000' + '3b300000' + '01' + '00000900' + '0100' + '00000900');
  });

  it('decodes cookie 12347 without run containers, and cookie 12346 bitsets', () => {
    // 12347, one container, no run flag: an array container of {1, 2}.
    const noRuns = fromHex('0100000000000000' + '00000000' + '3b300000' + '00' + '05000100' + '0100' + '0200');
    expect(deserializeRoaring64(noRuns, 'hand-made')).toEqual(positions(5n * 65536n + 1n, 5n * 65536n + 2n));
    // 12346 with a bitset: 5000 set bits 0..4999 (card > 4096 means bitset).
    const bitset = new Uint8Array(8192);
    bitset.fill(0xff, 0, 625);
    const bytes = new Uint8Array([...fromHex('0100000000000000' + '00000000' + '3a300000' + '01000000' + '0000' + '8713' + '10000000'), ...bitset]);
    expect(deserializeRoaring64(bytes, 'hand-made')).toEqual(BigInt64Array.from(rangeOf(0n, 5000n)));
  });

  it('refuses every truncation of a valid bitmap with an error naming the input', () => {
    const full = serializeRoaring64(toSortedPositions([1n, 2n, 3n, 70000n, KEY + 5n, ...rangeOf(0n, 5000n).map((i) => 2n * KEY + 2n * i)]));
    for (let length = 0; length < full.length; length += length < 200 ? 1 : 97) {
      expect(() => deserializeRoaring64(full.subarray(0, length), 'dv.puffin blob 0')).toThrow(IcebergFormatError);
    }
    expect(() => deserializeRoaring64(full.subarray(0, 30), 'dv.puffin blob 0')).toThrow(/dv\.puffin blob 0.*truncated/);
    expect(() => deserializeRoaring64(new Uint8Array([...full, 0]), 'x')).toThrow(/1 bytes follow the last bitmap/);
  });

  it('refuses corrupt layouts', () => {
    const bad = (hex: string, pattern: RegExp): void => {
      expect(() => deserializeRoaring64(fromHex(hex), 'corrupt.bin')).toThrow(pattern);
    };
    bad('0100000000000000' + '00000000' + '3930000000000000', /unknown Roaring cookie 12345/);
    bad('0100000000000000' + '00000080' + '3a30000000000000', /most significant bit/);
    bad('0200000000000000' + '01000000' + '3a30000000000000' + '01000000' + '3a30000000000000', /does not follow key 1/);
    bad('0100000000000000' + '00000000' + '3a30000002000000' + '00000000' + '00000000' + '1400000016000000' + '0100' + '0200', /container key 0 does not follow key 0/);
    bad('0100000000000000' + '00000000' + '3a30000001000000' + '00000100' + '10000000' + '0500' + '0300', /value 3 does not follow 5/);
    bad('ffffffff00000000', /bitmap count/);
    // Run container: header says 3 values, runs hold 11; then overlapping runs; then a run past 65535.
    bad('0100000000000000' + '00000000' + '3b300000' + '01' + '00000200' + '0100' + '00000a00', /holds 11 values but its header says 3/);
    bad('0100000000000000' + '00000000' + '3b300000' + '01' + '00000900' + '0200' + '00000400' + '03000400', /overlaps/);
    bad('0100000000000000' + '00000000' + '3b300000' + '01' + '00000100' + '0100' + 'ffff0100', /passes the end/);
    // Bitset whose header claims 5000 values but holds 8.
    const bitset = '0100000000000000' + '00000000' + '3a300000' + '01000000' + '00008713' + '10000000' + 'ff' + '00'.repeat(8191);
    bad(bitset, /bitset container holds 8 values but its header says 5000/);
  });

  it('refuses positions it cannot write', () => {
    // Java keeps a bitmap for every key up to the largest: a huge key would need gigabytes.
    expect(() => serializeRoaring64(positions(((1n << 31n) - 2n) * KEY))).toThrow(/more than a blob may hold/);
    expect(() => serializeRoaring64(positions(3n, 2n))).toThrow(/ascending and unique: 2 at index 1 follows 3/);
    expect(() => serializeRoaring64(positions(3n, 3n))).toThrow(IcebergFormatError);
    expect(() => serializeRoaring64(positions(-1n))).toThrow(/out of range/);
    expect(() => serializeRoaring64(positions(((1n << 31n) - 1n) * KEY))).toThrow(/out of range/);
  });

  it('encodes and decodes millions of positions quickly', () => {
    const n = 3_000_000;
    const values = new BigInt64Array(n);
    // Half dense runs with holes, half spread sparsely over many containers and two keys.
    for (let i = 0; i < n / 2; i++) values[i] = BigInt(i + Math.floor(i / 7));
    for (let i = n / 2; i < n; i++) values[i] = 10_000_000n + BigInt(i) * 2903n;
    let started = performance.now();
    const bytes = serializeRoaring64(values);
    const encodeMs = performance.now() - started;
    started = performance.now();
    const decoded = deserializeRoaring64(bytes, 'big');
    const decodeMs = performance.now() - started;
    expectSamePositions(decoded, values);
    // Typically ~100 ms each; the bound leaves room for a busy machine.
    expect(encodeMs).toBeLessThan(1500);
    expect(decodeMs).toBeLessThan(1500);
  });
});
