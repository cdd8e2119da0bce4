import { describe, expect, it } from 'vitest';
import type { Capability } from '../../evidence/capability.js';
import { proof } from '../../evidence/capability.js';
import { checkEvidence, type EvidenceInputs } from '../../evidence/check-rules.js';
import { renderEvidence } from '../../evidence/render.js';
import { parseRunReport } from '../../evidence/vitest-report.js';

const REPO = '/repo';
const UNIT_FILE = 'test/unit/things/thing.test.ts';
const TRINO_FILE = 'test/trino/thing.test.ts';

const SOURCES: Readonly<Record<string, string>> = {
  [UNIT_FILE]: [
    "describe('a thing', () => {",
    "  it('lands every row once', async () => {});",
    "  it.each(['append', 'update'])('counts words in %s mode', async (mode) => {});",
    '});',
  ].join('\n'),
  [TRINO_FILE]: "it(`trino ${VERSION} reads the rows`, async () => {});",
};

const CAPABILITIES: readonly Capability[] = [
  {
    id: 'thing.lands',
    area: 'Things',
    description: 'Lands things.',
    status: 'Available',
    proofs: [proof('unit', UNIT_FILE, 'a thing lands every row once'), proof('unit', UNIT_FILE, 'a thing counts words in update mode')],
  },
  { id: 'thing.trino', area: 'Things', description: 'Trino reads things.', status: 'Preview', proofs: [proof('trino', TRINO_FILE, 'trino 483 reads the rows')] },
  { id: 'thing.later', area: 'Later', description: 'A promise.', status: 'Planned', proofs: [] },
];

function report(outcomes: Readonly<Record<string, string>>): unknown {
  return {
    testResults: [
      {
        name: `${REPO}/${UNIT_FILE}`,
        assertionResults: Object.entries(outcomes).map(([fullName, status]) => ({ fullName, status })),
      },
    ],
  };
}

const ALL_PASSED = report({ 'a thing lands every row once': 'passed', 'a thing counts words in update mode': 'passed' });

function inputs(overrides: Partial<EvidenceInputs> = {}): EvidenceInputs {
  const capabilities = overrides.capabilities ?? CAPABILITIES;
  return {
    capabilities,
    run: parseRunReport(ALL_PASSED, REPO),
    readSource: (file) => SOURCES[file],
    committedDoc: renderEvidence(capabilities),
    generatedDoc: renderEvidence(capabilities),
    ...overrides,
  };
}

describe('the evidence check', () => {
  it('passes when every listed test exists and every Available capability’s tests passed in the run', () => {
    expect(checkEvidence(inputs())).toEqual([]);
  });

  it('names the capability and the test when a listed test of an Available capability failed', () => {
    const run = parseRunReport(report({ 'a thing lands every row once': 'failed', 'a thing counts words in update mode': 'passed' }), REPO);
    const problems = checkEvidence(inputs({ run }));
    expect(problems).toEqual([
      { code: 'NOT_PROVEN', message: `thing.lands: test ${UNIT_FILE} › a thing lands every row once is evidence for an Available capability, but in this run it failed` },
    ]);
  });

  it('names the capability and the test when a listed test of an Available capability did not run or was skipped', () => {
    const run = parseRunReport(report({ 'a thing lands every row once': 'skipped' }), REPO);
    const messages = checkEvidence(inputs({ run })).map((p) => p.message);
    expect(messages).toEqual([
      `thing.lands: test ${UNIT_FILE} › a thing lands every row once is evidence for an Available capability, but in this run it did not run`,
      `thing.lands: test ${UNIT_FILE} › a thing counts words in update mode is evidence for an Available capability, but in this run it did not run`,
    ]);
  });

  it('does not hold Available capabilities to a run of a subset of the tests', () => {
    expect(checkEvidence(inputs({ run: undefined }))).toEqual([]);
  });

  it('refuses a test name its file does not hold, and a file that does not exist, in lanes that did not run too', () => {
    const capabilities: Capability[] = [
      { ...CAPABILITIES[0]!, proofs: [proof('unit', UNIT_FILE, 'a thing lands every row twice')] },
      { ...CAPABILITIES[1]!, proofs: [proof('trino', 'test/trino/gone.test.ts', 'trino 483 reads the rows')] },
    ];
    const run = parseRunReport(report({ 'a thing lands every row twice': 'passed' }), REPO);
    expect(checkEvidence(inputs({ capabilities, run }))).toEqual([
      { code: 'NO_SUCH_TEST', message: `thing.lands: test ${UNIT_FILE} › a thing lands every row twice: ${UNIT_FILE} has no test of that name` },
      { code: 'NO_SUCH_TEST', message: 'thing.trino: test test/trino/gone.test.ts › trino 483 reads the rows: the file does not exist' },
    ]);
  });

  it('matches it.each and template titles, but a template must say more than its slots', () => {
    const check = (test: string) => checkEvidence(inputs({ capabilities: [{ ...CAPABILITIES[1]!, proofs: [proof('trino', TRINO_FILE, test)] }] }));
    expect(check('trino 484 reads the rows')).toEqual([]);
    expect(check('reads the rows')).toHaveLength(1);
    const slotOnly = (file: string) => (file === TRINO_FILE ? 'it(`${name}`, () => {});' : undefined);
    expect(checkEvidence(inputs({ readSource: slotOnly, capabilities: [{ ...CAPABILITIES[1]!, proofs: [proof('trino', TRINO_FILE, 'anything at all')] }] }))).toHaveLength(1);
  });

  it('refuses a test listed under a lane its file does not belong to', () => {
    const capabilities: Capability[] = [{ ...CAPABILITIES[1]!, proofs: [proof('integration', TRINO_FILE, 'trino 483 reads the rows')] }];
    expect(checkEvidence(inputs({ capabilities }))).toEqual([
      { code: 'WRONG_LANE', message: `thing.trino: test ${TRINO_FILE} › trino 483 reads the rows is listed in lane integration, but its file belongs to trino` },
    ]);
  });

  it('refuses an Available capability that no npm test lane proves, and a Planned one that lists tests', () => {
    const capabilities: Capability[] = [
      { ...CAPABILITIES[1]!, status: 'Available' },
      { ...CAPABILITIES[2]!, proofs: [proof('unit', UNIT_FILE, 'a thing lands every row once')] },
    ];
    expect(checkEvidence(inputs({ capabilities })).filter((p) => p.code === 'REGISTRY').map((p) => p.message)).toEqual([
      'thing.trino: is Available but no test listed for it runs in npm test',
      'thing.later: is Planned but lists tests: a tested capability is not only planned',
    ]);
  });

  it('refuses a docs/EVIDENCE.md that is not what the registry generates, or that is missing', () => {
    const stale = renderEvidence(CAPABILITIES).replace('Lands things.', 'Lands everything.');
    expect(checkEvidence(inputs({ committedDoc: stale })).map((p) => p.code)).toEqual(['STALE_DOC']);
    expect(checkEvidence(inputs({ committedDoc: undefined })).map((p) => p.code)).toEqual(['STALE_DOC']);
  });
});
