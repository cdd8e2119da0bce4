/**
 * What the built CLI loads for the commands people wait for: `thund --help` loads no package at
 * all, `thund validate` DuckDB only for SQL its parse cache does not know (and none of the other
 * heavy packages), and a run on the embedded catalog (the README quickstart, first and up to date)
 * no AWS SDK, Glue, REST catalog or Kafka client (and, up to date, not DuckDB either).
 * Every file the process loads is recorded by a preload (`--import` through NODE_OPTIONS): ESM
 * imports by a resolve hook, CommonJS ones from require's cache at exit. The CLI is a bundle
 * (dist/bin/, scripts/bundle-cli.ts): the modules inside each chunk it loads are read from the
 * chunk's `// path` markers, so packages bundled into it count as loaded. No timings here:
 * bench/startup measures those.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICKSTART_SPEC } from '../interop/quickstart-expected.js';
import { IMPORT_RECORDING_HOOKS } from '../support/import-recording-hooks.js';
import { REPO, thund } from './cli.js';

const PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register('./hooks.mjs', import.meta.url);
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(process.env.THUND_TEST_LOADED, Object.keys(require.cache).join('\\n') + '\\n'));
`;

/** Packages a command must not load unless it uses them, by the paths of their files. */
const HEAVY: Readonly<Record<string, RegExp>> = {
  '@duckdb/node-api': /\/node_modules\/@duckdb\//,
  '@aws-sdk/*': /\/node_modules\/@aws-sdk\//,
  '@smithy/*': /\/node_modules\/@smithy\//,
  kafkajs: /\/node_modules\/kafkajs\//,
  'better-sqlite3': /\/node_modules\/better-sqlite3\//,
  // Declared column types use Arrow's type classes only (apache-arrow/type); the root loads all of Arrow.
  'apache-arrow (the package root)': /\/node_modules\/apache-arrow\/Arrow\./,
  avsc: /\/node_modules\/avsc\//,
};

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'thund-startup-imports-'));
  writeFileSync(join(work, 'hooks.mjs'), IMPORT_RECORDING_HOOKS);
  writeFileSync(join(work, 'preload.mjs'), PRELOAD);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

let runs = 0;

/** Runs the CLI in `cwd` and returns the paths of every module it loaded. */
function loadedBy(args: readonly string[], cwd: string = work): string[] {
  const record = join(work, `loaded-${(runs += 1)}.txt`);
  writeFileSync(record, '');
  const result = thund(args, cwd, {
    NODE_OPTIONS: `--import=${pathToFileURL(join(work, 'preload.mjs')).href}`,
    THUND_TEST_LOADED: record,
    THUND_CACHE: join(work, 'cache'),
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = readFileSync(record, 'utf8').split('\n').filter((line) => line !== '');
  const files = [...new Set(lines.map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line)))];
  return [...files, ...files.filter((file) => file.startsWith(BUNDLE)).flatMap(bundledModules)];
}

const BUNDLE = join(REPO, 'dist/bin/');

/** The source files esbuild put into a chunk (each begins at a `// path` line, relative to the repository). */
function bundledModules(chunk: string): string[] {
  return [...readFileSync(chunk, 'utf8').matchAll(/^\/\/ ([\w@./-]+\.[cm]?[jt]s)$/gm)].map((marker) => resolve(REPO, marker[1] as string));
}

/** The names of the HEAVY packages among `loaded`. */
function heavyIn(loaded: readonly string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, pattern]) => loaded.some((path) => pattern.test(path)))
    .map(([name]) => name);
}

describe('what the CLI loads at start-up', () => {
  it('thund --help loads no package, nor any command module', () => {
    const loaded = loadedBy(['--help']);
    expect(loaded.filter((path) => path.startsWith(BUNDLE)).length).toBeGreaterThan(0);
    expect(loaded.filter((path) => path.includes('/node_modules/'))).toEqual([]);
    expect(loaded.filter((path) => path.startsWith(REPO) && !path.startsWith(BUNDLE) && !path.startsWith(join(REPO, 'src/')))).toEqual([]);
    expect(loaded.filter((path) => /\/src\/app\/commands\/(?!usage\.ts)/.test(path))).toEqual([]);
  });

  it('thund validate loads DuckDB (its SQL parser infers each flow’s reads) only while its parse cache lacks the SQL, and none of the other heavy packages', () => {
    expect(heavyIn(loadedBy(['validate', QUICKSTART_SPEC])), 'cold cache').toEqual(['@duckdb/node-api']);
    expect(heavyIn(loadedBy(['validate', QUICKSTART_SPEC])), 'warm cache').toEqual([]);
  });

  it('thund run on the embedded catalog, first and up to date, loads no AWS SDK, REST or Glue catalog, nor Kafka client; up to date, no DuckDB', () => {
    const quickstart = mkdtempSync(join(work, 'quickstart-'));
    for (const [round, heavy] of [
      ['first', ['@duckdb/node-api', 'better-sqlite3', 'avsc']],
      ['up to date', ['better-sqlite3', 'avsc']],
    ] as const) {
      const loaded = loadedBy(['run', QUICKSTART_SPEC], quickstart);
      expect(heavyIn(loaded), round).toEqual(heavy);
      expect(
        loaded.filter((path) => path.startsWith(REPO) && /\/(catalog\/(rest|glue)|connectors\/kafka\/(?!kafka-offset-streams\.ts|sink-options\.ts))/.test(path)),
        round,
      ).toEqual([]);
    }
  });
});
