/**
 * A byte-level check that a record value can be staged as fetched: one JSON object (RFC 8259) in
 * valid UTF-8, on one line (no CR/LF, so it fits a newline-delimited file), no more than 64 levels
 * deep, and no top-level key that is escaped or taken by a coordinate column. It allocates nothing
 * and costs a fraction of JSON.parse + JSON.stringify; a value that fails it is not necessarily
 * bad, it goes through JSON.parse, which decides and gives the exact reason. Walking the value, it
 * takes its shape too (value-shape.ts): checkedShape() gives the last passing value's.
 */
import { isUtf8 } from 'node:buffer';
import {
  SHAPE_ARRAY,
  SHAPE_ARRAY_END,
  SHAPE_BOOLEAN,
  SHAPE_FRACTION,
  SHAPE_INTEGER,
  SHAPE_KEY,
  SHAPE_NULL,
  SHAPE_OBJECT,
  SHAPE_OBJECT_END,
  SHAPE_STRING,
  keyTokens,
  shapeEnd,
  shapeStart,
  shapeToken,
} from './value-shape.js';

const MAX_DEPTH = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const UNDERSCORE = 0x5f;

/** Top-level keys (ASCII, starting with "_") that make a value take the JSON.parse path. */
export function reservedKeyBytes(keys: readonly string[]): Uint8Array[] {
  return keys.map((key) => {
    if (!/^_[\x20-\x7e]*$/.test(key) || key.includes('"') || key.includes('\\')) throw new Error(`reserved key ${key} must be printable ASCII starting with "_"`);
    return Buffer.from(key, 'latin1');
  });
}

// Every scan function takes the bytes and a position and returns the position after what it
// read, or FAIL: plain locals keep the per-byte loops fast (the check runs once per record).
const FAIL = -1;

/** Where the top-level keys of the last value checked are, and their values: [start, end) byte pairs, in order. */
export class TopLevelKeyBounds {
  bounds = new Int32Array(64);
  values = new Int32Array(64);
  count = 0;

  reset(): void {
    this.count = 0;
  }

  add(start: number, end: number): void {
    if (this.count * 2 + 2 > this.bounds.length) {
      this.bounds = grown(this.bounds);
      this.values = grown(this.values);
    }
    this.bounds[this.count * 2] = start;
    this.bounds[this.count * 2 + 1] = end;
    this.count++;
  }

  /** The bounds of the value of the key added last. */
  setValue(start: number, end: number): void {
    this.values[this.count * 2 - 2] = start;
    this.values[this.count * 2 - 1] = end;
  }
}

function grown(pairs: Int32Array): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(pairs.length * 2);
  larger.set(pairs);
  return larger;
}

let lastShape = 0;

/** The shape (value-shape.ts) of the last value isStageableJsonObject passed. */
export function checkedShape(): number {
  return lastShape;
}

/** With `keys`, the top-level keys' bounds are collected into it as the walk passes them. */
export function isStageableJsonObject(value: Uint8Array, reserved: readonly Uint8Array[], keys?: TopLevelKeyBounds): boolean {
  if (!isUtf8(value)) return false;
  const at = skipSpace(value, 0);
  if (value[at] !== OPEN_BRACE) return false;
  keys?.reset();
  shapeStart();
  const after = object(value, at, 1, reserved, keys);
  if (after === FAIL || skipSpace(value, after) !== value.length) return false;
  lastShape = shapeEnd();
  return true;
}

/**
 * The members of the object whose opening brace is at `at` in a value that passed the check,
 * collected into `keys`; false when a key has an escape (its bytes are not its name).
 */
export function objectMembers(value: Uint8Array, at: number, keys: TopLevelKeyBounds): boolean {
  keys.reset();
  return object(value, at, 1, NO_RESERVED_KEYS, keys) !== FAIL;
}

const NO_RESERVED_KEYS: readonly Uint8Array[] = [];

function skipSpace(b: Uint8Array, at: number): number {
  const end = b.length;
  while (at < end) {
    const c = b[at];
    if (c !== 0x20 && c !== 0x09) break;
    at++;
  }
  return at;
}

/** At the opening brace; `reserved` and `keys` are given for the top level only. */
function object(b: Uint8Array, at: number, depth: number, reserved: readonly Uint8Array[] | undefined, keys?: TopLevelKeyBounds): number {
  shapeToken(SHAPE_OBJECT);
  at = skipSpace(b, at + 1);
  if (b[at] === CLOSE_BRACE) {
    shapeToken(SHAPE_OBJECT_END);
    return at + 1;
  }
  for (;;) {
    if (b[at] !== QUOTE) return FAIL;
    const keyStart = at + 1;
    at = string(b, at, reserved === undefined);
    if (at === FAIL) return FAIL;
    if (reserved !== undefined && b[keyStart] === UNDERSCORE && isReserved(b, keyStart, at - 1, reserved)) return FAIL;
    keys?.add(keyStart, at - 1);
    shapeToken(SHAPE_KEY);
    keyTokens(b, keyStart, at - 1);
    at = skipSpace(b, at);
    if (b[at] !== COLON) return FAIL;
    const valueStart = skipSpace(b, at + 1);
    at = value(b, valueStart, depth);
    if (at === FAIL) return FAIL;
    keys?.setValue(valueStart, at);
    at = skipSpace(b, at);
    const c = b[at];
    if (c === CLOSE_BRACE) {
      shapeToken(SHAPE_OBJECT_END);
      return at + 1;
    }
    if (c !== COMMA) return FAIL;
    at = skipSpace(b, at + 1);
  }
}

