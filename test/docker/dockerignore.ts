/**
 * .dockerignore rules as the builder applies them: patterns in order, the last match wins, `!`
 * re-includes, `*` and `?` stay inside one path segment, `**` spans segments, and a pattern that
 * matches a folder covers everything below it.
 */

interface Rule {
  readonly negate: boolean;
  readonly regex: RegExp;
}

function globToRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === '*' && pattern.charAt(i + 1) === '*') {
      const slashAfter = pattern.charAt(i + 2) === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

export function parseDockerignore(text: string): Rule[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const pattern = (negate ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { negate, regex: globToRegex(pattern) };
    });
}

/** Whether a context-relative path (forward slashes) is left out of the build context. */
export function isIgnored(rules: readonly Rule[], path: string): boolean {
  const segments = path.split('/');
  // The path itself and each of its parent folders: a match on a parent covers the path.
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.regex.test(candidate))) ignored = !rule.negate;
  }
  return ignored;
}
