/**
 * The `catalog` and `storage` blocks of a pipeline file, for `thund serve`: the same wire schemas
 * and resolution as `thund run`, without requiring the batch-only parts of a pipeline (sources),
 * so one file can serve both.
 */
import path from 'node:path';
import { z } from 'zod';
import { CatalogWire, StorageWire } from '../../pipeline/connection-schema.js';
import { catalogFromWire, storageFromWire } from '../../pipeline/connection-spec.js';
import type { ConnectionSource } from '../../pipeline/resolve-connection.js';
import { issuesToProblems } from '../../pipeline/spec-schema.js';
import { readSpecFile } from '../../pipeline/spec-file.js';
import { parseYaml, type FieldPath } from '../../pipeline/yaml-locator.js';

const ConnectionBlocks = z.looseObject({ catalog: CatalogWire.optional(), storage: StorageWire.optional() });

export async function loadConnectionFile(specPath: string): Promise<ConnectionSource> {
  const text = await readSpecFile(specPath);
  const yaml = parseYaml(text, specPath);
  const data = yaml.data() ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw yaml.error([{ path: [], message: 'the file must be a mapping' }]);
  const parsed = ConnectionBlocks.safeParse(data, { reportInput: true });
  if (!parsed.success) throw yaml.error(issuesToProblems(parsed.error.issues));
  const locate = (fieldPath: FieldPath) => yaml.position(fieldPath, 'value');
  return {
    catalog: catalogFromWire(parsed.data.catalog, specPath, locate),
    storage: storageFromWire(parsed.data.storage, specPath, locate),
    specPath: path.resolve(specPath),
  };
}
