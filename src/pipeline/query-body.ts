/**
 * A flow's query as it can be embedded in another statement (`FROM (…)`, `CREATE VIEW … AS …`):
 * the text without what DuckDB ignores at its end — whitespace, comments and semicolons. A
 * trailing `-- comment` would otherwise swallow the closing parenthesis of the wrapper.
 *
 * Validation (infer-dependencies.ts) has DuckDB's parser check the text is exactly one query, so
 * every semicolon outside strings and comments is a trailing one; this only has to know where
 * strings, quoted names and comments start and end.
 */

/** Everything up to the end of the last token that is neither whitespace, a comment nor `;`. */
export function queryBody(sql: string): string {
  let end = 0;
  let at = 0;
  while (at < sql.length) {
    const skipped = ignoredEnd(sql, at);
    if (skipped !== at) {
      at = skipped;
      continue;
    }
    at = tokenEnd(sql, at);
    end = at;
  }
  return sql.slice(0, end);
}

/** Past whitespace, a `;` or a comment starting at `at`; `at` itself when code starts there. */
function ignoredEnd(sql: string, at: number): number {
  const char = sql[at] as string;
  if (char === ';' || /\s/.test(char)) return at + 1;
  if (sql.startsWith('--', at)) {
    const newline = sql.indexOf('\n', at);
    return newline === -1 ? sql.length : newline + 1;
  }
  if (sql.startsWith('/*', at)) return blockCommentEnd(sql, at);
  return at;
}

/** Block comments nest, as in PostgreSQL's grammar that DuckDB's parser derives from. */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    if (sql.startsWith('/*', at)) {
      depth += 1;
      at += 2;
    } else if (sql.startsWith('*/', at)) {
      depth -= 1;
      at += 2;
      if (depth === 0) return at;
    } else {
      at += 1;
    }
  }
  return sql.length;
}

const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
const IDENTIFIER_CHAR = /[A-Za-z0-9_]/;

/** Past one code token starting at `at`: a string, a quoted name, a dollar-quoted string, or one character. */
function tokenEnd(sql: string, at: number): number {
  const char = sql[at];
  if (char === "'") {
    const escapeString = /[eE]/.test(sql[at - 1] ?? '') && !IDENTIFIER_CHAR.test(sql[at - 2] ?? '');
    return quotedEnd(sql, at, "'", escapeString);
  }
  if (char === '"') return quotedEnd(sql, at, '"', false);
  if (char === '$') {
    DOLLAR_TAG.lastIndex = at;
    const tag = DOLLAR_TAG.exec(sql)?.[0];
    if (tag !== undefined) {
      const close = sql.indexOf(tag, at + tag.length);
      return close === -1 ? sql.length : close + tag.length;
    }
  }
  return at + 1;
}

/** A quote doubled inside stands for itself; in E'…' strings a backslash escapes the next character. */
function quotedEnd(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let at = start + 1;
  while (at < sql.length) {
    const char = sql[at];
    if (backslashEscapes && char === '\\') at += 2;
    else if (char === quote && sql[at + 1] === quote) at += 2;
    else if (char === quote) return at + 1;
    else at += 1;
  }
  return sql.length;
}
