/**
 * Import circles and room crossings under a folder: pairs of source files that import each other,
 * and imports that reach into a room a folder may not see (type-only imports count: they tie the
 * files as much).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm;

/** Every .ts source file under `dir` (declaration files left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The absolute .ts paths `file` imports or re-exports from by relative specifier (type-only too). */
export function relativeImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
}

/** `a.ts <-> b.ts` for every pair of files under `root` that import each other. */
export function twoFileImportCircles(root: string): string[] {
  const imports = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) imports.set(file, new Set(relativeImports(file)));
  const circles: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      if (file < target && imports.get(target)?.has(file) === true) circles.push(`${relative(root, file)} <-> ${relative(root, target)}`);
    }
  }
  return circles;
}

/** `from -> to` (paths from `repo`) for every import of a file under `room` that lands under one of `forbidden` (folders from `repo`). */
export function roomCrossings(repo: string, room: string, forbidden: readonly string[]): string[] {
  return sourceFiles(join(repo, room)).flatMap((file) =>
    relativeImports(file)
      .map((target) => relative(repo, target))
      .filter((target) => forbidden.some((folder) => target.startsWith(`${folder}/`)))
      .map((target) => `${relative(repo, file)} -> ${target}`),
  );
}
