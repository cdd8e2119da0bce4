/**
 * Where a Debezium JSON change event's envelope fields lie in its bytes, found without parsing:
 * the value passes the JSON byte check (json-object-check.ts), is unwrapped from the JSON
 * converter's `{schema, payload}` as the decoder unwraps it (debezium-decoder.ts), and has an op
 * and the row images that op needs. Only plainly written envelopes are read: anything the
 * decoder would refuse, or might read differently from the bytes (an escaped key or op, a key
 * given twice, a ts_ms that is not a plain integer), is left to the decoder, which decides and
 * gives the reason.
 */
import { isStageableJsonObject, objectMembers, TopLevelKeyBounds } from './json-object-check.js';

/** A field's bounds in the value when it is staged as null (missing, null, or not for this op). */
export const ABSENT = -1;

export class DebeziumEnvelopeBytes {
  /** The op's letter (c, u, d, r or t) as a byte. */
  op = 0;
  /** [start, end) of the `before` image, staged for ops u and d only. */
  beforeStart = ABSENT;
  beforeEnd = ABSENT;
  /** Of the `after` image, staged for ops c, r and u only. */
  afterStart = ABSENT;
  afterEnd = ABSENT;
  sourceStart = ABSENT;
  sourceEnd = ABSENT;
  /** Of ts_ms: a plain integer or null, staged as it is written. */
  tsMsStart = ABSENT;
  tsMsEnd = ABSENT;
  private readonly top = new TopLevelKeyBounds();
  private readonly payload = new TopLevelKeyBounds();

  /** Whether `value` is an envelope read plainly; its fields' bounds are then set. */
  read(value: Uint8Array): boolean {
    if (!isStageableJsonObject(value, NO_RESERVED_KEYS, this.top)) return false;
    let members = this.top;
    const op = memberIndex(value, members, OP);
    if (op === DUPLICATE) return false;
    if (op === MISSING) {
      const schema = memberIndex(value, members, SCHEMA);
      const payload = memberIndex(value, members, PAYLOAD);
      if (schema < 0 || payload < 0) return false;
      const at = members.values[payload * 2] as number;
      if (value[at] !== OPEN_BRACE || !objectMembers(value, at, this.payload)) return false;
      members = this.payload;
    }
    return this.readEnvelope(value, members);
  }

  private readEnvelope(value: Uint8Array, members: TopLevelKeyBounds): boolean {
    const op = memberIndex(value, members, OP);
    if (op < 0) return false;
    const opStart = members.values[op * 2] as number;
    const letter = value[opStart + 1] as number;
    if (members.values[op * 2 + 1] !== opStart + 3 || value[opStart] !== QUOTE || !OPS.includes(letter)) return false;
    this.op = letter;
    const before = imageIndex(value, members, BEFORE);
    const after = imageIndex(value, members, AFTER);
    const source = imageIndex(value, members, SOURCE);
    const tsMs = memberIndex(value, members, TS_MS);
    if (before === REFUSED || after === REFUSED || source === REFUSED || tsMs === DUPLICATE) return false;
    const landsBefore = letter === U || letter === D;
    const landsAfter = letter === C || letter === R || letter === U;
    if ((letter === D && before < 0) || (landsAfter && after < 0)) return false;
    [this.beforeStart, this.beforeEnd] = landsBefore ? bounds(members, before) : NONE;
    [this.afterStart, this.afterEnd] = landsAfter ? bounds(members, after) : NONE;
    [this.sourceStart, this.sourceEnd] = bounds(members, source);
    [this.tsMsStart, this.tsMsEnd] = bounds(members, tsMs);
    return this.tsMsStart === ABSENT || isPlainMillis(value, this.tsMsStart, this.tsMsEnd);
  }
}

const NO_RESERVED_KEYS: readonly Uint8Array[] = [];
const key = (name: string): Uint8Array => Buffer.from(name, 'latin1');
const OP = key('op');
const BEFORE = key('before');
const AFTER = key('after');
const SOURCE = key('source');
const TS_MS = key('ts_ms');
const SCHEMA = key('schema');
const PAYLOAD = key('payload');
const [C, U, D, R, T] = [...'cudrt'].map((op) => op.charCodeAt(0)) as [number, number, number, number, number];
const OPS = [C, U, D, R, T];
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const MINUS = 0x2d;
const NONE: readonly [number, number] = [ABSENT, ABSENT];

const MISSING = -1;
const DUPLICATE = -2;
/** A row image or source that is neither an object nor null. */
const REFUSED = -3;

/** The index of the member named `name`, MISSING, or DUPLICATE when it is given twice. */
function memberIndex(value: Uint8Array, members: TopLevelKeyBounds, name: Uint8Array): number {
  let found = MISSING;
  for (let k = 0; k < members.count; k++) {
    const start = members.bounds[k * 2] as number;
    if ((members.bounds[k * 2 + 1] as number) - start !== name.length || !sameBytes(value, start, name)) continue;
    if (found !== MISSING) return DUPLICATE;
    found = k;
  }
  return found;
}

/** The member holding an object; MISSING when it is absent or null; REFUSED otherwise. */
function imageIndex(value: Uint8Array, members: TopLevelKeyBounds, name: Uint8Array): number {
  const k = memberIndex(value, members, name);
  if (k === DUPLICATE) return REFUSED;
  if (k === MISSING) return MISSING;
  const first = value[members.values[k * 2] as number];
  return first === OPEN_BRACE ? k : first === NULL_FIRST ? MISSING : REFUSED;
}

/** `null` is the only JSON value starting with n. */
const NULL_FIRST = 0x6e;

function bounds(members: TopLevelKeyBounds, k: number): readonly [number, number] {
  return k < 0 ? NONE : [members.values[k * 2] as number, members.values[k * 2 + 1] as number];
}

/** An integer of at most 15 digits (JSON.parse then JSON.stringify would give the same text), or null. */
function isPlainMillis(value: Uint8Array, start: number, end: number): boolean {
  if (value[start] === NULL_FIRST) return true;
  const digitsStart = value[start] === MINUS ? start + 1 : start;
  if (end - digitsStart < 1 || end - digitsStart > 15 || (value[digitsStart] === 0x30 && digitsStart !== start)) return false;
  for (let i = digitsStart; i < end; i++) {
    const c = value[i] as number;
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function sameBytes(value: Uint8Array, start: number, name: Uint8Array): boolean {
  for (let i = 0; i < name.length; i++) if (value[start + i] !== name[i]) return false;
  return true;
}
