/**
 * expire-snapshots: removes the snapshots and refs snapshot-retention.ts lets go in one metadata
 * commit (main's head asserted, so a concurrent commit makes it plan again on the new table),
 * then deletes the files only those snapshots reached. Files go only once the commit is known
 * to have landed: an unknown outcome deletes nothing.
 */
import { formatIdentifier, type LoadedTable } from '../../../catalog/catalog.js';
import { CommitConflictError, CommitStateUnknownError } from '../../errors.js';
import type { TableRequirement } from '../../iceberg/requirements.js';
import { MAIN_BRANCH, type TableMetadata } from '../../iceberg/table-metadata.js';
import type { TableUpdate } from '../../iceberg/updates.js';
import { backoffMs, retryPolicy } from '../retry-policy.js';
import { deleteFiles } from './delete-files.js';
import { requireGcEnabled } from './gc-enabled.js';
import { countOf, filesOfFolder, planExpiredFiles, type ExpiredFiles } from './expired-files.js';
import type { MaintenanceOutcome, MaintenanceTarget } from './maintenance-action.js';
import { planRetention, type RetentionOptions, type RetentionPlan } from './snapshot-retention.js';

export type ExpireSnapshotsOptions = RetentionOptions;

export async function expireSnapshots(target: MaintenanceTarget, options: ExpireSnapshotsOptions = {}): Promise<MaintenanceOutcome> {
  const now = target.now ?? Date.now;
  const table = formatIdentifier(target.identifier);
  let loaded = await target.catalog.loadTable(target.identifier);
  requireGcEnabled(loaded.metadata, target.identifier, 'expire snapshots of');
  const policy = retryPolicy(loaded.metadata.properties);
  for (let attempt = 0; ; attempt += 1) {
    const base = loaded.metadata;
    const plan = planRetention(base, now(), options);
    if (plan.expired.length === 0 && plan.removedRefs.length === 0) return outcome(target, plan, undefined, undefined);
    if (target.dryRun) {
      const remaining = base.snapshots.filter((snapshot) => plan.retained.has(snapshot.snapshotId));
      return outcome(target, plan, await planExpiredFiles(target.io, base, { metadata: base, snapshots: remaining }, plan.expired), undefined);
    }
    let committed: LoadedTable;
    try {
      committed = await target.catalog.commitTable(target.identifier, requirementsFor(base), updatesFor(plan));
    } catch (error) {
      if (error instanceof CommitStateUnknownError) {
        throw new CommitStateUnknownError(`Expiring snapshots of ${table}: the commit's outcome is unknown, so no file was deleted; run again to finish`, {
          cause: error,
          context: { table },
        });
      }
      if (!(error instanceof CommitConflictError) || !error.retryable || attempt >= policy.numRetries) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffMs(policy, attempt + 1)));
      loaded = await target.catalog.loadTable(target.identifier);
      continue;
    }
    const files = await planExpiredFiles(target.io, base, { metadata: committed.metadata, snapshots: committed.metadata.snapshots }, plan.expired);
    return outcome(target, plan, files, await deleteExpired(target, files));
  }
}

function requirementsFor(base: TableMetadata): TableRequirement[] {
  return [
    { type: 'assert-table-uuid', uuid: base.tableUuid },
    { type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, snapshotId: base.refs.get(MAIN_BRANCH)?.snapshotId ?? null },
  ];
}

function updatesFor(plan: RetentionPlan): TableUpdate[] {
  return [
    ...plan.removedRefs.map((refName): TableUpdate => ({ action: 'remove-snapshot-ref', refName })),
    ...(plan.expired.length === 0 ? [] : [{ action: 'remove-snapshots', snapshotIds: plan.expired.map((snapshot) => snapshot.snapshotId) } satisfies TableUpdate]),
  ];
}

/** Content files first, then the manifests and lists that named them. */
async function deleteExpired(target: MaintenanceTarget, files: ExpiredFiles): Promise<{ deleted: number; failed: number }> {
  let deleted = 0;
  let failed = 0;
  const checkpointFiles: string[] = [];
  for (const folder of files.checkpointFolders.values()) checkpointFiles.push(...(await filesOfFolder(target.io, folder)));
  for (const group of [files.contentFiles.values(), files.statisticsFiles.values(), checkpointFiles, files.manifests.values(), files.manifestLists.values()]) {
    const result = await deleteFiles(target.io, group);
    deleted += result.deleted;
    failed += result.failed.length;
  }
  return { deleted, failed };
}

function outcome(target: MaintenanceTarget, plan: RetentionPlan, files: ExpiredFiles | undefined, deletion: { deleted: number; failed: number } | undefined): MaintenanceOutcome {
  const counts = {
    snapshots: plan.expired.length,
    refs: plan.removedRefs.length,
    contentFiles: files?.contentFiles.size ?? 0,
    manifests: files?.manifests.size ?? 0,
    manifestLists: files?.manifestLists.size ?? 0,
    statisticsFiles: files?.statisticsFiles.size ?? 0,
    checkpoints: files?.checkpointFolders.size ?? 0,
    filesDeleted: deletion?.deleted ?? 0,
    filesNotDeleted: deletion?.failed ?? 0,
  };
  const verb = target.dryRun ? 'would expire' : 'expired';
  const fileCount = files === undefined ? 0 : countOf(files);
  const refs = plan.removedRefs.length === 0 ? '' : ` and ${plan.removedRefs.length} refs (${plan.removedRefs.join(', ')})`;
  const removed = target.dryRun ? `${fileCount} files would be deleted` : `${counts.filesDeleted} files deleted${counts.filesNotDeleted > 0 ? `, ${counts.filesNotDeleted} could not be (left for remove-orphans)` : ''}`;
  return {
    action: 'expire-snapshots',
    dryRun: target.dryRun,
    summary: `expire-snapshots: ${verb} ${plan.expired.length} snapshots${refs}, ${plan.retained.size} kept; ${removed} (${counts.contentFiles} data and delete files, ${counts.manifests} manifests, ${counts.manifestLists} manifest lists, ${counts.statisticsFiles} statistics files, ${counts.checkpoints} checkpoints)`,
    counts,
  };
}
