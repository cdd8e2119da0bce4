/**
 * Fails when the package's public surface (dist/src/index.d.ts, built by `npm run build`) differs
 * from the checked-in API report etc/thund.api.md: says whether the change breaks code that uses
 * the package, lists each change (members of interfaces and classes one by one) labelled BREAKING,
 * changed or added, and prints the report's diff. It fails on any difference, breaking or not:
 * `npm run api:report` records a deliberate change.
 *
 *   npx tsx scripts/api-check.ts   (npm run api:check; test/run-all.sh runs it after the build)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { compareApiReports, describeChanges, describeVerdict } from './api-report-diff.js';

const root = resolve(import.meta.dirname, '..');
const config = ExtractorConfig.loadFileAndPrepare(resolve(root, 'api-extractor.json'));
if (!existsSync(config.mainEntryPointFilePath)) {
  console.error(`api:check: ${config.mainEntryPointFilePath} is missing; run npm run build first`);
  process.exit(1);
}
// API Extractor's own notes on a changed report are replaced by the summary below.
const OWN_NOTES: readonly string[] = ['console-api-report-not-copied', 'console-api-report-diff', 'console-api-report-copied'];
const result = Extractor.invoke(config, {
  localBuild: false,
  messageCallback: (message) => {
    if (OWN_NOTES.includes(message.messageId)) message.handled = true;
  },
});
const checkedIn = config.reportConfigs[0]!;
const reportPath = resolve(config.reportFolder, checkedIn.fileName);
const builtPath = resolve(config.reportTempFolder, checkedIn.fileName);
if (!result.apiReportChanged && result.succeeded) {
  console.log('api:check: the public surface matches etc/thund.api.md');
  process.exit(0);
}
if (!result.apiReportChanged) {
  console.error('api:check: API Extractor failed (its messages are above); the report was not compared');
  process.exit(1);
}
const before = existsSync(reportPath) ? readFileSync(reportPath, 'utf8') : '';
const after = readFileSync(builtPath, 'utf8');
const changes = compareApiReports(before, after);
console.error(`api:check: etc/thund.api.md is out of date: ${describeVerdict(changes)}`);
for (const line of describeChanges(changes)) console.error(`  ${line}`);
const diff = spawnSync('diff', ['-u', reportPath, builtPath], { encoding: 'utf8' });
console.error(diff.stdout);
console.error('If the change is meant, record it with `npm run api:report` and commit etc/thund.api.md.');
process.exit(1);
