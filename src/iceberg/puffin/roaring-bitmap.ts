/**
 * The Roaring "portable 64-bit" serialization of a set of row positions, as held in a
 * `deletion-vector-v1` blob (ICEBERG.md §6.4): a uint64 bitmap count, then per 32-bit key a
 * uint32 key and a standard 32-bit Roaring bitmap of the low 32 bits, all little-endian.
 *
 * The writer produces the bytes Iceberg Java writes for a freshly built bitmap: Java's
 * RoaringPositionBitmap holds one 32-bit bitmap for every key from 0 to the largest one (gaps
 * are written as empty bitmaps), and runs `runOptimize()` before serializing, which turns a
 * container into a run container only when that is strictly smaller.
 *
 * Positions stay in typed arrays throughout: a BigInt64Array is read and written through a
 * Uint32Array view of its two 32-bit halves, so no BigInt is made per position.
 */
import { IcebergFormatError } from '../../errors.js';

const COOKIE_NO_RUN = 12346;
const COOKIE_RUN = 12347;
/** Below this many containers a bitmap with run containers has no offset header. */
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_MAX_CARDINALITY = 4096;
const BITSET_BYTES = 8192;
/** Java's bitmaps live in an array indexed by key, so it refuses key 2^31-1. */
const MAX_WRITE_KEY = 0x7ffffffe;
/** Java refuses to serialize a blob of 2 GiB or more. */
const MAX_SERIALIZED_BYTES = 0x7fffffff - 12;
/** A run container claims up to 65536 positions in 6 bytes: cap what a header may make us allocate. */
const MAX_DECODED_POSITIONS = 2 ** 30;

const ARRAY = 0;
const BITSET = 1;
const RUN = 2;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of a position's low / high 32-bit half (position i at 2i + LO_HALF / 2i + HI_HALF) in `halves`. */
export const LO_HALF = LITTLE_ENDIAN ? 0 : 1;
export const HI_HALF = 1 - LO_HALF;
const LO = LO_HALF;
const HI = HI_HALF;

/** The positions' storage seen as 32-bit halves: reads them without making a BigInt each. */
export function halves(positions: BigInt64Array): Uint32Array {
  return new Uint32Array(positions.buffer, positions.byteOffset, positions.length * 2);
}

/** The containers of a sorted position list, in order: one per distinct (high 32, high 16 of low 32) bits. */
interface ContainerPlan {
  readonly count: number;
  readonly key32: Uint32Array;
  readonly key16: Uint16Array;
  /** Index of the container's first position; the next container's start ends it. */
  readonly start: Uint32Array;
  readonly runs: Uint32Array;
  readonly kind: Uint8Array;
}

/**
 * Serializes ascending, unique positions in [0, 2^63) whose high 32 bits are at most 2^31-2
 * (Java's limit). Fails with IcebergFormatError on anything else.
 */
export function serializeRoaring64(sortedPositions: BigInt64Array): Uint8Array {
  const words = halves(sortedPositions);
  const n = sortedPositions.length;
  const plan = planContainers(sortedPositions, words);
  const bitmapCount = n === 0 ? 0 : plan.key32[plan.count - 1]! + 1;

  let size = 8 + 12 * bitmapCount; // count, then per key its uint32 key and an 8-byte empty bitmap
  for (let from = 0; from < plan.count; ) {
    const to = keyEnd(plan, from);
    size += roaring32Size(plan, n, from, to) - 8;
    from = to;
  }
  if (size > MAX_SERIALIZED_BYTES) {
    throw new IcebergFormatError(`Deletion vector of ${n} positions would take ${size} bytes: more than a blob may hold (2 GiB)`, {
      context: { positions: n, bytes: size },
    });
  }

  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(bitmapCount), true);
  let p = 8;
  let from = 0;
  for (let key = 0; key < bitmapCount; key++) {
    view.setUint32(p, key, true);
    p += 4;
    const to = from < plan.count && plan.key32[from] === key ? keyEnd(plan, from) : from;
    p = writeRoaring32(out, view, p, plan, words, n, from, to);
    from = to;
  }
  return out;
}

