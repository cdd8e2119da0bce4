/**
 * Whether a test file can produce a test of a given full name, read from its source without
 * running it (the Trino and Docker image lanes do not run in `npm test`). The test's title is the
 * end of its full name, so the file must pass that end as a first argument (`it('…', …)`): written
 * out, or as a template (`${…}`, or it.each/describe.each's %s, %i, $name …) that gives it.
 */
const TITLE_ARGUMENT = /\(\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)\s*,/g;
const TEMPLATE_SLOT = /\$\{[^}]*\}|%[sdifjo#]|\$[A-Za-z_][\w.]*/g;
const HAS_TEMPLATE_SLOT = new RegExp(TEMPLATE_SLOT.source);
/** A template must say this much itself: `${name}` alone would match every test. */
const MIN_TEMPLATE_TEXT = 10;

export function sourceHasTest(source: string, fullName: string): boolean {
  for (const [, literal = ''] of source.matchAll(TITLE_ARGUMENT)) {
    const text = unescape(literal.slice(1, -1));
    if (text.trim() === '') continue;
    if (fullName === text || fullName.endsWith(` ${text}`)) return true;
    if (HAS_TEMPLATE_SLOT.test(text) && templateMatches(text, fullName)) return true;
  }
  return false;
}

function templateMatches(template: string, fullName: string): boolean {
  const parts = template.split(TEMPLATE_SLOT);
  if (parts.join('').trim().length < MIN_TEMPLATE_TEXT) return false;
  return new RegExp(`(?:^| )${parts.map(escapeRegExp).join('.+')}$`).test(fullName);
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
