/** No two files under connectors/ import each other (type-only imports count: they tie the files as much). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../connectors');
const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

it('has no two-file import circle', () => {
  const imports = new Map<string, Set<string>>();
  for (const file of sourceFiles(ROOT)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
    imports.set(file, new Set(targets));
  }
  const circles: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      if (file < target && imports.get(target)?.has(file) === true) circles.push(`${relative(ROOT, file)} <-> ${relative(ROOT, target)}`);
    }
  }
  expect(circles).toEqual([]);
});
