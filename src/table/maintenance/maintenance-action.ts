/**
 * What every table maintenance action (compaction, manifest rewrite, snapshot expiry, orphan
 * removal, position delete rewrite) runs against and reports: `thund maintain` prints the
 * summaries, serve's maintenance policy logs them and counts them in /metrics.
 */
import type { Catalog, TableIdentifier } from '../../../catalog/catalog.js';
import type { DuckDbSession } from '../../duckdb/session.js';
import type { FileIO } from '../../iceberg/file-io.js';

export type MaintenanceActionName = 'compact' | 'rewrite-manifests' | 'rewrite-position-deletes' | 'expire-snapshots' | 'remove-orphans';

export interface MaintenanceTarget {
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  readonly io: FileIO;
  readonly session: DuckDbSession;
  /** Plan only: say what would change, and write, commit and delete nothing. */
  readonly dryRun: boolean;
  /** Extra snapshot summary properties for a commit the action makes. */
  readonly summaryProperties?: Readonly<Record<string, string>>;
  /** Milliseconds since the epoch; tests pass a fixed clock. */
  readonly now?: () => number;
}

export interface MaintenanceOutcome {
  readonly action: MaintenanceActionName;
  readonly dryRun: boolean;
  /** One line for people, e.g. `compact: 2000 files (12.1 MiB) → 3 files (11.8 MiB) in 14 partitions`. */
  readonly summary: string;
  /** The same as numbers, for /metrics and --json (files, bytes, rows, snapshots, manifests…). */
  readonly counts: Readonly<Record<string, number>>;
  /** The snapshot the action committed; undefined for a dry run or when nothing needed doing. */
  readonly snapshotId?: bigint;
}
