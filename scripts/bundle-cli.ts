/**
 * Bundles the `thund` CLI (the package's bin) into dist/bin/: one ES module per command chunk, so
 * a command loads a few files instead of hundreds (zod and yaml alone are ~300 modules, each
 * resolved, read and compiled on its own). Commands still load their chunk on demand (cli.ts
 * imports each command's module when it runs). Packages with native addons or of great size stay
 * outside, loaded from node_modules as before, and only by the commands that use them. tsc still
 * builds the library and its types into dist/; this is only the command line.
 *
 *   npx tsx scripts/bundle-cli.ts   (npm run build runs it after tsc)
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const outdir = resolve(root, 'dist/bin');

/**
 * Not bundled: native addons (DuckDB, SQLite), the large clients only some commands use, and tsx
 * (with esbuild's binary), which loads TypeScript pipeline modules.
 */
const EXTERNAL = ['@duckdb/node-bindings', 'better-sqlite3', 'kafkajs', '@aws-sdk/*', '@smithy/*', 'tsx', 'tsx/*', 'esbuild'];

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    thund: 'src/app/cli.ts',
    // Started as a worker by connectors/kafka/worker-consumer-client.ts, found beside the chunk that starts it.
    'kafka-consumer-worker': 'connectors/kafka/kafka-consumer-worker.ts',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Chunks sit beside the entry, two folders below package.json, where src/version.ts looks for it.
  chunkNames: '[name]-[hash]',
  // Error classes name themselves from their constructor (errors.ts).
  keepNames: true,
  sourcemap: true,
  // Bundled CommonJS packages (avsc) call require, which an ES module does not have.
  banner: { js: "import { createRequire as thundCreateRequire } from 'node:module'; const require = thundCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
