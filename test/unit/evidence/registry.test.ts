import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CAPABILITIES } from '../../evidence/capabilities.js';
import { checkEvidence } from '../../evidence/check-rules.js';
import { renderEvidence } from '../../evidence/render.js';
import { EVIDENCE_DOC, REPO } from '../../evidence/repo.js';

it('the registry names only tests that exist, in their lanes, and docs/EVIDENCE.md is what it generates', () => {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  const problems = checkEvidence({
    capabilities: CAPABILITIES,
    run: undefined,
    readSource: (file) => read(join(REPO, file)),
    committedDoc: read(EVIDENCE_DOC),
    generatedDoc: renderEvidence(CAPABILITIES),
  });
  expect(problems).toEqual([]);
});
