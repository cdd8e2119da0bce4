/** Where the evidence map's files are. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EVIDENCE_DOC = join(REPO, 'docs/EVIDENCE.md');
