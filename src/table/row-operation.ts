/**
 * What deleteWhere and upsert share: the target they run against, and committing their files as
 * one row-delta snapshot through the commit loop (written files removed again on a definite
 * failure, kept on an unknown outcome, where a snapshot may reference them).
 */
import type { Catalog, TableIdentifier } from '../../catalog/catalog.js';
import { CommitStateUnknownError } from '../errors.js';
import type { CommitNoticeSink } from './commit-notice.js';
import type { DataFile } from '../iceberg/data-file.js';
import type { FileIO } from '../iceberg/file-io.js';
import type { Snapshot, TableMetadata } from '../iceberg/table-metadata.js';
import type { DuckDbSession } from '../duckdb/session.js';
import { commitSnapshot, type CommitFence, type LayoutChange, type SnapshotCommitRequest } from './commit-snapshot.js';
import { rowDeltaValidator } from './conflict-validation.js';
import type { RowLevelMode } from './row-changes.js';
import type { RowFilter } from './row-filter.js';

export interface RowOperationTarget {
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  readonly io: FileIO;
  readonly session: DuckDbSession;
  /** Extra snapshot summary properties. */
  readonly summaryProperties?: Readonly<Record<string, string>>;
  /** Checked before every commit attempt (commit-snapshot.ts). */
  readonly fence?: CommitFence;
  /** Told about lost answers, 409 retries and fenced commits (commit-notice.ts). */
  readonly onNotice?: CommitNoticeSink;
}

/** What every commit of a row operation takes from its target: summary properties, fence and notices. */
export function targetCommitOptions(target: RowOperationTarget): Pick<SnapshotCommitRequest, 'summaryProperties' | 'fence' | 'onNotice'> {
  return {
    ...(target.summaryProperties === undefined ? {} : { summaryProperties: target.summaryProperties }),
    ...(target.fence === undefined ? {} : { fence: target.fence }),
    ...(target.onNotice === undefined ? {} : { onNotice: target.onNotice }),
  };
}

export interface RowOperationResult {
  /** Undefined when nothing matched and nothing was committed. */
  readonly snapshot: Snapshot | undefined;
  readonly attempts: number;
  readonly mode: RowLevelMode;
  /** Live rows deleted (for an upsert: the old versions of matched keys). */
  readonly deletedRows: bigint;
  readonly addedRows: bigint;
  readonly addedDataFiles: readonly DataFile[];
  readonly addedDeleteFiles: readonly DataFile[];
  readonly removedDataFiles: readonly DataFile[];
}

export interface RowDeltaCommit {
  readonly target: RowOperationTarget;
  readonly metadata: TableMetadata;
  readonly operation: string;
  readonly filter: RowFilter;
  readonly addedDataFiles: readonly DataFile[];
  readonly addedDeleteFiles: readonly DataFile[];
  readonly removedDataFiles: readonly DataFile[];
  readonly removedDeleteFiles: readonly DataFile[];
  readonly touchedDataFiles: readonly DataFile[];
  /** Schema and partition spec changes committed with the rows. */
  readonly layoutChange?: LayoutChange;
  /** 'replace' for a rewrite that keeps the rows (compaction); the default is 'row-delta'. */
  readonly mode?: 'row-delta' | 'replace';
  /** RowDelta.dataSequenceNumber: the added data files' data sequence number. */
  readonly dataSequenceNumber?: bigint;
}

export async function commitRowDelta(request: RowDeltaCommit): Promise<{ snapshot: Snapshot; attempts: number }> {
  const { target } = request;
  const written = [...request.addedDataFiles, ...request.addedDeleteFiles];
  try {
    const result = await commitSnapshot({
      catalog: target.catalog,
      identifier: target.identifier,
      base: { metadata: request.metadata, io: target.io, create: false },
      mode: request.mode ?? 'row-delta',
      addedFiles: [],
      rowDelta: {
        ...(request.dataSequenceNumber === undefined ? {} : { dataSequenceNumber: request.dataSequenceNumber }),
        addedDataFiles: request.addedDataFiles,
        addedDeleteFiles: request.addedDeleteFiles,
        removedDataFiles: request.removedDataFiles,
        removedDeleteFiles: request.removedDeleteFiles,
        validate: rowDeltaValidator({
          io: target.io,
          identifier: target.identifier,
          operation: request.operation,
          filter: request.filter,
          touchedDataFiles: request.touchedDataFiles,
        }),
      },
      ...(request.layoutChange === undefined ? {} : { layoutChange: request.layoutChange }),
      ...targetCommitOptions(target),
    });
    return { snapshot: result.snapshot, attempts: result.attempts };
  } catch (error) {
    if (!(error instanceof CommitStateUnknownError)) await removeQuietly(target.io, written);
    throw error;
  }
}

export async function removeQuietly(io: FileIO, files: readonly DataFile[]): Promise<void> {
  await Promise.all(files.map((file) => io.delete(file.filePath).catch(() => undefined)));
}

/** A unique DuckDB temp table name. */
export function tempName(prefix: string): string {
  return `__thund_${prefix}_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
}
