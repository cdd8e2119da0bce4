/**
 * `npm audit --omit=dev`: fails on a high or critical vulnerability in a production dependency,
 * naming each package, its severity, the affected range and the advisories. A registry that will
 * not audit (the npm registry mirror of some networks answers the audit request 405) is said on
 * one line and does not fail the run: there is nothing to judge.
 *
 *   npx tsx scripts/audit-check.ts   (test/run-all.sh runs it after the API check)
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { auditVerdict } from './audit-verdict.js';

const root = resolve(import.meta.dirname, '..');
const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
const verdict = auditVerdict(run.stdout ?? '');
if (verdict.kind === 'refused') {
  console.log(`audit: not audited, the registry refused: ${verdict.reason}`);
  process.exit(0);
}
if (verdict.blocking.length === 0) {
  console.log(`audit: no high or critical vulnerability in the production dependencies (${verdict.total} lower)`);
  process.exit(0);
}
for (const v of verdict.blocking) {
  console.error(`audit: ${v.severity} ${v.name} ${v.range ?? ''}${v.advisories.length > 0 ? `: ${v.advisories.join('; ')}` : ''}`);
}
console.error(`audit: ${verdict.blocking.length} high or critical vulnerabilit${verdict.blocking.length === 1 ? 'y' : 'ies'} in the production dependencies`);
process.exit(1);
