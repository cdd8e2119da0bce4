/**
 * The secret values this process holds (tokens, keys, client secrets, passwords), registered the
 * moment they are read or obtained, and one scrub function every output applies: servers echo
 * what they were sent (an `Authorization` header, a form body) into their error messages, so a
 * message that came from a server may hold any of them, in plain, URL-encoded, JSON-escaped or
 * base64 form. A scrubbed value becomes `***`; its length or a prefix of it is never shown.
 */

const MASK = '***';
/** Runtime credentials (OAuth2 tokens, vended keys) replace each other; the newest this many are kept. */
const MAX_SHORT_LIVED = 1000;

const lasting = new Set<string>();
/** Value → its forms, oldest first. */
const shortLived = new Map<string, readonly string[]>();
/** null: to be rebuilt; undefined: nothing registered. */
let pattern: RegExp | undefined | null = null;

export interface AwsKeyValues {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

/** A secret read from configuration or the environment; kept for the life of the process. */
export function registerSecret(value: string | undefined): void {
  if (value === undefined || value === '' || lasting.has(value)) return;
  for (const form of formsOf(value)) lasting.add(form);
  pattern = null;
}

/** A credential obtained at run time that later ones replace (an OAuth2 token, vended keys). */
export function registerShortLivedSecret(value: string | undefined): void {
  if (value === undefined || value === '' || lasting.has(value) || shortLived.has(value)) return;
  shortLived.set(value, formsOf(value));
  for (const oldest of shortLived.keys()) {
    if (shortLived.size <= MAX_SHORT_LIVED) break;
    shortLived.delete(oldest);
  }
  pattern = null;
}

/** Basic auth: the password, and `user:password` in the base64 form an `Authorization: Basic` header carries. */
export function registerBasicAuth(username: string, password: string): void {
  registerSecret(password);
  registerSecret(`${username}:${password}`);
}

export function registerAwsKeys(keys: AwsKeyValues, shortLivedKeys = false): void {
  const register = shortLivedKeys ? registerShortLivedSecret : registerSecret;
  register(keys.accessKeyId);
  register(keys.secretAccessKey);
  register(keys.sessionToken);
}

/** The text with every registered secret, in every form it can travel in, replaced by `***`. */
export function scrubSecrets(text: string): string {
  const compiled = currentPattern();
  return compiled === undefined ? text : text.replace(compiled, MASK);
}

/**
 * Scrubs the messages and stacks of an error and of its `cause` chain in place: causes are the
 * SDK's and fetch's own errors, which whoever walks the chain (a log, a debugger) would print.
 */
export function scrubErrorChain(error: unknown): void {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const message = scrubSecrets(current.message);
    // The stack repeats the message in its first line; it is read (formatted) only when needed.
    if (message === current.message) continue;
    current.message = message;
    if (current.stack !== undefined) current.stack = scrubSecrets(current.stack);
  }
}

/** The forms a value takes on the wire: as is, URL-encoded (path, query, form body), JSON-escaped, base64. */
function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    bytes.toString('base64'),
    // Unpadded too: inside a longer base64 text the padding is not there.
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
  ];
}

function currentPattern(): RegExp | undefined {
  if (pattern !== null) return pattern;
  const forms = [...new Set([...lasting, ...[...shortLived.values()].flat()])].sort((a, b) => b.length - a.length);
  // Longest first, so a value that contains another is replaced whole.
  pattern = forms.length === 0 ? undefined : new RegExp(forms.map(formPattern).join('|'), 'g');
  return pattern;
}

/** Below this length a form is replaced only as a whole word: `t` must not turn "Cannot" into "Canno***". */
const WHOLE_WORD_BELOW = 8;

function formPattern(form: string): string {
  const escaped = escapeRegExp(form);
  return form.length < WHOLE_WORD_BELOW ? `(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])` : escaped;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
