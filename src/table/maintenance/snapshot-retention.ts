/**
 * Which snapshots and refs an expiry keeps, as Java's RemoveSnapshots decides: a ref older than
 * its max-ref-age goes (never main); each remaining branch keeps its newest ancestors while they
 * are younger than its max-snapshot-age or fewer than its min-snapshots-to-keep; a tag keeps its
 * snapshot; a snapshot in no ref's ancestry stays while younger than the default age. Each ref's
 * own settings win over the defaults (the caller's options, else the table's `history.expire.*`).
 *
 * Thund adds what its pipelines read back: main keeps every ancestor down to the newest one
 * carrying each position or checkpoint key (their readers walk main's ancestry and stop at the
 * first missing parent), and the newest snapshot of each flow (`thund.flow`, how a `once` flow
 * knows it has run).
 */
import { ancestorsOf, snapshotById } from '../../iceberg/snapshot-ancestry.js';
import { MAIN_BRANCH, type Snapshot, type TableMetadata } from '../../iceberg/table-metadata.js';

export const MAX_SNAPSHOT_AGE_PROPERTY = 'history.expire.max-snapshot-age-ms';
export const MIN_SNAPSHOTS_TO_KEEP_PROPERTY = 'history.expire.min-snapshots-to-keep';
export const MAX_REF_AGE_PROPERTY = 'history.expire.max-ref-age-ms';
const DEFAULT_MAX_SNAPSHOT_AGE_MS = 5 * 24 * 60 * 60 * 1000;
const DEFAULT_MIN_SNAPSHOTS_TO_KEEP = 1;

/**
 * Summary keys whose readers walk main's ancestry for the newest value (engine/graph/streaming:
 * `thund.kafka.offsets` and `thund.kafka.offsets.<flow>.<source>` in table-positions.ts and
 * offset-positions.ts, `thund.checkpoint.<flow>` in checkpoint-store.ts). A test keeps this list
 * in step with those modules.
 */
export const CHECKPOINT_KEY_PREFIX = 'thund.checkpoint.';
export const ANCESTRY_KEY_PREFIXES: readonly string[] = ['thund.kafka.offsets', CHECKPOINT_KEY_PREFIX];
/** engine/graph/flow-summary.ts FLOW_PROPERTY: read from any snapshot (staleness.ts flowHasRun). */
export const FLOW_KEY = 'thund.flow';

export interface RetentionOptions {
  /** Age in milliseconds past which a snapshot may expire; default the table's max-snapshot-age. */
  readonly olderThanMs?: number;
  /** How many of each branch's newest snapshots to keep whatever their age; default the table's min-snapshots-to-keep. */
  readonly retainLast?: number;
}

export interface RetentionPlan {
  readonly retained: ReadonlySet<bigint>;
  /** Snapshots that go, oldest first. */
  readonly expired: readonly Snapshot[];
  readonly removedRefs: readonly string[];
}

export function planRetention(metadata: TableMetadata, nowMs: number, options: RetentionOptions): RetentionPlan {
  const props = metadata.properties;
  const defaultAgeMs = options.olderThanMs ?? numberProperty(props[MAX_SNAPSHOT_AGE_PROPERTY], DEFAULT_MAX_SNAPSHOT_AGE_MS);
  const defaultMinToKeep = Math.max(1, options.retainLast ?? numberProperty(props[MIN_SNAPSHOTS_TO_KEEP_PROPERTY], DEFAULT_MIN_SNAPSHOTS_TO_KEEP));
  const defaultMaxRefAgeMs = numberProperty(props[MAX_REF_AGE_PROPERTY], Number.POSITIVE_INFINITY);
  const retained = new Set<bigint>();
  const removedRefs: string[] = [];
  const referenced = new Set<bigint>();
  for (const [name, ref] of metadata.refs) {
    const head = snapshotById(metadata, ref.snapshotId);
    const maxRefAgeMs = ref.maxRefAgeMs === undefined ? defaultMaxRefAgeMs : Number(ref.maxRefAgeMs);
    if (name !== MAIN_BRANCH && head !== undefined && nowMs - Number(head.timestampMs) > maxRefAgeMs) {
      removedRefs.push(name);
      continue;
    }
    const ancestry = [...ancestorsOf(metadata, ref.snapshotId)];
    for (const snapshot of ancestry) referenced.add(snapshot.snapshotId);
    if (ref.type === 'tag') {
      retained.add(ref.snapshotId);
      continue;
    }
    const ageMs = ref.maxSnapshotAgeMs === undefined ? defaultAgeMs : Number(ref.maxSnapshotAgeMs);
    const minToKeep = ref.minSnapshotsToKeep ?? defaultMinToKeep;
    let keep = 0;
    while (keep < ancestry.length && (keep < minToKeep || Number(ancestry[keep]!.timestampMs) >= nowMs - ageMs)) keep += 1;
    if (name === MAIN_BRANCH) keep = Math.max(keep, newestCarrierDepth(ancestry) + 1);
    for (const snapshot of ancestry.slice(0, keep)) retained.add(snapshot.snapshotId);
  }
  // Ancestors of removed refs count as unreferenced: they stay only while young, as in Java.
  for (const snapshot of metadata.snapshots) {
    if (!referenced.has(snapshot.snapshotId) && Number(snapshot.timestampMs) >= nowMs - defaultAgeMs) retained.add(snapshot.snapshotId);
  }
  for (const snapshot of newestPerFlow(metadata)) retained.add(snapshot.snapshotId);
  const expired = metadata.snapshots
    .filter((snapshot) => !retained.has(snapshot.snapshotId))
    .sort((a, b) => (a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0));
  return { retained, expired, removedRefs };
}

/** Index in main's ancestry (newest first) of the deepest snapshot that is the newest carrier of an ancestry key; -1 when none. */
function newestCarrierDepth(ancestry: readonly Snapshot[]): number {
  const seen = new Set<string>();
  let depth = -1;
  ancestry.forEach((snapshot, index) => {
    for (const key of Object.keys(snapshot.summary)) {
      if (!ANCESTRY_KEY_PREFIXES.some((prefix) => key.startsWith(prefix)) || seen.has(key)) continue;
      seen.add(key);
      depth = index;
    }
  });
  return depth;
}

function newestPerFlow(metadata: TableMetadata): Snapshot[] {
  const newest = new Map<string, Snapshot>();
  for (const snapshot of metadata.snapshots) {
    const flow = snapshot.summary[FLOW_KEY];
    if (flow === undefined) continue;
    const known = newest.get(flow);
    if (known === undefined || snapshot.sequenceNumber > known.sequenceNumber) newest.set(flow, snapshot);
  }
  return [...newest.values()];
}

function numberProperty(value: string | undefined, fallback: number): number {
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}
