/**
 * DESIGN.md's rooms: src/engine sits below src/backend, src/sdp and src/app and imports nothing
 * from them; what a run reports (src/engine/run-events.ts) is defined here and handed on by the backend.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { roomCrossings } from '../import-circles.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

it('src/engine imports nothing from src/backend, src/sdp or src/app', () => {
  expect(roomCrossings(REPO, 'src/engine', ['src/backend', 'src/sdp', 'src/app'])).toEqual([]);
});
