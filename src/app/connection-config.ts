/**
 * The `catalog` and `storage` blocks given as an object from code (the package API's openCatalog,
 * runPipeline, …): checked and resolved as a spec's blocks are (pipeline/connection-blocks.ts).
 */
import path from 'node:path';
import type { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { connectionFromBlocks, parseConnectionBlocks } from '../pipeline/connection-blocks.js';
import type { CatalogWire, StorageWire } from '../pipeline/connection-schema.js';
import type { ConnectionSource } from '../pipeline/resolve-connection.js';

/** A catalog block as a pipeline spec writes it (`type: sql | rest | glue`, secrets by `*_env` variable names). */
export type CatalogConfig = z.input<typeof CatalogWire>;
/** A storage block as a pipeline spec writes it (`s3: { region, endpoint, … }`). */
export type StorageConfig = z.input<typeof StorageWire>;

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
