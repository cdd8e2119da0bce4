/**
 * The maintenance actions `thund maintain` (and serve's policy) can run, by name, in the order
 * they run when none is named: compaction first (it leaves delete files and manifests to
 * tidy), orphan removal last (expiry makes orphans of what it unreferences).
 */
import { compact } from '../../table/maintenance/compact.js';
import { expireSnapshots } from '../../table/maintenance/expire-snapshots.js';
import type { MaintenanceActionName, MaintenanceOutcome, MaintenanceTarget } from '../../table/maintenance/maintenance-action.js';
import { removeOrphans } from '../../table/maintenance/remove-orphans.js';
import { rewriteManifests } from '../../table/maintenance/rewrite-manifests.js';
import { rewritePositionDeletes } from '../../table/maintenance/rewrite-position-deletes.js';

/** What the command line says beyond the action names; each action reads what concerns it. */
export interface MaintenanceFlags {
  /** --older-than as an age in milliseconds (a timestamp is turned into its age when the command starts). */
  readonly olderThanMs?: number;
  readonly retainLast?: number;
  /** Compaction rewrites files of older partition specs into the current one too. */
  readonly includeOlderSpecs?: boolean;
}

export type MaintenanceAction = (target: MaintenanceTarget, flags: MaintenanceFlags) => Promise<MaintenanceOutcome>;

export const MAINTENANCE_ACTIONS: ReadonlyMap<MaintenanceActionName, MaintenanceAction> = new Map<MaintenanceActionName, MaintenanceAction>([
  ['compact', (target, flags) => compact(target, flags.includeOlderSpecs === true ? { includeOlderSpecs: true } : {})],
  ['rewrite-position-deletes', (target) => rewritePositionDeletes(target)],
  ['rewrite-manifests', (target) => rewriteManifests(target)],
  [
    'expire-snapshots',
    (target, flags) =>
      expireSnapshots(target, { ...(flags.olderThanMs === undefined ? {} : { olderThanMs: flags.olderThanMs }), ...(flags.retainLast === undefined ? {} : { retainLast: flags.retainLast }) }),
  ],
  ['remove-orphans', (target, flags) => removeOrphans(target, flags.olderThanMs === undefined ? {} : { olderThanMs: flags.olderThanMs })],
]);
