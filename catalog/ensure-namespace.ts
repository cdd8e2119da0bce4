import { AlreadyExistsError } from '../src/errors.js';
import type { Catalog } from './catalog.js';

/**
 * Creates the namespace unless it exists. Another process may create it between the check and
 * the create (two runs starting together): its "already exists" is success, not an error.
 * True only when this call created it, so a failed run can remove what it made.
 */
export async function ensureNamespace(catalog: Catalog, namespace: readonly string[]): Promise<boolean> {
  if (namespace.length === 0 || (await catalog.namespaceExists(namespace))) return false;
  try {
    await catalog.createNamespace(namespace);
    return true;
  } catch (error) {
    if (error instanceof AlreadyExistsError) return false;
    throw error;
  }
}
