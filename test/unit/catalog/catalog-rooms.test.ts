/**
 * DESIGN.md's rooms: catalog/ imports src/iceberg types and src/errors, never connectors/,
 * src/engine or src/app. Storage clients for vended credentials come from the FileIOFactory the
 * app hands in (type-only imports count: they tie the rooms as much).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { roomCrossings } from '../import-circles.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FORBIDDEN = ['connectors', 'src/engine', 'src/app'];

it('catalog/ imports nothing from connectors/, src/engine or src/app', () => {
  expect(roomCrossings(REPO, 'catalog', FORBIDDEN)).toEqual([]);
});
