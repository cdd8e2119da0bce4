/**
 * The `catalog` and `storage` blocks of a pipeline file, for `thund serve`: the same wire schemas
 * and resolution as `thund run`, without requiring the batch-only parts of a pipeline (sources),
 * so one file can serve both.
 */
import { readSpecFile } from '../../pipeline/spec-file.js';
import { parseYaml, type FieldPath } from '../../pipeline/yaml-locator.js';
import type { ConnectionSource } from '../../pipeline/resolve-connection.js';
import { connectionFromBlocks, parseConnectionBlocks } from '../../pipeline/connection-blocks.js';

export async function loadConnectionFile(specPath: string): Promise<ConnectionSource> {
  const text = await readSpecFile(specPath);
  const yaml = parseYaml(text, specPath);
  const data = yaml.data() ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw yaml.error([{ path: [], message: 'the file must be a mapping' }]);
  const parsed = parseConnectionBlocks(data);
  if ('problems' in parsed) throw yaml.error(parsed.problems);
  return connectionFromBlocks(parsed.blocks, specPath, (fieldPath: FieldPath) => yaml.position(fieldPath, 'value'));
}
