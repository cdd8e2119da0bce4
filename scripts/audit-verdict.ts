/**
 * Reads `npm audit --json`'s answer: the high and critical vulnerabilities of the production
 * dependencies, or that the registry would not audit (it answered the audit request with an
 * error, as a registry mirror without the audit endpoint does).
 */
import { z } from 'zod';

const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const;
const BLOCKING: ReadonlySet<string> = new Set(['high', 'critical']);

const auditReport = z.object({
  vulnerabilities: z.record(z.string(), z.object({ severity: z.enum(SEVERITIES), range: z.string().optional(), via: z.array(z.unknown()).default([]) })),
});
const refusal = z.object({ message: z.string(), statusCode: z.number().optional() });
/** npm ≥ 7 wraps a failed request as `{ error: { code, summary } }`, older ones as the request's fields. */
const wrappedRefusal = z.object({ error: z.object({ code: z.string().nullish(), summary: z.string() }) });

export type AuditVerdict =
  | { kind: 'audited'; blocking: readonly { name: string; severity: string; range: string | undefined; advisories: readonly string[] }[]; total: number }
  | { kind: 'refused'; reason: string };

export function auditVerdict(json: string): AuditVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { kind: 'refused', reason: `npm audit printed no JSON: ${json.trim().slice(0, 200) || '(nothing)'}` };
  }
  const report = auditReport.safeParse(parsed);
  if (report.success) {
    const entries = Object.entries(report.data.vulnerabilities);
    const blocking = entries
      .filter(([, v]) => BLOCKING.has(v.severity))
      .map(([name, v]) => ({ name, severity: v.severity, range: v.range, advisories: v.via.flatMap((via) => (isAdvisory(via) ? [via.title] : [])) }));
    return { kind: 'audited', blocking, total: entries.length };
  }
  const failed = refusal.safeParse(parsed);
  // The message names the request's address; the status says enough.
  if (failed.success) return { kind: 'refused', reason: failed.data.statusCode !== undefined ? `the audit request was answered ${failed.data.statusCode}` : failed.data.message };
  const wrapped = wrappedRefusal.safeParse(parsed);
  if (wrapped.success) return { kind: 'refused', reason: wrapped.data.error.summary };
  return { kind: 'refused', reason: 'npm audit answered in a shape this check does not know' };
}

function isAdvisory(via: unknown): via is { title: string } {
  return typeof via === 'object' && via !== null && typeof (via as { title?: unknown }).title === 'string';
}
