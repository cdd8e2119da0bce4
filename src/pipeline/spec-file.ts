/** Reading a pipeline file from disk, with a clear error naming it when it cannot be read. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '../errors.js';

/** The text of a spec file; a missing or unreadable file is an InvalidInputError naming it. */
export async function readSpecFile(specPath: string): Promise<string> {
  try {
    return await readFile(specPath, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'cannot read file';
    throw new InvalidInputError(`${specPath}: ${reason} (pipeline spec at ${path.resolve(specPath)})`, {
      cause,
      context: { file: specPath },
    });
  }
}
