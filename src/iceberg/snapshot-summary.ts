/**
 * Snapshot summary counters (spec §1.2) computed the way Java does: added/removed counters only
 * when non-zero, each total = previous total + added − removed, totals from 0 when the branch
 * has no previous snapshot, and a total dropped when the previous summary lacks it (or it would
 * go negative). All values are decimal strings.
 */
import { IcebergFormatError } from '../errors.js';
import type { SnapshotOperation, SnapshotSummary } from './table-metadata.js';

export interface SummaryCounts {
  readonly dataFiles: bigint;
  readonly deleteFiles: bigint;
  readonly positionDeleteFiles: bigint;
  readonly equalityDeleteFiles: bigint;
  /** v3 deletion vectors: counted in deleteFiles and positionDeletes, not in positionDeleteFiles (as Java). */
  readonly deletionVectors: bigint;
  readonly records: bigint;
  readonly filesSize: bigint;
  readonly positionDeletes: bigint;
  readonly equalityDeletes: bigint;
}

export interface SummaryInput {
  readonly operation: SnapshotOperation;
  readonly added: SummaryCounts;
  readonly removed: SummaryCounts;
  /** Summary of the branch head this snapshot replaces; absent for the branch's first snapshot. */
  readonly previous?: Readonly<Record<string, string>>;
  readonly changedPartitionCount?: number;
  /** Custom keys (engine info, source positions). They may not override computed keys. */
  readonly extra?: Readonly<Record<string, string>>;
}

export const ZERO_COUNTS: SummaryCounts = {
  dataFiles: 0n,
  deleteFiles: 0n,
  positionDeleteFiles: 0n,
  equalityDeleteFiles: 0n,
  deletionVectors: 0n,
  records: 0n,
  filesSize: 0n,
  positionDeletes: 0n,
  equalityDeletes: 0n,
};

type Counter = keyof SummaryCounts;

const ADDED_KEYS: Readonly<Record<Counter, string>> = {
  dataFiles: 'added-data-files',
  deleteFiles: 'added-delete-files',
  positionDeleteFiles: 'added-position-delete-files',
  equalityDeleteFiles: 'added-equality-delete-files',
  deletionVectors: 'added-dvs',
  records: 'added-records',
  filesSize: 'added-files-size',
  positionDeletes: 'added-position-deletes',
  equalityDeletes: 'added-equality-deletes',
};

const REMOVED_KEYS: Readonly<Record<Counter, string>> = {
  dataFiles: 'deleted-data-files',
  deleteFiles: 'removed-delete-files',
  positionDeleteFiles: 'removed-position-delete-files',
  equalityDeleteFiles: 'removed-equality-delete-files',
  deletionVectors: 'removed-dvs',
  records: 'deleted-records',
  filesSize: 'removed-files-size',
  positionDeletes: 'removed-position-deletes',
  equalityDeletes: 'removed-equality-deletes',
};

const TOTAL_KEYS: ReadonlyArray<readonly [string, Counter]> = [
  ['total-records', 'records'],
  ['total-files-size', 'filesSize'],
  ['total-data-files', 'dataFiles'],
  ['total-delete-files', 'deleteFiles'],
  ['total-position-deletes', 'positionDeletes'],
  ['total-equality-deletes', 'equalityDeletes'],
];

const COUNTERS = Object.keys(ADDED_KEYS) as Counter[];

export function buildSummary(input: SummaryInput): SnapshotSummary {
  const out: Record<string, string> = { operation: input.operation };
  for (const counter of COUNTERS) {
    const added = input.added[counter];
    if (added !== 0n) out[ADDED_KEYS[counter]] = added.toString();
  }
  for (const counter of COUNTERS) {
    const removed = input.removed[counter];
    if (removed !== 0n) out[REMOVED_KEYS[counter]] = removed.toString();
  }
  if (input.changedPartitionCount !== undefined) out['changed-partition-count'] = String(input.changedPartitionCount);
  for (const [key, counter] of TOTAL_KEYS) {
    const before = input.previous === undefined ? 0n : parseTotal(input.previous[key]);
    if (before === undefined) continue;
    const total = before + input.added[counter] - input.removed[counter];
    if (total >= 0n) out[key] = total.toString();
  }
  for (const [key, value] of Object.entries(input.extra ?? {})) {
    if (key in out) {
      throw new IcebergFormatError(`Snapshot summary property "${key}" is computed and cannot be set explicitly`, {
        context: { field: key },
      });
    }
    out[key] = value;
  }
  return out as SnapshotSummary;
}

function parseTotal(value: string | undefined): bigint | undefined {
  return value !== undefined && /^-?\d+$/.test(value) ? BigInt(value) : undefined;
}
