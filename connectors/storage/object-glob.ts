/**
 * Glob patterns over object keys, where `/` separates segments as in a path:
 * `*` any run of characters within a segment, `?` one character within a segment, `**` as a
 * segment of its own any number of whole segments (zero included; elsewhere it acts as `*`),
 * `[abc]`, `[a-z]` and `[!abc]` one character of (or not of) a set. Other characters match
 * themselves; an unclosed `[` is a plain `[`.
 */

const GLOB_CHARS = /[*?[]/;

export function hasGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** The part before the first glob character: every match starts with it, so a listing can start there. */
export function literalPrefix(pattern: string): string {
  const first = pattern.search(GLOB_CHARS);
  return first < 0 ? pattern : pattern.slice(0, first);
}

export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      const wholeSegment = (i === 0 || pattern[i - 1] === '/') && (i + 2 === pattern.length || pattern[i + 2] === '/');
      if (!wholeSegment) source += '[^/]*'; // `a**b` is just `a*b`
      else if (pattern[i + 2] === '/') source += '(?:[^/]*/)*';
      else source += '.*';
      i += wholeSegment && pattern[i + 2] === '/' ? 3 : 2;
    } else if (char === '*') {
      source += '[^/]*';
      i += 1;
    } else if (char === '?') {
      source += '[^/]';
      i += 1;
    } else if (char === '[') {
      const set = characterSet(pattern, i);
      if (set === undefined) {
        source += '\\[';
        i += 1;
      } else {
        source += set.source;
        i = set.end;
      }
    } else {
      source += escapeRegExp(char);
      i += 1;
    }
  }
  return new RegExp(`^${source}$`, 's');
}

/** `[...]` starting at `start` → a regex class and the index after `]`; undefined when unclosed. */
function characterSet(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i += 1;
  // A `]` right after the opening bracket belongs to the set.
  const close = pattern.indexOf(']', pattern[i] === ']' ? i + 1 : i);
  if (close < 0) return undefined;
  const body = pattern
    .slice(i, close)
    .split('')
    .map((c) => (c === '-' ? '-' : escapeClassChar(c)))
    .join('');
  // A set never matches the segment separator, as `*` and `?` do not.
  return { source: negated ? `[^/${body}]` : `(?!/)[${body}]`, end: close + 1 };
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char;
}

function escapeClassChar(char: string): string {
  return /[\\\]^[]/.test(char) ? `\\${char}` : char;
}
