/** Where in SQL text code is: string literals, quoted identifiers and comments are not. */
const NOT_CODE = /'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`|--[^\n]*|\/\*[\s\S]*?\*\//g;

/** A predicate: is the character at this index code (outside literals and comments)? */
export function codeIndex(sql: string): (index: number) => boolean {
  const skipped: [number, number][] = [];
  for (const match of sql.matchAll(NOT_CODE)) skipped.push([match.index, match.index + match[0].length]);
  return (index) => !skipped.some(([start, end]) => index >= start && index < end);
}

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
