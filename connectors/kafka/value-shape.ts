/**
 * The shape of a JSON value: a 52-bit hash of its structure, every key at every depth in order and
 * the kind of every value (string, integer, number with a fraction or exponent, boolean, null,
 * object, array), but none of the scalars themselves. Two values of one shape are read by the
 * same DuckDB column types without loss: a type detected over values of some shapes reads any
 * later value of those shapes exactly (the engine's learned column types rest on this,
 * learned-columns.ts). The byte check (json-object-check.ts) computes it while it walks a value;
 * shapeOfValue gives the same for a parsed value.
 */

/** Tokens of kinds; a key is SHAPE_KEY and two hashes of its UTF-8 bytes (keyTokens). */
export const SHAPE_KEY = 256;
export const SHAPE_STRING = 258;
export const SHAPE_INTEGER = 259;
export const SHAPE_FRACTION = 260;
export const SHAPE_BOOLEAN = 261;
export const SHAPE_NULL = 262;
export const SHAPE_OBJECT = 263;
export const SHAPE_OBJECT_END = 264;
export const SHAPE_ARRAY = 265;
export const SHAPE_ARRAY_END = 266;

// Two independent 32-bit lanes (FNV-1a and a multiply-xorshift), 52 bits of them kept. In a typed
// array: a module variable holding a number outside the small-integer range is boxed on every write.
const lanes = new Int32Array(2);

export function shapeStart(): void {
  lanes[0] = 0x811c9dc5;
  lanes[1] = 0x2545f491;
}

export function shapeToken(token: number): void {
  lanes[0] = Math.imul((lanes[0] as number) ^ token, 0x01000193);
  const b = Math.imul((lanes[1] as number) ^ token, 0x9e3779b1);
  lanes[1] = b ^ (b >>> 15);
}

export function shapeEnd(): number {
  return ((lanes[0] as number) >>> 0) * 0x100000 + ((lanes[1] as number) >>> 12);
}

/** A shape with one more token after it (e.g. the op of a Debezium envelope, which decides what of it is staged). */
export function shapeWith(shape: number, token: number): number {
  shapeStart();
  shapeToken(Math.floor(shape / 0x100000));
  shapeToken(shape % 0x100000);
  shapeToken(token);
  return shapeEnd();
}

/** The shape of a parsed JSON value as JSON.stringify writes it (undefined members left out). */
export function shapeOfValue(value: unknown): number {
  shapeStart();
  walk(value);
  return shapeEnd();
}

const UTF8 = new TextEncoder();

/** A key's bytes as two 32-bit hashes (FNV-1a, and a multiply-xorshift seeded with the length). */
export function keyTokens(bytes: Uint8Array, start = 0, end = bytes.length): void {
  let h1 = 0x811c9dc5;
  let h2 = end - start;
  for (let k = start; k < end; k++) {
    const c = bytes[k] as number;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  shapeToken(h1);
  shapeToken(h2);
}

function walk(value: unknown): void {
  if (value === null) shapeToken(SHAPE_NULL);
  else if (typeof value === 'string') shapeToken(SHAPE_STRING);
  else if (typeof value === 'boolean') shapeToken(SHAPE_BOOLEAN);
  else if (typeof value === 'bigint') shapeToken(SHAPE_INTEGER);
  else if (typeof value === 'number') shapeToken(!Number.isFinite(value) ? SHAPE_NULL : Number.isInteger(value) ? SHAPE_INTEGER : SHAPE_FRACTION);
  else if (Array.isArray(value)) {
    shapeToken(SHAPE_ARRAY);
    for (const item of value) walk(item === undefined || typeof item === 'function' ? null : item);
    shapeToken(SHAPE_ARRAY_END);
  } else if (typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return walk(json.call(value));
    shapeToken(SHAPE_OBJECT);
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function') continue;
      shapeToken(SHAPE_KEY);
      keyTokens(UTF8.encode(key));
      walk(member);
    }
    shapeToken(SHAPE_OBJECT_END);
  }
}
