/**
 * The part of vitest's JSON report (--reporter=json) the evidence check reads: which tests ran,
 * in which file, and how they ended.
 */
import { relative } from 'node:path';
import { z } from 'zod';

const assertionSchema = z.object({
  fullName: z.string(),
  status: z.string(),
});

const reportSchema = z.object({
  testResults: z.array(z.object({ name: z.string(), assertionResults: z.array(assertionSchema) })),
});

export type TestOutcome = 'passed' | 'failed' | 'not run';

export interface RunReport {
  /** How the test with this full name in this file (from the repository root) ended. */
  outcome(file: string, test: string): TestOutcome;
}

export function parseRunReport(json: unknown, repo: string): RunReport {
  const parsed = reportSchema.safeParse(json);
  if (!parsed.success) throw new Error(`the vitest JSON report does not have the expected shape: ${parsed.error.message}`);
  const outcomes = new Map<string, TestOutcome>();
  for (const file of parsed.data.testResults) {
    const path = relative(repo, file.name).split('\\').join('/');
    for (const test of file.assertionResults) {
      outcomes.set(key(path, test.fullName), test.status === 'passed' ? 'passed' : test.status === 'failed' ? 'failed' : 'not run');
    }
  }
  return { outcome: (file, test) => outcomes.get(key(file, test)) ?? 'not run' };
}

function key(file: string, test: string): string {
  return `${file}\u0000${test}`;
}