function planContainers(positions: BigInt64Array, words: Uint32Array): ContainerPlan {
  const n = positions.length;
  let count = 0;
  let prevHi = -1;
  let prevLo = 0;
  for (let i = 0; i < n; i++) {
    const hi = words[2 * i + HI]!;
    const lo = words[2 * i + LO]!;
    if (hi > MAX_WRITE_KEY) {
      throw new IcebergFormatError(`Deletion vector position ${positions[i]} at index ${i} is out of range: positions must be in [0, ${(BigInt(MAX_WRITE_KEY) << 32n) | 0xffffffffn}]`, {
        context: { index: i, position: positions[i] },
      });
    }
    if (hi < prevHi || (hi === prevHi && lo <= prevLo)) {
      throw new IcebergFormatError(`Deletion vector positions must be ascending and unique: ${positions[i]} at index ${i} follows ${positions[i - 1]}`, {
        context: { index: i, position: positions[i] },
      });
    }
    if (hi !== prevHi || lo >>> 16 !== prevLo >>> 16) count++;
    prevHi = hi;
    prevLo = lo;
  }

  const plan = {
    count,
    key32: new Uint32Array(count),
    key16: new Uint16Array(count),
    start: new Uint32Array(count),
    runs: new Uint32Array(count),
    kind: new Uint8Array(count),
  };
  let c = -1;
  prevHi = -1;
  for (let i = 0; i < n; i++) {
    const hi = words[2 * i + HI]!;
    const lo = words[2 * i + LO]!;
    if (hi !== prevHi || lo >>> 16 !== prevLo >>> 16) {
      c++;
      plan.key32[c] = hi;
      plan.key16[c] = lo >>> 16;
      plan.start[c] = i;
      plan.runs[c] = 1;
    } else if (lo !== prevLo + 1) {
      plan.runs[c]!++;
    }
    prevHi = hi;
    prevLo = lo;
  }
  for (c = 0; c < count; c++) {
    const card = cardinality(plan, n, c);
    // Java builds arrays up to 4096 values and bitsets above; runOptimize() switches to a run
    // container only when its size (2 + 4 per run) is strictly below the current size.
    const currentSize = card <= ARRAY_MAX_CARDINALITY ? 2 * card : BITSET_BYTES;
    if (currentSize > 2 + 4 * plan.runs[c]!) plan.kind[c] = RUN;
    else plan.kind[c] = card <= ARRAY_MAX_CARDINALITY ? ARRAY : BITSET;
  }
  return plan;
}

function cardinality(plan: ContainerPlan, n: number, c: number): number {
  return (c + 1 < plan.count ? plan.start[c + 1]! : n) - plan.start[c]!;
}

/** Index just past the last container with the same 32-bit key as container `from`. */
function keyEnd(plan: ContainerPlan, from: number): number {
  const key = plan.key32[from];
  let to = from + 1;
  while (to < plan.count && plan.key32[to] === key) to++;
  return to;
}

function containerSize(plan: ContainerPlan, n: number, c: number): number {
  const kind = plan.kind[c];
  if (kind === RUN) return 2 + 4 * plan.runs[c]!;
  return kind === BITSET ? BITSET_BYTES : 2 * cardinality(plan, n, c);
}

function hasRun(plan: ContainerPlan, from: number, to: number): boolean {
  for (let c = from; c < to; c++) if (plan.kind[c] === RUN) return true;
  return false;
}

function roaring32Size(plan: ContainerPlan, n: number, from: number, to: number): number {
  const m = to - from;
  let size = 0;
  if (hasRun(plan, from, to)) size = 4 + ((m + 7) >>> 3) + 4 * m + (m >= NO_OFFSET_THRESHOLD ? 4 * m : 0);
  else size = 8 + 8 * m;
  for (let c = from; c < to; c++) size += containerSize(plan, n, c);
  return size;
}

