/**
 * What compaction and the position delete rewrite share: one `replace` snapshot through the
 * row-delta commit (written files removed on a definite failure, kept on an unknown outcome),
 * validated on every attempt against what was committed since the table was read. Appends
 * pass (nothing the rewrite matches can be in a new data file); a delete file that may apply to
 * a file it rewrites, or the removal of such a file, refuses the commit with a
 * CompactionConflictError (plan again), so no deleted row ever comes back.
 */
import { formatIdentifier } from '../../../catalog/catalog.js';
import { CommitConflictError, CompactionConflictError } from '../../errors.js';
import type { Snapshot } from '../../iceberg/table-metadata.js';
import type { RowFilter } from '../row-filter.js';
import { commitRowDelta, type RowDeltaCommit } from '../row-operation.js';
import type { MaintenanceTarget } from './maintenance-action.js';

/** A rewrite reads rows, it matches none: a concurrently added data file never conflicts. */
const MATCHES_NOTHING: RowFilter = { kind: 'or', children: [] };

/** A row-delta commit whose rows stay the same; `touchedDataFiles`: data files whose rows or deletes it depends on. */
export type RewriteCommit = Omit<RowDeltaCommit, 'target' | 'filter' | 'mode' | 'layoutChange'> & { readonly target: MaintenanceTarget };

export async function commitRewrite(request: RewriteCommit): Promise<{ snapshot: Snapshot; attempts: number }> {
  const { target } = request;
  try {
    return await commitRowDelta({ ...request, filter: MATCHES_NOTHING, mode: 'replace' });
  } catch (error) {
    if (error instanceof CommitConflictError && !(error instanceof CompactionConflictError)) {
      const table = formatIdentifier(target.identifier);
      throw new CompactionConflictError(`${request.operation} of ${table} conflicts with a concurrent commit: ${error.message}`, {
        cause: error,
        context: { ...error.context, table },
      });
    }
    throw error;
  }
}
