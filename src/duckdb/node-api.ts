/**
 * @duckdb/node-api, the one place it is loaded. The CLI bundle (scripts/bundle-cli.ts) carries
 * this CommonJS package inside it, so `thund` loads one chunk instead of its ~180 files; only
 * its native bindings come from node_modules. Types come from the package itself. Only
 * DuckDbSession.open and what it loads import this module at run time (dynamically), so code
 * that never opens a session never loads DuckDB; others use the session's `duckdb`.
 */
import * as duckdbApi from '@duckdb/node-api';

export type DuckDbApi = typeof duckdbApi;

export const duckdb: DuckDbApi = duckdbApi;
