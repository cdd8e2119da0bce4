/**
 * The `catalog` and `storage` blocks, checked by the spec's own wire schemas, whether written in
 * a YAML file (serve's connection file) or given as an object from code (the package API's
 * openCatalog): one schema, one resolution, so a config means the same wherever it is written.
 */
import path from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { CatalogWire, StorageWire } from '../pipeline/connection-schema.js';
import { catalogFromWire, storageFromWire, type Locate } from '../pipeline/connection-spec.js';
import type { ConnectionSource } from '../pipeline/resolve-connection.js';
import { issuesToProblems } from '../pipeline/spec-schema.js';
import type { SpecProblem } from '../pipeline/yaml-locator.js';

const ConnectionBlocks = z.looseObject({ catalog: CatalogWire.optional(), storage: StorageWire.optional() });
type ConnectionBlocks = z.output<typeof ConnectionBlocks>;

/** A catalog block as a pipeline spec writes it (`type: sql | rest | glue`, secrets by `*_env` variable names). */
export type CatalogConfig = z.input<typeof CatalogWire>;
/** A storage block as a pipeline spec writes it (`s3: { region, endpoint, … }`). */
export type StorageConfig = z.input<typeof StorageWire>;

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

export interface ConnectionConfig {
  /** Default: the embedded catalog (`{ type: 'sql' }`) with its warehouse in ./warehouse. */
  readonly catalog?: CatalogConfig;
  readonly storage?: StorageConfig;
  /** The folder a relative warehouse path resolves from (default: the working directory). */
  readonly baseDir?: string;
}

/** A config object from code, validated as a spec's blocks are; problems name the field. */
export function connectionFromConfig(config: ConnectionConfig): ConnectionSource {
  const source = 'connection config';
  const parsed = parseConnectionBlocks({
    ...(config.catalog === undefined ? {} : { catalog: config.catalog }),
    ...(config.storage === undefined ? {} : { storage: config.storage }),
  });
  if ('problems' in parsed) {
    const lines = parsed.problems.map((problem) => `${problem.path.join('.') || '(root)'}: ${problem.message}`);
    throw new InvalidInputError(`invalid ${source}: ${lines.join('; ')}`);
  }
  return connectionFromBlocks(parsed.blocks, path.join(path.resolve(config.baseDir ?? '.'), source), () => ({ line: 1, column: 1 }));
}
