/**
 * The `catalog` and `storage` blocks, checked by the spec's own wire schemas wherever they are
 * written: a YAML pipeline, serve's connection file, a TypeScript pipeline module's `catalog` and
 * `storage` exports, or an object from code (the package API's openCatalog). One schema, one
 * resolution, so a config means the same wherever it is written.
 */
import path from 'node:path';
import { z } from 'zod';
import { CatalogWire, StorageWire } from './connection-schema.js';
import { catalogFromWire, storageFromWire, type Locate } from './connection-spec.js';
import type { ConnectionSource } from './resolve-connection.js';
import { issuesToProblems } from './spec-schema.js';
import type { SpecProblem } from './yaml-locator.js';

const ConnectionBlocks = z.looseObject({ catalog: CatalogWire.optional(), storage: StorageWire.optional() });
export type ConnectionBlocks = z.output<typeof ConnectionBlocks>;

export function parseConnectionBlocks(data: object): { blocks: ConnectionBlocks } | { problems: SpecProblem[] } {
  const parsed = ConnectionBlocks.safeParse(data, { reportInput: true });
  return parsed.success ? { blocks: parsed.data } : { problems: issuesToProblems(parsed.error.issues) };
}

/** `specPath`: the file the blocks are written in; a relative sql warehouse resolves from its folder. */
export function connectionFromBlocks(blocks: ConnectionBlocks, specPath: string, locate: Locate): ConnectionSource {
  return {
    catalog: catalogFromWire(blocks.catalog, specPath, locate),
    storage: storageFromWire(blocks.storage, specPath, locate),
    specPath: path.resolve(specPath),
  };
}
