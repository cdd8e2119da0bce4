/**
 * BigInt-safe JSON (spec §0: every `long` is int64). Integers outside Number's safe range parse
 * to bigint; everything else parses as JSON.parse would. bigint values are written back as bare
 * JSON integers, so 9223372036854775807 survives a round trip exactly.
 */
import { IcebergFormatError } from '../errors.js';

export function parseJson(text: string, source: string): unknown {
  const parser = new Parser(text, source);
  parser.skipWhitespace();
  const value = parser.parseValue(0);
  parser.skipWhitespace();
  if (parser.pos < text.length) parser.fail('unexpected content after the JSON value');
  return value;
}

const MAX_DEPTH = 1000;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Parser {
  pos = 0;
  constructor(
    private readonly text: string,
    private readonly source: string,
  ) {}

  fail(message: string, at: number = this.pos): never {
    throw new IcebergFormatError(`Invalid JSON in ${this.source} at offset ${at}: ${message}`, {
      context: { source: this.source, offset: at },
    });
  }

  skipWhitespace(): void {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.pos);
  }

  parseValue(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.parseObject(depth);
      case '[':
        return this.parseArray(depth);
      case '"':
        return this.parseString();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      case undefined:
        return this.fail('unexpected end of input');
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.parseNumber();
        return this.fail(`unexpected character ${JSON.stringify(c)}`);
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`expected ${word}`);
    this.pos += word.length;
    return value;
  }

  private parseNumber(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail('invalid number');
    const lexeme = match[0];
    this.pos += lexeme.length;
    const n = Number(lexeme);
    if (match[1] !== undefined || match[2] !== undefined || Number.isSafeInteger(n)) return n;
    return BigInt(lexeme);
  }

  private parseString(): string {
    const t = this.text;
    let i = ++this.pos; // skip the opening quote
    let out = '';
    let start = i;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        out += t.slice(start, i);
        this.pos = i + 1;
        return out;
      }
      if (Number.isNaN(c)) this.fail('unterminated string', i);
      if (c < 0x20) this.fail('unescaped control character in string', i);
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += t.slice(start, i);
      const e = t[i + 1];
      if (e === 'u') {
        const hex = t.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape', i);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else {
        const decoded = e === undefined ? undefined : ESCAPES[e];
        if (decoded === undefined) this.fail('invalid escape sequence', i);
        out += decoded;
        i += 2;
      }
      start = i;
    }
  }

  private parseArray(depth: number): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      out.push(this.parseValue(depth + 1));
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'", this.pos - 1);
    }
  }

  private parseObject(depth: number): Record<string, unknown> {
    this.pos++;
    const out: Record<string, unknown> = {};
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth + 1);
      // Plain assignment of "__proto__" would replace the prototype instead of adding a key.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'", this.pos - 1);
    }
  }
}

/**
 * Serialises like JSON.stringify (undefined object members are skipped, undefined array items
 * become null), but writes bigint as a bare integer and refuses non-finite numbers.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const out = write(value, indent !== undefined && indent > 0 ? ' '.repeat(indent) : '', '');
  if (out === undefined) throw new IcebergFormatError('Cannot serialise undefined as JSON');
  return out;
}

function write(value: unknown, unit: string, current: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new IcebergFormatError(`Cannot serialise ${value} as JSON`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const inner = current + unit;
  const open = unit === '' ? '' : `\n${inner}`;
  const sep = unit === '' ? ',' : `,\n${inner}`;
  const close = unit === '' ? '' : `\n${current}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item: unknown) => write(item, unit, inner) ?? 'null');
    return `[${open}${items.join(sep)}${close}]`;
  }
  const colon = unit === '' ? ':' : ': ';
  const members: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const text = write(member, unit, inner);
    if (text !== undefined) members.push(`${JSON.stringify(key)}${colon}${text}`);
  }
  if (members.length === 0) return '{}';
  return `{${open}${members.join(sep)}${close}}`;
}