/** Writes containers [from, to) as one 32-bit Roaring bitmap at `p`; returns the end offset. */
function writeRoaring32(out: Uint8Array, view: DataView, p: number, plan: ContainerPlan, words: Uint32Array, n: number, from: number, to: number): number {
  const m = to - from;
  const cookieAt = p;
  const withRuns = hasRun(plan, from, to);
  if (withRuns) {
    view.setUint32(p, (COOKIE_RUN | ((m - 1) << 16)) >>> 0, true);
    p += 4;
    for (let c = from; c < to; c++) {
      if (plan.kind[c] === RUN) out[p + ((c - from) >>> 3)]! |= 1 << ((c - from) & 7);
    }
    p += (m + 7) >>> 3;
  } else {
    view.setUint32(p, COOKIE_NO_RUN, true);
    view.setUint32(p + 4, m, true);
    p += 8;
  }
  for (let c = from; c < to; c++) {
    view.setUint16(p, plan.key16[c]!, true);
    view.setUint16(p + 2, cardinality(plan, n, c) - 1, true);
    p += 4;
  }
  if (!withRuns || m >= NO_OFFSET_THRESHOLD) {
    // Offsets count from the cookie; the first container follows this offset header.
    let offset = p - cookieAt + 4 * m;
    for (let c = from; c < to; c++) {
      view.setUint32(p, offset, true);
      offset += containerSize(plan, n, c);
      p += 4;
    }
  }
  for (let c = from; c < to; c++) {
    const first = plan.start[c]!;
    const end = first + cardinality(plan, n, c);
    const kind = plan.kind[c];
    if (kind === ARRAY) {
      for (let i = first; i < end; i++) {
        const lo = words[2 * i + LO]!;
        out[p++] = lo & 0xff;
        out[p++] = (lo >>> 8) & 0xff;
      }
    } else if (kind === BITSET) {
      for (let i = first; i < end; i++) {
        const v = words[2 * i + LO]! & 0xffff;
        out[p + (v >>> 3)]! |= 1 << (v & 7);
      }
      p += BITSET_BYTES;
    } else {
      view.setUint16(p, plan.runs[c]!, true);
      p += 2;
      let runStart = words[2 * first + LO]! & 0xffff;
      let prev = runStart;
      for (let i = first + 1; i <= end; i++) {
        const v = i < end ? words[2 * i + LO]! & 0xffff : -1;
        if (v === prev + 1) {
          prev = v;
          continue;
        }
        view.setUint16(p, runStart, true);
        view.setUint16(p + 2, prev - runStart, true);
        p += 4;
        runStart = v;
        prev = v;
      }
    }
  }
  return p;
}

/** Container descriptors gathered while checking the layout, before any position is written. */
interface ParsedContainers {
  key32: number[];
  key16: number[];
  kind: number[];
  card: number[];
  /** Byte offset of the container's data (for runs: of its run count). */
  at: number[];
  total: number;
}

class Reader {
  pos = 0;
  readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly where: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(message: string, at: number = this.pos): never {
    throw new IcebergFormatError(`Invalid deletion vector bitmap in ${this.where}, at byte ${at} of the bitmap: ${message}`, {
      context: { file: this.where, offset: at },
    });
  }

  need(length: number, what: string): number {
    const at = this.pos;
    if (length > this.bytes.length - at) this.fail(`truncated: ${what} needs ${length} bytes, ${this.bytes.length - at} left`);
    this.pos += length;
    return at;
  }

  u16(at: number): number {
    return this.view.getUint16(at, true);
  }

  u32(what: string): number {
    return this.view.getUint32(this.need(4, what), true);
  }
}

/**
 * Reads the portable 64-bit format (array, bitset and run containers; both cookies; with or
 * without an offset header) into ascending, unique positions. `where` names the file or blob in
 * errors.
 */
export function deserializeRoaring64(bytes: Uint8Array, where: string): BigInt64Array {
  const r = new Reader(bytes, where);
  const count = r.view.getBigUint64(r.need(8, 'the bitmap count'), true);
  // Each 32-bit bitmap takes at least 12 bytes with its key: a count beyond that is corrupt.
  if (count > BigInt(Math.floor((bytes.length - 8) / 12))) {
    r.fail(`bitmap count ${count} needs at least ${8n + 12n * count} bytes, the input has ${bytes.length} (truncated or corrupt)`, 0);
  }
  const parsed: ParsedContainers = { key32: [], key16: [], kind: [], card: [], at: [], total: 0 };
  let lastKey = -1;
  for (let b = 0; b < Number(count); b++) {
    const keyAt = r.pos;
    const key = r.u32('a bitmap key');
    if (key > 0x7fffffff) r.fail(`bitmap key ${key} has its most significant bit set (positions must be below 2^63)`, keyAt);
    if (key <= lastKey) r.fail(`bitmap key ${key} does not follow key ${lastKey} in ascending order`, keyAt);
    lastKey = key;
    parseRoaring32(r, key, parsed);
  }
  if (r.pos !== bytes.length) r.fail(`${bytes.length - r.pos} bytes follow the last bitmap`);
  if (parsed.total > MAX_DECODED_POSITIONS) r.fail(`its headers claim ${parsed.total} positions, more than ${MAX_DECODED_POSITIONS} this reader decodes at once`, 0);
  return fillPositions(r, parsed);
}

