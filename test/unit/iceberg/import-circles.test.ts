/** No two files under src/iceberg import each other. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { twoFileImportCircles } from '../import-circles.js';

it('has no two-file import circle', () => {
  expect(twoFileImportCircles(resolve(dirname(fileURLToPath(import.meta.url)), '../../../src/iceberg'))).toEqual([]);
});
