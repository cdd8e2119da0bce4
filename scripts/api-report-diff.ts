/**
 * What changed between two API reports (API Extractor's etc/thund.api.md), export by export: an
 * export that is gone or whose declaration reads differently is BREAKING for code that uses the
 * package; a new export is additive. Comment lines (warnings, release tags) are not the surface.
 */
export interface ApiReportChanges {
  readonly added: readonly string[];
  /** Breaking: no longer exported. */
  readonly removed: readonly string[];
  /** Breaking: the declaration differs (a member added to an interface counts: review it). */
  readonly changed: readonly string[];
}

const DECLARATION = /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum|namespace) ([A-Za-z_$][\w$]*)/;

/** The report's declarations by exported name (overloads of one function together). */
export function reportDeclarations(report: string): Map<string, string> {
  const body = report.slice(report.indexOf('```ts') + 5, report.lastIndexOf('```'));
  const declarations = new Map<string, string>();
  for (const block of body.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));
    const name = lines.length === 0 ? undefined : DECLARATION.exec(lines[0]!)?.[1];
    if (name === undefined) continue;
    declarations.set(name, [declarations.get(name), lines.join('\n')].filter((part) => part !== undefined).join('\n'));
  }
  return declarations;
}

export function compareApiReports(before: string, after: string): ApiReportChanges {
  const old = reportDeclarations(before);
  const now = reportDeclarations(after);
  const sorted = (names: Iterable<string>): string[] => [...names].sort();
  return {
    added: sorted([...now.keys()].filter((name) => !old.has(name))),
    removed: sorted([...old.keys()].filter((name) => !now.has(name))),
    changed: sorted([...old.keys()].filter((name) => now.has(name) && now.get(name) !== old.get(name))),
  };
}

export function describeChanges(changes: ApiReportChanges): string[] {
  return [
    ...changes.removed.map((name) => `BREAKING: export ${name} was removed`),
    ...changes.changed.map((name) => `BREAKING: export ${name} changed (breaking unless purely additive: review the diff)`),
    ...changes.added.map((name) => `added: export ${name}`),
  ];
}
