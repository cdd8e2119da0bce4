/** `spark-pipeline.yml`: the SDP project's spec (name, storage, configuration, libraries). */
import { stringify } from 'yaml';
import type { SparkCatalogConfig } from './catalog-conf.js';
import { DEFINITIONS_FOLDER } from './sql-definitions.js';

export const SPEC_FILE = 'spark-pipeline.yml';

export interface SpecFileInput {
  readonly name: string;
  /** Checkpoint root URI, e.g. file:///abs/path/storage. */
  readonly storage: string;
  readonly catalog: SparkCatalogConfig;
  readonly header: string;
}

/**
 * No `catalog`/`database` keys: Spark checks that the default database exists when the graph is
 * created, and an Iceberg namespace exists only once a table is in it. Every table is written
 * catalog-qualified instead (table-references.ts).
 */
export function specFileText(input: SpecFileInput): string {
  const body = {
    name: input.name,
    storage: input.storage,
    configuration: { ...input.catalog.configuration, 'spark.sql.session.timeZone': 'UTC' },
    libraries: [{ glob: { include: `${DEFINITIONS_FOLDER}/**` } }],
  };
  return `${input.header}\n${stringify(body, { lineWidth: 0 })}`;
}
