/**
 * The lowering report: every element of the pipeline graph (dataset, flow, expectation) with what
 * became of it — MAPPED to an SDP construct, RUN BY NATIVE (left to the native engine, and why),
 * or REFUSED (neither side can run it as written, and why). Nothing is left out.
 */
import { formatOrigin, type Origin } from '../pipeline/ir/origin.js';

export type LoweringStatus = 'MAPPED' | 'RUN BY NATIVE' | 'REFUSED';

export const LOWERING_STATUSES: readonly LoweringStatus[] = ['MAPPED', 'RUN BY NATIVE', 'REFUSED'];

export type ElementType = 'dataset' | 'flow' | 'expectation';

export interface LoweringEntry {
  readonly element: ElementType;
  /** Dataset or flow name; `dataset.expectation` for an expectation. */
  readonly name: string;
  /** Dataset kind, flow kind, or the expectation's action. */
  readonly kind: string;
  readonly status: LoweringStatus;
  /** MAPPED: the SDP construct it became. */
  readonly construct?: string;
  /** RUN BY NATIVE / REFUSED: why. */
  readonly reason?: string;
  /** What a reader should know about a mapping (semantics that differ in detail, requirements). */
  readonly notes: readonly string[];
  /** The generated file that holds it, relative to the project folder. */
  readonly file?: string;
  readonly origin: Origin;
}

export interface LoweringReport {
  readonly pipeline: string;
  readonly sparkVersion: string;
  /** The Spark catalog the tables land in, e.g. "default (Iceberg JDBC on SQLite)". */
  readonly catalog: string;
  readonly entries: readonly LoweringEntry[];
  /** Project-wide facts (jars the run needs, secrets passed at run time, …). */
  readonly notes: readonly string[];
}

export function countByStatus(report: LoweringReport): Record<LoweringStatus, number> {
  const counts: Record<LoweringStatus, number> = { MAPPED: 0, 'RUN BY NATIVE': 0, REFUSED: 0 };
  for (const entry of report.entries) counts[entry.status] += 1;
  return counts;
}

export function formatReportText(report: LoweringReport): string {
  const lines = [`lowering of pipeline ${report.pipeline} to Spark Declarative Pipelines (Spark ${report.sparkVersion}), catalog ${report.catalog}`];
  const width = Math.max(...LOWERING_STATUSES.map((status) => status.length));
  for (const entry of report.entries) {
    const what = `${entry.element} ${entry.kind} ${entry.name}`;
    const detail =
      entry.status === 'MAPPED'
        ? `→ ${entry.construct ?? ''}${entry.file === undefined ? '' : ` (${entry.file})`}`
        : `— ${entry.reason ?? ''}`;
    lines.push(`${entry.status.padEnd(width)}  ${what} ${detail}  [${formatOrigin(entry.origin)}]`);
    for (const note of entry.notes) lines.push(`${' '.repeat(width)}    note: ${note}`);
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  const counts = countByStatus(report);
  lines.push(`summary: ${counts.MAPPED} mapped, ${counts['RUN BY NATIVE']} run by native, ${counts.REFUSED} refused`);
  return lines.join('\n');
}

/** The report as JSON text (stable key order: the interfaces' order). */
export function formatReportJson(report: LoweringReport): string {
  return `${JSON.stringify({ ...report, summary: countByStatus(report) }, null, 2)}\n`;
}
