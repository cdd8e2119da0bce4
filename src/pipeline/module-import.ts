/**
 * Imports a pipeline module by its path. TypeScript (.ts, .mts, .cts) goes through tsx's loader
 * hooks, registered once per process for ES modules and CommonJS both (a .ts file in a package
 * without `"type": "module"` is CommonJS); tsx maps stack traces to the .ts file's own lines, which
 * is what the builder's origins and a load error's position are read from.
 */
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = /\.[cm]?ts$/;
let typescriptHooks: Promise<void> | undefined;

/** The module's exports (a CommonJS module's `module.exports`, not its ES wrapper). */
export async function importModuleFile(absolutePath: string): Promise<Readonly<Record<string, unknown>>> {
  if (TYPESCRIPT.test(absolutePath)) await (typescriptHooks ??= registerTypeScript());
  const loaded = (await import(pathToFileURL(absolutePath).href)) as Record<string, unknown>;
  // Imported from ESM, a CommonJS module is its `default`; tsx's output marks it with __esModule.
  const commonJs = loaded['default'];
  return typeof commonJs === 'object' && commonJs !== null && (commonJs as Record<string, unknown>)['__esModule'] === true
    ? (commonJs as Record<string, unknown>)
    : loaded;
}

async function registerTypeScript(): Promise<void> {
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
}
