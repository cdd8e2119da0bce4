/**
 * @duckdb/node-api, the one place it is loaded. The CLI bundle (scripts/bundle-cli.ts) carries
 * this CommonJS package inside it, so `thund` loads one chunk instead of its ~180 files; only
 * its native bindings come from node_modules. Types come from the package itself.
 */
import * as duckdbApi from '@duckdb/node-api';

export const duckdb = duckdbApi;
