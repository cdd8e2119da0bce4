/**
 * The rules the evidence map must keep, as a pure function over the registry, one vitest run and
 * the files it names, so the unit tests can feed it fakes. Each problem names the capability and,
 * where one is at fault, the test.
 */
import type { Capability, Proof } from './capability.js';
import { laneOfFile, runByNpmTest } from './lanes.js';
import { sourceHasTest } from './test-titles.js';
import type { RunReport } from './vitest-report.js';

export interface EvidenceInputs {
  readonly capabilities: readonly Capability[];
  /** The run to hold Available capabilities to; undefined when only a subset of the tests ran. */
  readonly run: RunReport | undefined;
  /** A file's text (path from the repository root), or undefined when it does not exist. */
  readonly readSource: (file: string) => string | undefined;
  readonly committedDoc: string | undefined;
  readonly generatedDoc: string;
}

export type ProblemCode = 'REGISTRY' | 'WRONG_LANE' | 'NO_SUCH_TEST' | 'NOT_PROVEN' | 'STALE_DOC';

export interface Problem {
  readonly code: ProblemCode;
  readonly message: string;
}

export function checkEvidence(inputs: EvidenceInputs): Problem[] {
  const problems = registryProblems(inputs.capabilities);
  for (const capability of inputs.capabilities) {
    for (const proof of capability.proofs) problems.push(...proofProblems(capability, proof, inputs));
  }
  if (inputs.committedDoc !== inputs.generatedDoc) {
    problems.push({ code: 'STALE_DOC', message: 'docs/EVIDENCE.md is not what the registry generates: run npm run evidence:generate' });
  }
  return problems;
}

function registryProblems(capabilities: readonly Capability[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const capability of capabilities) {
    const problem = (message: string): void => void problems.push({ code: 'REGISTRY', message: `${capability.id}: ${message}` });
    if (seen.has(capability.id)) problem('the id is used twice');
    seen.add(capability.id);
    if (capability.status === 'Planned' && capability.proofs.length > 0) problem('is Planned but lists tests: a tested capability is not only planned');
    if (capability.status !== 'Planned' && capability.proofs.length === 0) problem(`is ${capability.status} but lists no test`);
    if (capability.status === 'Available' && !capability.proofs.some((p) => runByNpmTest(p.lane))) {
      problem('is Available but no test listed for it runs in npm test');
    }
  }
  return problems;
}

function proofProblems(capability: Capability, proof: Proof, inputs: EvidenceInputs): Problem[] {
  const named = `${capability.id}: test ${proof.file} › ${proof.test}`;
  const problems: Problem[] = [];
  const lane = laneOfFile(proof.file);
  if (lane !== proof.lane) problems.push({ code: 'WRONG_LANE', message: `${named} is listed in lane ${proof.lane}, but its file belongs to ${lane ?? 'no lane'}` });
  const source = inputs.readSource(proof.file);
  const titleSource = proof.titleIn === undefined ? source : inputs.readSource(proof.titleIn);
  if (source === undefined) {
    problems.push({ code: 'NO_SUCH_TEST', message: `${named}: the file does not exist` });
  } else if (titleSource === undefined || !sourceHasTest(titleSource, proof.test)) {
    problems.push({ code: 'NO_SUCH_TEST', message: `${named}: ${proof.titleIn ?? proof.file} has no test of that name` });
  }
  if (inputs.run !== undefined && capability.status === 'Available' && runByNpmTest(proof.lane)) {
    const outcome = inputs.run.outcome(proof.file, proof.test);
    if (outcome !== 'passed') problems.push({ code: 'NOT_PROVEN', message: `${named} is evidence for an Available capability, but in this run it ${outcome === 'failed' ? 'failed' : 'did not run'}` });
  }
  return problems;
}