function array(b: Uint8Array, at: number, depth: number): number {
  shapeToken(SHAPE_ARRAY);
  at = skipSpace(b, at + 1);
  if (b[at] === CLOSE_BRACKET) {
    shapeToken(SHAPE_ARRAY_END);
    return at + 1;
  }
  for (;;) {
    at = value(b, at, depth);
    if (at === FAIL) return FAIL;
    at = skipSpace(b, at);
    const c = b[at];
    if (c === CLOSE_BRACKET) {
      shapeToken(SHAPE_ARRAY_END);
      return at + 1;
    }
    if (c !== COMMA) return FAIL;
    at = skipSpace(b, at + 1);
  }
}

function value(b: Uint8Array, at: number, depth: number): number {
  const c = b[at];
  if (c === QUOTE) {
    shapeToken(SHAPE_STRING);
    return string(b, at, true);
  }
  if (c === OPEN_BRACE) return depth < MAX_DEPTH ? object(b, at, depth + 1, undefined, undefined) : FAIL;
  if (c === OPEN_BRACKET) return depth < MAX_DEPTH ? array(b, at, depth + 1) : FAIL;
  if (c === 0x74 || c === 0x66) {
    shapeToken(SHAPE_BOOLEAN);
    return literal(b, at, c === 0x74 ? TRUE : FALSE);
  }
  if (c === 0x6e) {
    shapeToken(SHAPE_NULL);
    return literal(b, at, NULL);
  }
  const end = number(b, at);
  if (end !== FAIL) shapeToken(isInteger(b, at, end) ? SHAPE_INTEGER : SHAPE_FRACTION);
  return end;
}

/** A JSON number without a fraction or an exponent (DuckDB detects it as an integer type). */
function isInteger(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
  }
  return true;
}

const TRUE = new Uint8Array([0x74, 0x72, 0x75, 0x65]);
const FALSE = new Uint8Array([0x66, 0x61, 0x6c, 0x73, 0x65]);
const NULL = new Uint8Array([0x6e, 0x75, 0x6c, 0x6c]);

function literal(b: Uint8Array, at: number, expected: Uint8Array): number {
  for (let k = 0; k < expected.length; k++) if (b[at + k] !== expected[k]) return FAIL;
  return at + expected.length;
}

/** At the opening quote; UTF-8 was checked for the whole value, so bytes >= 0x80 pass. */
function string(b: Uint8Array, at: number, escapesAllowed: boolean): number {
  const end = b.length;
  at++;
  while (at < end) {
    const c = b[at] as number;
    if (c === QUOTE) return at + 1;
    if (c < 0x20) return FAIL;
    if (c !== BACKSLASH) {
      at++;
      continue;
    }
    if (!escapesAllowed) return FAIL;
    const e = b[at + 1];
    if (e === 0x75) {
      if (!isHex(b[at + 2]) || !isHex(b[at + 3]) || !isHex(b[at + 4]) || !isHex(b[at + 5])) return FAIL;
      at += 6;
    } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      at += 2;
    } else {
      return FAIL;
    }
  }
  return FAIL;
}

function number(b: Uint8Array, at: number): number {
  if (b[at] === 0x2d) at++;
  if (b[at] === 0x30) at++;
  else if ((at = digits(b, at)) === FAIL) return FAIL;
  if (b[at] === 0x2e && (at = digits(b, at + 1)) === FAIL) return FAIL;
  const e = b[at];
  if (e === 0x65 || e === 0x45) {
    at++;
    const sign = b[at];
    if (sign === 0x2b || sign === 0x2d) at++;
    if ((at = digits(b, at)) === FAIL) return FAIL;
  }
  return at;
}

/** One or more digits. */
function digits(b: Uint8Array, at: number): number {
  const start = at;
  while (at < b.length && isDigit(b[at])) at++;
  return at > start ? at : FAIL;
}

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

/** Whether b[start, stop) spells one of the reserved keys. */
function isReserved(b: Uint8Array, start: number, stop: number, reserved: readonly Uint8Array[]): boolean {
  outer: for (const key of reserved) {
    if (key.length !== stop - start) continue;
    for (let k = 0; k < key.length; k++) if (b[start + k] !== key[k]) continue outer;
    return true;
  }
  return false;
}
