/**
 * Revalidation of a row-level commit after the table moved under it (a 409, or an unknown outcome
 * that did not land). The operation read the table at `base`; every snapshot committed to main
 * since then is checked, and the commit is refused (CommitConflictError, not retryable: re-run
 * the operation) when any of them
 * - added a data file that may hold rows the operation matches (its filter, by partition and
 *   column bounds): those rows were not seen, so they would escape a delete or duplicate a key;
 * - removed (DELETED entry) a data file the operation deletes from, removes or rewrites;
 * - added a delete file that may apply to such a data file (same spec and partition), or any
 *   equality delete file: the rows we read may no longer be live;
 * or when main no longer descends from `base` (rollback, replaced history), or the current
 * schema or default partition spec changed.
 */
import { formatIdentifier, type TableIdentifier } from '../../catalog/catalog.js';
import { CommitConflictError } from '../errors.js';
import { DataFileContent, ManifestEntryStatus, type DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import { readManifest } from '../iceberg/manifest.js';
import { ancestorsOf, currentSchema } from '../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type Snapshot, type TableMetadata } from '../iceberg/table-metadata.js';
import { partitionKey } from './delete-planning.js';
import { FilePruner } from './file-pruning.js';
import type { RowFilter } from './row-filter.js';
import { manifestsOf } from './scan.js';

export interface ConflictScope {
  readonly io: FileIO;
  readonly identifier: TableIdentifier;
  /** What the operation is, for messages: `delete where id < 5`, `upsert on (id)`. */
  readonly operation: string;
  /** Rows the operation must have seen: new data files that may hold such rows conflict. */
  readonly filter: RowFilter;
  /** Data files the operation deletes rows from, removes or rewrites. */
  readonly touchedDataFiles: readonly DataFile[];
}

export function rowDeltaValidator(scope: ConflictScope): (base: TableMetadata, current: TableMetadata) => Promise<void> {
  return (base, current) => validateNoConflicts(scope, base, current);
}

export async function validateNoConflicts(scope: ConflictScope, base: TableMetadata, current: TableMetadata): Promise<void> {
  const table = formatIdentifier(scope.identifier);
  const refuse = (why: string): never => {
    throw new CommitConflictError(`${scope.operation} on ${table} was not committed: ${why}; nothing was changed, run it again`, {
      retryable: false,
      context: { table },
    });
  };
  if (current.currentSchemaId !== base.currentSchemaId) refuse('the table schema changed concurrently');
  if (current.defaultSpecId !== base.defaultSpecId) refuse('the partition spec changed concurrently');
  const pruner = new FilePruner(current, currentSchema(current));
  const touchedPaths = new Set(scope.touchedDataFiles.map((file) => file.filePath));
  const touchedPartitions = new Set(scope.touchedDataFiles.map((file) => partitionKey(file.specId, file.partition)));
  for (const snapshot of newSnapshots(base, current, refuse)) {
    const who = `concurrent commit ${snapshot.snapshotId} (${snapshot.summary.operation})`;
    for (const manifest of await manifestsOf(scope.io, snapshot)) {
      if (manifest.addedSnapshotId !== snapshot.snapshotId) continue;
      const entries = readManifest(await scope.io.read(manifest.manifestPath), manifest.manifestPath, {
        snapshotId: manifest.addedSnapshotId,
        sequenceNumber: manifest.sequenceNumber,
      });
      for (const entry of entries) {
        if (entry.snapshotId !== snapshot.snapshotId) continue;
        const file = entry.dataFile;
        if (entry.status === ManifestEntryStatus.Deleted) {
          if (touchedPaths.has(file.filePath)) refuse(`${who} removed data file ${file.filePath}, which this operation changes`);
          continue;
        }
        if (entry.status !== ManifestEntryStatus.Added) continue;
        if (file.content === DataFileContent.Data) {
          if (pruner.mayMatch(scope.filter, file)) refuse(`${who} added data file ${file.filePath}, which may hold rows this operation matches`);
        } else if (file.content === DataFileContent.EqualityDeletes) {
          refuse(`${who} added equality delete file ${file.filePath}`);
        } else if (deleteMayApply(file, touchedPaths, touchedPartitions)) {
          refuse(`${who} added delete file ${file.filePath} for data this operation changes`);
        }
      }
    }
  }
}

function deleteMayApply(file: DataFile, touchedPaths: ReadonlySet<string>, touchedPartitions: ReadonlySet<string>): boolean {
  if (file.referencedDataFile !== undefined) return touchedPaths.has(file.referencedDataFile);
  return touchedPartitions.has(partitionKey(file.specId, file.partition));
}

/** Snapshots on main after base's main, oldest first; refuses when main does not descend from it. */
function newSnapshots(base: TableMetadata, current: TableMetadata, refuse: (why: string) => never): Snapshot[] {
  const baseId = base.refs.get(MAIN_BRANCH)?.snapshotId;
  const result: Snapshot[] = [];
  for (const snapshot of ancestorsOf(current, current.refs.get(MAIN_BRANCH)?.snapshotId)) {
    if (snapshot.snapshotId === baseId) return result.reverse();
    result.push(snapshot);
  }
  if (baseId !== undefined) refuse(`main no longer descends from snapshot ${baseId} the operation read`);
  return result.reverse();
}
