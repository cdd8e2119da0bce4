/**
 * A separate process committing to one table through SqlCatalog, retrying on conflicts.
 * argv: <databasePath> <warehouse> <workerId> <commits>. Prints {"conflicts": n}.
 */
import { SqlCatalog } from '../../../catalog/sql/index.js';
import { LocalFileIO } from '../../../connectors/storage/local-file-io.js';
import { CommitConflictError } from '../../../src/errors.js';

const [databasePath, warehouse, workerId, commits] = process.argv.slice(2);
if (databasePath === undefined || warehouse === undefined || workerId === undefined || commits === undefined) {
  throw new Error('usage: sql-commit-worker <databasePath> <warehouse> <workerId> <commits>');
}
const catalog = new SqlCatalog({ databasePath, warehouse, io: new LocalFileIO() });
let conflicts = 0;
for (let i = 0; i < Number(commits); i += 1) {
  for (;;) {
    try {
      await catalog.commitTable({ namespace: ['db'], name: 't' }, [], [
        { action: 'set-properties', updates: { [`w${workerId}.${i}`]: 'done' } },
      ]);
      break;
    } catch (error) {
      if (!(error instanceof CommitConflictError)) throw error;
      conflicts += 1;
    }
  }
}
await catalog.close();
process.stdout.write(JSON.stringify({ conflicts }));
