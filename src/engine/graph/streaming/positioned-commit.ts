/**
 * Commits an append whose snapshot summary carries Kafka positions, deciding afresh on every
 * attempt from the table as it is then (DESIGN.md: before every attempt, including after a 409):
 * commitSnapshot's per-attempt hook reads the positions from the table the attempt builds on, the
 * caller's `decide` says whether the batch still applies, and the attempt's summary holds the
 * table's positions merged with ours (other workers' partitions are kept). A batch that no longer
 * applies ends the commit as covered or stale, with nothing of ours left referenced.
 *
 * An unknown outcome is settled by commitSnapshot (it looks for its snapshot id and retries with
 * the same id); if the table cannot be read to settle it, CommitStateUnknownError reaches the
 * caller, whose next start reads the positions the table really has.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../../../catalog/catalog.js';
import { KAFKA_OFFSETS_SUMMARY_KEY, mergePositions, positionsToSummaryValue, type SourcePosition } from '../../../../connectors/streaming-source.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import type { TableRequirement } from '../../../iceberg/requirements.js';
import type { TableMetadata } from '../../../iceberg/table-metadata.js';
import type { TableUpdate } from '../../../iceberg/updates.js';
import { CommitRefusal, commitSnapshot, isRefused } from '../../../table/commit-snapshot.js';
import type { RetryPolicy } from '../../../table/retry-policy.js';
import type { CommitNoticeSink } from '../../../table/commit-notice.js';
import { TablePositions } from './table-positions.js';

export type CommitDecision =
  | { readonly kind: 'commit'; readonly advanced: readonly SourcePosition[] }
  /** The table already holds what this batch would add (an earlier attempt landed). */
  | { readonly kind: 'covered' }
  /** The table moved under the batch (another worker, a zombie): do not commit it. */
  | { readonly kind: 'stale'; readonly reason: string };

export interface PositionedCommitRequest {
  readonly catalog: Catalog;
  readonly identifier: TableIdentifier;
  readonly io: FileIO;
  readonly files: readonly DataFile[];
  readonly summaryProperties: Readonly<Record<string, string>>;
  /** The table the files were written for; loaded afresh when absent. */
  readonly base?: TableMetadata;
  /**
   * A schema change committed with the snapshot, built on `base`; if another writer changes the
   * schema first, commitSnapshot throws ConcurrentSchemaChangeError with nothing committed.
   */
  readonly layoutChange?: { readonly updates: readonly TableUpdate[]; readonly requirements: readonly TableRequirement[] };
  /** Called with the table's positions before every attempt. */
  decide(positions: TablePositions): CommitDecision;
  readonly maxAttempts?: number;
  /** Told about every lost race (for metrics). */
  onConflict?(): void;
  /** Told about lost answers, 409 retries and fenced commits (commit-notice.ts). */
  readonly onNotice?: CommitNoticeSink;
}

export type PositionedCommitOutcome =
  | { readonly kind: 'committed'; readonly table: LoadedTable; readonly positions: TablePositions; readonly attempts: number }
  | {
      readonly kind: 'covered' | 'stale';
      readonly positions: TablePositions;
      readonly reason: string;
      readonly attempts: number;
      /** An attempt may still land: the caller must keep the batch's data files. */
      readonly outcomeWasUnknown: boolean;
    };

const DEFAULT_MAX_ATTEMPTS = 12;

/**
 * Workers of one group race for the same table by design, so a lost race is retried more often
 * and sooner than the table's `commit.retry.*` defaults (4 retries, waits up to a minute) allow.
 */
function racingWorkersPolicy(maxAttempts: number): RetryPolicy {
  return { numRetries: maxAttempts - 1, minWaitMs: 50, maxWaitMs: 2_000, totalTimeoutMs: 1_800_000 };
}

interface NotApplying {
  readonly kind: 'covered' | 'stale';
  readonly reason: string;
  readonly positions: TablePositions;
}

export async function commitWithPositions(request: PositionedCommitRequest): Promise<PositionedCommitOutcome> {
  const base = request.base ?? (await request.catalog.loadTable(request.identifier)).metadata;
  const outcome = await commitSnapshot({
    catalog: request.catalog,
    identifier: request.identifier,
    base: { metadata: base, io: request.io, create: false },
    ...(request.layoutChange === undefined ? {} : { layoutChange: request.layoutChange }),
    mode: 'append',
    addedFiles: request.files,
    summaryProperties: request.summaryProperties,
    retryPolicy: racingWorkersPolicy(request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    ...(request.onNotice === undefined ? {} : { onNotice: request.onNotice }),
    summaryForAttempt: (current, retry) => {
      if (retry === 'conflict') request.onConflict?.();
      const positions = TablePositions.of(current);
      const decision = request.decide(positions);
      if (decision.kind === 'commit') return { [KAFKA_OFFSETS_SUMMARY_KEY]: positionsToSummaryValue(mergePositions(positions.list, decision.advanced)) };
      const reason = decision.kind === 'covered' ? 'already in the table' : decision.reason;
      return new CommitRefusal<NotApplying>({ kind: decision.kind, reason, positions });
    },
  });
  if (isRefused(outcome)) {
    // commitSnapshot counts attempts sent; the decision that ended it was one more.
    return { ...outcome.detail, attempts: outcome.attempts + 1, outcomeWasUnknown: outcome.outcomeWasUnknown };
  }
  return { kind: 'committed', table: outcome.table, positions: TablePositions.of(outcome.table.metadata), attempts: outcome.attempts };
}
