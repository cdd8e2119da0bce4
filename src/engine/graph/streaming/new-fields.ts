/**
 * Whether a batch brings top-level fields outside a set of known names, found without DuckDB:
 * the field names the source found while checking the values (`SourceRecord.fieldNames`), else
 * checked JSON values (`SourceRecord.json`) walked as bytes at the top level only (nested
 * values skipped by bracket depth, no value decoded), other values by their own keys. Only keys
 * are turned into strings, and a key seen already in the batch is recognised by its bytes without
 * one. Measured at 50-140 ms per 50k records of 180 bytes on 2 busy cores; DuckDB's whole-batch
 * type detection of the fields the writer schemas do not type, which it lets a batch skip
 * (kafka-input.ts), costs two to four times that.
 */
import type { JsonRecord } from './batch-staging.js';

/** Whether a record has a top-level value field whose name is not exactly one of `known`; stops at the first. */
export function hasFieldsOutside(records: readonly JsonRecord[], known: Iterable<string>): boolean {
  const scan = new KeyScan(known);
  // Records fetched together share one list of their field names: each list is looked at once.
  let namesSeen: readonly string[] | undefined;
  for (const record of records) {
    const names = record.fieldNames;
    if (names !== undefined) {
      if (names === namesSeen) continue;
      for (const name of names) scan.name(name);
      namesSeen = names;
    } else if (record.json !== undefined) scan.bytes(record.json);
    else for (const key of Object.keys(record.value)) scan.name(key);
    if (scan.found.size > 0) return true;
  }
  return false;
}

class KeyScan {
  readonly found = new Set<string>();
  private readonly known: Set<string>;
  /** Raw bytes of the keys seen so far, by a hash of them: a known key costs no string and no allocation. */
  private readonly seen = new Map<number, Buffer[]>();

  constructor(known: Iterable<string>) {
    this.known = new Set(known);
  }

  name(key: string): void {
    if (this.known.has(key)) return;
    this.found.add(key);
  }

  bytes(json: Buffer): void {
    let i = skipBlanks(json, json.indexOf(OPEN_BRACE) + 1);
    if (json[i] === CLOSE_BRACE) return;
    for (;;) {
      if (json[i] !== QUOTE) return this.unexpected(json);
      const end = stringEnd(json, i);
      if (end < 0) return this.unexpected(json);
      this.key(json, i, end);
      i = skipBlanks(json, end + 1);
      if (json[i] !== COLON) return this.unexpected(json);
      i = skipValue(json, skipBlanks(json, i + 1));
      if (i < 0) return this.unexpected(json);
      i = skipBlanks(json, i);
      if (json[i] === COMMA) i = skipBlanks(json, i + 1);
      else if (json[i] === CLOSE_BRACE) return;
      else return this.unexpected(json);
    }
  }

  /** The key whose quotes are at `open` and `close`. */
  private key(json: Buffer, open: number, close: number): void {
    let hash = FNV_OFFSET;
    let escaped = false;
    for (let i = open + 1; i < close; i++) {
      const c = json[i] as number;
      if (c === BACKSLASH) escaped = true;
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }
    const bucket = this.seen.get(hash);
    if (bucket !== undefined && bucket.some((raw) => sameBytes(raw, json, open + 1, close))) return;
    this.name(escaped ? (JSON.parse(json.toString('utf8', open, close + 1)) as string) : json.toString('utf8', open + 1, close));
    const raw = Buffer.from(json.subarray(open + 1, close));
    if (bucket === undefined) this.seen.set(hash, [raw]);
    else bucket.push(raw);
  }

  /** Bytes the walk does not follow (the source's check should prevent them): the parser decides. */
  private unexpected(json: Buffer): void {
    try {
      const value: unknown = JSON.parse(json.toString('utf8'));
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) for (const key of Object.keys(value)) this.name(key);
    } catch {
      // Not JSON: the stager's reader reports it.
    }
  }
}

function sameBytes(raw: Buffer, json: Buffer, start: number, end: number): boolean {
  if (raw.length !== end - start) return false;
  for (let i = 0; i < raw.length; i++) if (raw[i] !== json[start + i]) return false;
  return true;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Index of the quote closing the string opened at `open`; -1 when there is none. Short strings
 * (most keys) are walked in JavaScript, where a native search costs more per call than it saves;
 * past SHORT_STRING bytes the rest is found with Buffer.indexOf, a quote preceded by an odd run of
 * backslashes being part of the string.
 */
function stringEnd(json: Buffer, open: number): number {
  const walked = Math.min(json.length, open + 1 + SHORT_STRING);
  for (let i = open + 1; i < walked; i++) {
    const c = json[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  let from = walked;
  // A backslash walked last escapes the byte at `walked`.
  if (walked > open + 1 && json[walked - 1] === BACKSLASH && !escapedAt(json, walked - 1, open)) from = walked + 1;
  for (;;) {
    const quote = json.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    if (!escapedAt(json, quote, open)) return quote;
    from = quote + 1;
  }
}

const SHORT_STRING = 24;

/** Whether the byte at `at` is escaped: an odd run of backslashes right before it (after `open`). */
function escapedAt(json: Buffer, at: number, open: number): boolean {
  let run = 0;
  for (let i = at - 1; i > open && json[i] === BACKSLASH; i--) run++;
  return run % 2 === 1;
}

/** Index just past the value starting at `start`; -1 when it does not end. */
function skipValue(json: Buffer, start: number): number {
  const first = json[start];
  if (first === QUOTE) {
    const end = stringEnd(json, start);
    return end < 0 ? -1 : end + 1;
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = start; i < json.length; i++) {
      const c = json[i];
      if (c === QUOTE) {
        i = stringEnd(json, i);
        if (i < 0) return -1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = start;
  while (i < json.length) {
    const c = json[i];
    if (c === COMMA || c === CLOSE_BRACE || c === SPACE || c === TAB || c === NEWLINE || c === RETURN) break;
    i++;
  }
  return i === start ? -1 : i;
}

function skipBlanks(json: Buffer, at: number): number {
  let i = at;
  for (;;) {
    const c = json[i];
    if (c !== SPACE && c !== TAB && c !== NEWLINE && c !== RETURN) return i;
    i++;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
