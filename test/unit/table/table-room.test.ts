/**
 * src/table sits below the engine: it imports nothing from src/engine; and no two files under
 * src/engine import each other.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { roomCrossings, twoFileImportCircles } from '../import-circles.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

it('src/table imports nothing from src/engine', () => {
  expect(roomCrossings(REPO, 'src/table', ['src/engine'])).toEqual([]);
});

it('src/engine has no two-file import circle', () => {
  expect(twoFileImportCircles(resolve(REPO, 'src/engine'))).toEqual([]);
});
