/**
 * Deletes files a maintenance action found unreachable, a few at a time. The table's metadata no
 * longer needs them, so a file that cannot be deleted is counted and left (orphan removal finds
 * it later), never a reason to fail the action.
 */
import type { FileIO } from '../../iceberg/file-io.js';

const DELETE_CONCURRENCY = 16;

export interface DeleteResult {
  readonly deleted: number;
  readonly failed: readonly string[];
}

export async function deleteFiles(io: FileIO, locations: Iterable<string>): Promise<DeleteResult> {
  const queue = [...locations];
  const failed: string[] = [];
  let deleted = 0;
  const worker = async (): Promise<void> => {
    for (let location = queue.shift(); location !== undefined; location = queue.shift()) {
      try {
        await io.delete(location);
        deleted += 1;
      } catch {
        failed.push(location);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, queue.length) }, worker));
  return { deleted, failed };
}
