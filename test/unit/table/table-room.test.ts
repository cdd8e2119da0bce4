/**
 * src/table sits below the engine: it imports nothing from src/engine; and no two files under
 * src/engine import each other.
 */
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { relativeImports, sourceFiles, twoFileImportCircles } from '../import-circles.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');

it('src/table imports nothing from src/engine', () => {
  const engine = `${resolve(SRC, 'engine')}${sep}`;
  const upward = sourceFiles(resolve(SRC, 'table')).flatMap((file) =>
    relativeImports(file)
      .filter((target) => target.startsWith(engine))
      .map((target) => `${file.slice(SRC.length + 1)} -> ${target.slice(SRC.length + 1)}`),
  );
  expect(upward).toEqual([]);
});

it('src/engine has no two-file import circle', () => {
  expect(twoFileImportCircles(resolve(SRC, 'engine'))).toEqual([]);
});
