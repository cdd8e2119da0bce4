/**
 * When `thund serve` maintains a table by itself: each action on an interval of its own, read
 * from the table's properties (so Spark's ALTER TABLE … SET TBLPROPERTIES tunes a running
 * service at its next check), with defaults that suit a table committed every few seconds.
 * Compaction's own thresholds (target size, `thund.maintenance.compact.min-input-files`) are the table's too.
 */
import { InvalidInputError } from '../../errors.js';
import type { MaintenanceActionName } from '../../table/maintenance/maintenance-action.js';

export const MAINTENANCE_ENABLED_PROPERTY = 'thund.maintenance.enabled';

/** Default interval per action, in the order a due tie is broken (compaction first). */
export const DEFAULT_INTERVALS_MS: ReadonlyMap<MaintenanceActionName, number> = new Map<MaintenanceActionName, number>([
  ['compact', 10 * 60_000],
  ['rewrite-position-deletes', 60 * 60_000],
  ['expire-snapshots', 60 * 60_000],
  ['rewrite-manifests', 6 * 60 * 60_000],
  ['remove-orphans', 24 * 60 * 60_000],
]);

export const intervalProperty = (action: MaintenanceActionName): string => `thund.maintenance.${action}.interval-ms`;

export interface MaintenancePolicy {
  readonly enabled: boolean;
  /** Actions serve runs, with their intervals; an interval property of -1 turns one off. */
  readonly intervalsMs: ReadonlyMap<MaintenanceActionName, number>;
}

export function maintenancePolicy(properties: Readonly<Record<string, string>>, table: string): MaintenancePolicy {
  const enabled = properties[MAINTENANCE_ENABLED_PROPERTY];
  if (enabled !== undefined && enabled !== 'true' && enabled !== 'false') {
    throw new InvalidInputError(`table ${table}: property ${MAINTENANCE_ENABLED_PROPERTY} must be true or false, got "${enabled}"`, { context: { table } });
  }
  const intervalsMs = new Map<MaintenanceActionName, number>();
  for (const [action, fallback] of DEFAULT_INTERVALS_MS) {
    const property = intervalProperty(action);
    const text = properties[property];
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < -1) {
      throw new InvalidInputError(`table ${table}: property ${property} must be a whole number of milliseconds (-1 turns the action off), got "${text}"`, { context: { table, property } });
    }
    if (value >= 0) intervalsMs.set(action, value);
  }
  return { enabled: enabled !== 'false', intervalsMs };
}
