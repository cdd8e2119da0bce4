/**
 * What changed between two API reports (API Extractor's etc/thund.api.md), export by export and,
 * for interfaces and classes, member by member: an export that is gone is BREAKING, a new export
 * is additive, and a changed one is labelled as api-declaration-diff.ts explains. Comment lines
 * (warnings, release tags) are not the surface.
 */
import { declarationChanges, type ApiChange, type ChangeSeverity } from './api-declaration-diff.js';
import { reportDeclarations } from './api-report-parse.js';

export type { ApiChange, ChangeSeverity } from './api-declaration-diff.js';

export interface ApiReportChanges {
  readonly added: readonly string[];
  /** Breaking: no longer exported. */
  readonly removed: readonly string[];
  /** The changes of exports in both reports, by export name, each labelled. */
  readonly changed: readonly ApiChange[];
}

export function compareApiReports(before: string, after: string): ApiReportChanges {
  const old = reportDeclarations(before);
  const now = reportDeclarations(after);
  const sorted = (names: Iterable<string>): string[] => [...names].sort();
  return {
    added: sorted([...now.keys()].filter((name) => !old.has(name))),
    removed: sorted([...old.keys()].filter((name) => !now.has(name))),
    changed: sorted(old.keys()).flatMap((name) => (now.has(name) ? declarationChanges(old.get(name)!, now.get(name)!) : [])),
  };
}

const SEVERITY_ORDER: readonly ChangeSeverity[] = ['breaking', 'review', 'compatible'];

/** One line per change, the breaking ones first. */
export function describeChanges(changes: ApiReportChanges): string[] {
  const bySeverity = (severity: ChangeSeverity): string[] => changes.changed.filter((change) => change.severity === severity).map((change) => change.line);
  return [
    ...changes.removed.map((name) => `BREAKING: export ${name} was removed`),
    ...SEVERITY_ORDER.flatMap(bySeverity),
    ...changes.added.map((name) => `added: export ${name}`),
  ];
}

/** The worst change: undefined when the reports differ in comments only. */
export function worstSeverity(changes: ApiReportChanges): ChangeSeverity | undefined {
  if (changes.removed.length > 0) return 'breaking';
  const found = SEVERITY_ORDER.find((severity) => changes.changed.some((change) => change.severity === severity));
  return found ?? (changes.added.length > 0 ? 'compatible' : undefined);
}

/** The summary's first line: whether anything in it breaks code that uses the package. */
export function describeVerdict(changes: ApiReportChanges): string {
  switch (worstSeverity(changes)) {
    case 'breaking':
      return 'BREAKING changes to the public surface:';
    case 'review':
      return 'changes to the public surface that break some users (none breaks every user):';
    case 'compatible':
      return 'compatible changes to the public surface (nothing breaking):';
    case undefined:
      return 'the report differs in comments or release tags only (nothing breaking)';
  }
}
