/**
 * @duckdb/node-api, the one place it is loaded. The package is CommonJS: `require` loads it in
 * about a third of the time an ESM `import` of it takes (Node's ESM loader lexes every file it
 * re-exports for named exports), which `thund validate` and `thund run` wait for at start-up.
 * Types still come from the package itself (`import type … from '@duckdb/node-api'`).
 */
import { createRequire } from 'node:module';

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
