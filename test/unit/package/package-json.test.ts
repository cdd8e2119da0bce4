/**
 * package.json against what the repository runs: allowScripts decides, for every installed package
 * that has an install script, whether it runs (a dependency that gains one must be decided on, not
 * run by default); engines names the Node lines the tests run on.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');
const read = (file: string): unknown => JSON.parse(readFileSync(resolve(REPO, file), 'utf8'));

it('names in allowScripts every locked package with an install script, and nothing else', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  const { allowScripts } = read('package.json') as { allowScripts: Record<string, boolean> };
  expect(withScripts.length).toBeGreaterThan(0);
  expect(Object.keys(allowScripts).sort()).toEqual([...new Set(withScripts)].sort());
});

it('declares in engines the Node lines the tests run on: Node 20 (the machines’ own) and each lane release', () => {
  const { engines } = read('package.json') as { engines: { node: string } };
  const declared = [...engines.node.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1]));
  const lanes = readFileSync(resolve(REPO, 'test/stack/node-versions'), 'utf8')
    .split('\n')
    .filter((line) => /^\d/.test(line))
    .map((line) => Number(line.split('.')[0]));
  expect(lanes.length).toBeGreaterThanOrEqual(2);
  expect(declared.sort((a, b) => a - b)).toEqual([20, ...lanes].sort((a, b) => a - b));
});
