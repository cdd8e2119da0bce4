/**
 * How one export's declaration changed between two API reports, labelled for the code that uses
 * the package:
 * - interface and class members, one by one: a member removed or reading differently is BREAKING
 *   (an optional one that became required says so); a new optional member is additive; a new
 *   required property of an interface is BREAKING (code that builds the object no longer
 *   compiles); a new method of an interface breaks only code that implements the interface, so it
 *   is listed for review; a new class member is additive unless abstract (subclasses must add it);
 * - a const of an object type (PROBLEM_CODES), member by member as an interface, except that a
 *   new member is additive: users read a const, they never build or implement it;
 * - a changed header (extends, implements, type parameters) is BREAKING;
 * - a type alias that is a union of string literals: a literal lost is BREAKING; a literal gained
 *   is listed for review, as it breaks only an exhaustive switch over the union (its `never` check);
 * - any other change of a type alias, function, const or enum is BREAKING.
 */
import type { DeclarationBody, ReportDeclaration, ReportMember } from './api-report-parse.js';

/** `review`: breaks some users (who implement an interface, who switch exhaustively), not all. */
export type ChangeSeverity = 'breaking' | 'review' | 'compatible';

export interface ApiChange {
  readonly export: string;
  readonly severity: ChangeSeverity;
  /** What the summary prints, labelled `BREAKING:`, `changed:` or `added:`. */
  readonly line: string;
}

export function declarationChanges(before: ReportDeclaration, after: ReportDeclaration): ApiChange[] {
  if (before.text === after.text) return [];
  const name = after.name;
  const changes =
    before.kind === after.kind && before.body !== undefined && after.body !== undefined
      ? bodyChanges(name, after.kind, before.body, after.body)
      : literalUnionChanges(name, before, after) ?? [{ export: name, severity: 'breaking', line: `BREAKING: export ${name} changed` }];
  if (changes.length > 0) return changes;
  return [{ export: name, severity: 'compatible', line: `changed: export ${name} reads differently, with the same members (not breaking)` }];
}

function bodyChanges(name: string, kind: string, before: DeclarationBody, after: DeclarationBody): ApiChange[] {
  const changes: ApiChange[] = [];
  const note = (severity: ChangeSeverity, line: string): void => void changes.push({ export: name, severity, line });
  if (before.header !== after.header) note('breaking', `BREAKING: export ${name} changed: \`${before.header}\` became \`${after.header}\``);
  for (const [member, old] of before.members) {
    const now = after.members.get(member);
    if (now === undefined) note('breaking', `BREAKING: ${name}.${member} was removed`);
    else if (now.text !== old.text) note('breaking', `BREAKING: ${name}.${member} ${becameRequired(old, now) ? 'became required' : 'changed'}`);
  }
  for (const [member, now] of after.members) {
    if (before.members.has(member)) continue;
    const [severity, line] = addedMember(kind, name, now);
    note(severity, line);
  }
  return changes;
}

function becameRequired(old: ReportMember, now: ReportMember): boolean {
  return old.optional && !now.optional && old.text.replace(`${old.name}?`, old.name) === now.text;
}

function addedMember(kind: string, name: string, member: ReportMember): [ChangeSeverity, string] {
  const path = `${name}.${member.name}`;
  if (member.optional) return ['compatible', `added: ${path} (optional)`];
  // A const is read, never built or implemented by users: a new member is purely additive.
  if (kind === 'const') return ['compatible', `added: ${path}`];
  if (kind === 'class') {
    return member.abstract ? ['breaking', `BREAKING: ${path} was added, abstract (subclasses must implement it)`] : ['compatible', `added: ${path}`];
  }
  if (member.method) return ['review', `added: ${path} (breaking for code that implements this interface)`];
  return ['breaking', `BREAKING: ${path} was added, required (code that builds a ${name} no longer compiles)`];
}

/** Undefined unless both declarations are type aliases to unions of string literals only. */
function literalUnionChanges(name: string, before: ReportDeclaration, after: ReportDeclaration): ApiChange[] | undefined {
  const old = stringLiterals(before);
  const now = stringLiterals(after);
  if (old === undefined || now === undefined) return undefined;
  return [
    ...old.filter((literal) => !now.includes(literal)).map((literal): ApiChange => ({ export: name, severity: 'breaking', line: `BREAKING: ${name} loses ${literal}` })),
    ...now
      .filter((literal) => !old.includes(literal))
      .map((literal): ApiChange => ({ export: name, severity: 'review', line: `changed: ${name} gains ${literal} (breaking for exhaustive switches)` })),
  ];
}

const STRING_LITERAL = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g;

function stringLiterals(declaration: ReportDeclaration): string[] | undefined {
  if (declaration.kind !== 'type') return undefined;
  const union = new RegExp(`^export (?:declare )?type ${declaration.name} = ([^]*);$`).exec(declaration.text)?.[1];
  if (union === undefined || union.replace(STRING_LITERAL, '').replace(/[|\s]/g, '') !== '') return undefined;
  return union.match(STRING_LITERAL) ?? undefined;
}
