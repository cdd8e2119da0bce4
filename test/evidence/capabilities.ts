/**
 * The evidence registry: every capability Thund offers, its status and the tests that prove it.
 * docs/EVIDENCE.md is generated from it (`npm run evidence:generate`) and `npm test` checks it
 * against the run (check.ts). Name a test by its full name as vitest's JSON report gives it.
 */
import type { Capability } from './capability.js';
import { CATALOG_AND_READER_CAPABILITIES } from './registry/catalogs-and-readers.js';
import { PIPELINE_CAPABILITIES } from './registry/pipelines.js';
import { SOURCE_AND_SINK_CAPABILITIES } from './registry/sources-and-sinks.js';
import { TABLE_CAPABILITIES } from './registry/tables.js';
import { TOOL_CAPABILITIES } from './registry/tools.js';

export const CAPABILITIES: readonly Capability[] = [
  ...PIPELINE_CAPABILITIES,
  ...SOURCE_AND_SINK_CAPABILITIES,
  ...TABLE_CAPABILITIES,
  ...CATALOG_AND_READER_CAPABILITIES,
  ...TOOL_CAPABILITIES,
];
