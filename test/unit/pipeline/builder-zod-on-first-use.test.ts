/**
 * `import 'thund'` loads no zod (e067a65): the builder's input checks require it the first time
 * an input is checked, not when the package is imported. Run in a fresh Node process (tsx for
 * the sources) whose resolve hook records every module imported.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { IMPORT_RECORDING_HOOKS } from '../../support/import-recording-hooks.js';

const REPO = resolve(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'thund-builder-zod-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Prints the zod files loaded after `import`, then after the first builder call. */
const MAIN = `import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});
const require = createRequire(import.meta.url);
const imports = () => readFileSync(process.env.THUND_TEST_LOADED, 'utf8').split('\\n');
const zodFiles = () => [...imports(), ...Object.keys(require.cache)].filter((path) => path.includes('/node_modules/zod/'));
const thund = await import(${JSON.stringify(pathToFileURL(join(REPO, 'src/index.ts')).href)});
const imported = zodFiles().length;
thund.pipeline('p').materializedView('lake.m', { sql: 'SELECT 1' }).build();
console.log(JSON.stringify({ imported, used: zodFiles().length }));
`;

it('importing the package loads no zod; the first builder input checked does', () => {
  const loaded = join(work, 'loaded.txt');
  writeFileSync(join(work, 'hooks.mjs'), IMPORT_RECORDING_HOOKS);
  writeFileSync(join(work, 'main.mjs'), MAIN);
  writeFileSync(loaded, '');
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(work, 'main.mjs')], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, THUND_TEST_LOADED: loaded },
  });
  expect(child.stderr).toBe('');
  const counts = JSON.parse(child.stdout) as { imported: number; used: number };
  expect(counts.imported).toBe(0);
  expect(counts.used).toBeGreaterThan(0);
  // The resolve hook did record the package's own modules: the count of zod files is not 0 for want of recording.
  expect(readFileSync(loaded, 'utf8')).toContain('/src/pipeline/builder.ts');
});
