/**
 * The maintenance actions `thund maintain` (and serve's policy) can run, by name, in the order
 * they run when none is named: compaction first (it leaves delete files and manifests to
 * tidy), orphan removal last (expiry makes orphans of what it unreferences).
 */
import { ThundError } from '../../errors.js';
import { compact } from '../../table/maintenance/compact.js';
import type { MaintenanceActionName, MaintenanceOutcome, MaintenanceTarget } from '../../table/maintenance/maintenance-action.js';
import { rewritePositionDeletes } from '../../table/maintenance/rewrite-position-deletes.js';

/** What the command line says beyond the action names; each action reads what concerns it. */
export interface MaintenanceFlags {
  /** --older-than as written: a duration (`3d`, `12h`) or a timestamp. */
  readonly olderThan?: string;
  readonly retainLast?: number;
}

export type MaintenanceAction = (target: MaintenanceTarget, flags: MaintenanceFlags) => Promise<MaintenanceOutcome>;

/** An action registered by name whose implementation is not in this build yet. */
export class ActionNotBuiltError extends ThundError {
  constructor(action: MaintenanceActionName) {
    super('NOT_BUILT_YET', `maintenance action ${action} is not built yet`, { context: { action } });
  }
}

const notBuilt =
  (action: MaintenanceActionName): MaintenanceAction =>
  () =>
    Promise.reject(new ActionNotBuiltError(action));

export const MAINTENANCE_ACTIONS: ReadonlyMap<MaintenanceActionName, MaintenanceAction> = new Map<MaintenanceActionName, MaintenanceAction>([
  ['compact', (target) => compact(target)],
  ['rewrite-position-deletes', (target) => rewritePositionDeletes(target)],
  ['rewrite-manifests', notBuilt('rewrite-manifests')],
  ['expire-snapshots', notBuilt('expire-snapshots')],
  ['remove-orphans', notBuilt('remove-orphans')],
]);
