/**
 * Reads API Extractor's report (etc/thund.api.md): its ```ts block holds one declaration per
 * blank-line-separated block; comment lines (warnings, release tags) are not the surface. A lone
 * interface or class is read further into its header (`export interface X extends Y {`) and its
 * members, one per top-level line of the body (a nested object type or a wrapped signature stays
 * with the member it starts in).
 */
export interface ReportMember {
  readonly name: string;
  /** The member's text, its overloads (or get and set accessors) joined by newlines. */
  readonly text: string;
  /** `name?: T` or `name?(): T`. */
  readonly optional: boolean;
  /** A method signature (`name(…): T`), not a property or an accessor. */
  readonly method: boolean;
  readonly abstract: boolean;
}

export interface DeclarationBody {
  /** The first line without its `{`: kind, name, type parameters, extends and implements. */
  readonly header: string;
  readonly members: ReadonlyMap<string, ReportMember>;
}

export interface ReportDeclaration {
  readonly name: string;
  /** class, interface, type, function, const, let, enum or namespace. */
  readonly kind: string;
  /** The declaration's text without comment lines; the overloads or merged declarations of a name joined. */
  readonly text: string;
  /** Only for a name declared once, as an interface or a class. */
  readonly body?: DeclarationBody;
}

const DECLARATION = /^export (?:declare )?(?:abstract )?(class|interface|type|function|const|let|enum|namespace) ([A-Za-z_$][\w$]*)/;

/** The report's declarations by exported name. */
export function reportDeclarations(report: string): Map<string, ReportDeclaration> {
  const body = report.slice(report.indexOf('```ts') + 5, report.lastIndexOf('```'));
  const blocks = new Map<string, { kind: string; lines: string[][] }>();
  for (const block of body.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));
    const match = lines.length === 0 ? null : DECLARATION.exec(lines[0]!);
    if (match === null) continue;
    const [, kind, name] = match as unknown as [string, string, string];
    const seen = blocks.get(name);
    if (seen === undefined) blocks.set(name, { kind, lines: [lines] });
    else seen.lines.push(lines);
  }
  const declarations = new Map<string, ReportDeclaration>();
  for (const [name, { kind, lines }] of blocks) {
    const alone = lines.length === 1 && (kind === 'interface' || kind === 'class' || kind === 'const');
    const body = alone ? declarationBody(lines[0]!) : undefined;
    const text = lines.map((block) => block.join('\n')).join('\n');
    declarations.set(name, body === undefined ? { name, kind, text } : { name, kind, text, body });
  }
  return declarations;
}

function declarationBody(lines: readonly string[]): DeclarationBody | undefined {
  const first = lines[0]!.trimEnd();
  if (first.endsWith('{}')) return { header: first.slice(0, -2).trim(), members: new Map() };
  // A const's object type ends its statement: `};`.
  if (!first.endsWith('{') || !['}', '};'].includes(lines.at(-1)!.trim())) return undefined;
  const members = new Map<string, ReportMember>();
  for (const text of splitMembers(lines.slice(1, -1))) {
    const member = readMember(text);
    const seen = members.get(member.name);
    members.set(member.name, seen === undefined ? member : { ...seen, text: `${seen.text}\n${member.text}`, method: seen.method || member.method });
  }
  return { header: first.slice(0, -1).trim(), members };
}

/** Groups body lines into members: a member goes on until its brackets close. */
function splitMembers(lines: readonly string[]): string[] {
  const members: string[][] = [];
  let depth = 0;
  for (const line of lines) {
    if (depth <= 0 || members.length === 0) members.push([]);
    members.at(-1)!.push(line.trim());
    depth += bracketBalance(line);
  }
  return members.map((member) => member.join('\n'));
}

/** Opened minus closed brackets on a line, outside string literals. */
function bracketBalance(line: string): number {
  let balance = 0;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote !== undefined) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if ('({['.includes(char)) balance++;
    else if (')}]'.includes(char)) balance--;
  }
  return balance;
}

const MODIFIERS = /^(?:(?:public|protected|private|static|readonly|abstract|override|declare|accessor)\s+)*/;
const ACCESSOR = /^(?:get|set)\s+(?=[\w$'"[])/;
/** A member's name; a call signature (`(…): T`) or a construct signature (`new (…): T`) has none of its own. */
const MEMBER_NAME = /^(?:(new)\s*(?=[(<])|(?=[(<])|[A-Za-z_$][\w$]*|'[^']*'|"[^"]*"|\[[^\]]*\])/;

function readMember(text: string): ReportMember {
  const modifiers = MODIFIERS.exec(text)![0];
  let rest = text.slice(modifiers.length);
  const accessor = ACCESSOR.exec(rest);
  if (accessor !== null) rest = rest.slice(accessor[0].length);
  const found = MEMBER_NAME.exec(rest) ?? [rest];
  const name = found[1] !== undefined ? 'new()' : found[0] === '' ? '()' : found[0];
  const after = rest.slice(found[0].length);
  const optional = after.startsWith('?');
  const next = after.slice(optional ? 1 : 0).trimStart();
  return {
    name,
    text,
    optional,
    method: accessor === null && (next.startsWith('(') || next.startsWith('<')),
    abstract: /\babstract\b/.test(modifiers),
  };
}
