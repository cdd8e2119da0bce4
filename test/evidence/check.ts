/**
 * The evidence check `npm test` runs after vitest (test/run-all.sh):
 *   tsx test/evidence/check.ts <vitest JSON report> [--subset]
 * --subset: vitest ran only some tests, so Available capabilities are not held to this run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPABILITIES } from './capabilities.js';
import { checkEvidence } from './check-rules.js';
import { renderEvidence } from './render.js';
import { EVIDENCE_DOC, REPO } from './repo.js';
import { parseRunReport } from './vitest-report.js';

const [reportPath, ...flags] = process.argv.slice(2);
if (reportPath === undefined || flags.some((flag) => flag !== '--subset')) {
  console.error('usage: tsx test/evidence/check.ts <vitest JSON report> [--subset]');
  process.exit(2);
}
const subset = flags.includes('--subset');
if (subset) console.log('evidence: a subset of the tests ran, so Available capabilities are not checked against this run');

const problems = checkEvidence({
  capabilities: CAPABILITIES,
  run: subset ? undefined : parseRunReport(JSON.parse(readFileSync(reportPath, 'utf8')), REPO),
  readSource: (file) => readIfExists(join(REPO, file)),
  committedDoc: readIfExists(EVIDENCE_DOC),
  generatedDoc: renderEvidence(CAPABILITIES),
});
for (const problem of problems) console.error(`evidence ${problem.code}: ${problem.message}`);
const tests = CAPABILITIES.reduce((sum, c) => sum + c.proofs.length, 0);
console.log(`evidence: ${CAPABILITIES.length} capabilities, ${tests} tests listed, ${problems.length} problem(s)`);
process.exitCode = problems.length === 0 ? 0 : 1;

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