function parseRoaring32(r: Reader, key32: number, parsed: ParsedContainers): void {
  const cookieAt = r.pos;
  const cookie = r.u32('the Roaring cookie');
  let m: number;
  let runFlagsAt = -1;
  if ((cookie & 0xffff) === COOKIE_RUN) {
    m = (cookie >>> 16) + 1;
    runFlagsAt = r.need((m + 7) >>> 3, 'the run container flags');
  } else if (cookie === COOKIE_NO_RUN) {
    m = r.u32('the container count');
    if (m > 65536) r.fail(`container count ${m} exceeds 65536`, cookieAt + 4);
  } else {
    return r.fail(`unknown Roaring cookie ${cookie & 0xffff} (expected ${COOKIE_NO_RUN} or ${COOKIE_RUN})`, cookieAt);
  }
  const headerAt = r.need(4 * m, 'the container headers');
  // Containers follow one another, so the offset header (when present) is not needed to find them.
  if (runFlagsAt < 0 || m >= NO_OFFSET_THRESHOLD) r.need(4 * m, 'the container offsets');
  let lastKey16 = -1;
  for (let c = 0; c < m; c++) {
    const key16 = r.u16(headerAt + 4 * c);
    if (key16 <= lastKey16) r.fail(`container key ${key16} does not follow key ${lastKey16} in ascending order`, headerAt + 4 * c);
    lastKey16 = key16;
    const card = r.u16(headerAt + 4 * c + 2) + 1;
    const isRun = runFlagsAt >= 0 && (r.bytes[runFlagsAt + (c >>> 3)]! & (1 << (c & 7))) !== 0;
    let kind: number;
    let at: number;
    if (isRun) {
      kind = RUN;
      at = r.need(2, 'a run container');
      r.need(4 * r.u16(at), 'the runs of a run container');
    } else if (card <= ARRAY_MAX_CARDINALITY) {
      kind = ARRAY;
      at = r.need(2 * card, 'an array container');
    } else {
      kind = BITSET;
      at = r.need(BITSET_BYTES, 'a bitset container');
    }
    parsed.key32.push(key32);
    parsed.key16.push(key16);
    parsed.kind.push(kind);
    parsed.card.push(card);
    parsed.at.push(at);
    parsed.total += card;
  }
}

function fillPositions(r: Reader, parsed: ParsedContainers): BigInt64Array {
  const positions = new BigInt64Array(parsed.total);
  const words = halves(positions);
  const bytes = r.bytes;
  let o = 0;
  for (let c = 0; c < parsed.kind.length; c++) {
    const hi = parsed.key32[c]!;
    const base = parsed.key16[c]! << 16;
    const card = parsed.card[c]!;
    const at = parsed.at[c]!;
    const kind = parsed.kind[c];
    const end = o + card;
    if (kind === ARRAY) {
      let prev = -1;
      for (let q = at; o < end; q += 2) {
        const v = bytes[q]! | (bytes[q + 1]! << 8);
        if (v <= prev) r.fail(`array container value ${v} does not follow ${prev} in ascending order`, q);
        prev = v;
        words[2 * o + LO] = base | v;
        words[2 * o + HI] = hi;
        o++;
      }
    } else if (kind === BITSET) {
      let seen = 0;
      for (let q = at; q < at + BITSET_BYTES; q++) seen += popcount8(bytes[q]!);
      if (seen !== card) r.fail(`bitset container holds ${seen} values but its header says ${card}`, at);
      for (let q = at; q < at + BITSET_BYTES; q++) {
        let byte = bytes[q]!;
        const v0 = (q - at) << 3;
        while (byte !== 0) {
          const low = byte & -byte;
          words[2 * o + LO] = base | (v0 + 31 - Math.clz32(low));
          words[2 * o + HI] = hi;
          o++;
          byte ^= low;
        }
      }
    } else {
      const runs = r.u16(at);
      let seen = 0;
      let next = 0;
      for (let k = 0; k < runs; k++) {
        const start = r.u16(at + 2 + 4 * k);
        const length = r.u16(at + 4 + 4 * k) + 1;
        if (start < next) r.fail(`run starting at ${start} overlaps or precedes the run before it`, at + 2 + 4 * k);
        if (start + length > 65536) r.fail(`run ${start}+${length} passes the end of its container`, at + 2 + 4 * k);
        next = start + length;
        seen += length;
      }
      if (seen !== card) r.fail(`run container holds ${seen} values but its header says ${card}`, at);
      for (let k = 0; k < runs; k++) {
        const start = r.u16(at + 2 + 4 * k);
        const stop = start + r.u16(at + 4 + 4 * k);
        for (let v = start; v <= stop; v++) {
          words[2 * o + LO] = base | v;
          words[2 * o + HI] = hi;
          o++;
        }
      }
    }
  }
  return positions;
}

function popcount8(byte: number): number {
  let b = byte - ((byte >>> 1) & 0x55);
  b = (b & 0x33) + ((b >>> 2) & 0x33);
  return (b + (b >>> 4)) & 0x0f;
}
