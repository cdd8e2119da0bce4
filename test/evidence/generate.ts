/** Writes docs/EVIDENCE.md from the registry (`npm run evidence:generate`). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { CAPABILITIES } from './capabilities.js';
import { renderEvidence } from './render.js';
import { EVIDENCE_DOC, REPO } from './repo.js';

mkdirSync(dirname(EVIDENCE_DOC), { recursive: true });
writeFileSync(EVIDENCE_DOC, renderEvidence(CAPABILITIES));
console.log(`wrote ${relative(REPO, EVIDENCE_DOC)}: ${CAPABILITIES.length} capabilities`);
