/**
 * Commits an append whose snapshot summary carries Kafka positions, deciding afresh on every
 * attempt from the table as it is then: the positions are read from the reloaded table's
 * ancestry (DESIGN.md: before every attempt, including after a 409), the caller's `decide` says
 * whether the batch still applies, and the summary holds the table's positions merged with ours
 * (other workers' partitions are kept).
 *
 * commitSnapshot retries a 409 itself with the summary of its first attempt, which would write
 * back positions another worker has moved since. Until it takes a per-attempt summary callback,
 * it is called with retries off and this loop does the reload, the decision and the retry.
 * An unknown outcome is settled by commitSnapshot (it looks for its snapshot id); if it stays
 * unknown, the next attempt's decision sees our positions when the commit landed after all.
 */
import type { Catalog, LoadedTable, TableIdentifier } from '../../../catalog/catalog.js';
import { formatIdentifier } from '../../../catalog/catalog.js';
import { KAFKA_OFFSETS_SUMMARY_KEY, mergePositions, positionsToSummaryValue, type SourcePosition } from '../../../connectors/streaming-source.js';
import { CommitConflictError, CommitStateUnknownError } from '../../errors.js';
import type { DataFile } from '../../iceberg/data-file.js';
import type { FileIO } from '../../iceberg/file-io.js';
import type { TableMetadata } from '../../iceberg/table-metadata.js';
import { commitSnapshot } from '../../table/commit-snapshot.js';
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
  /** Called with the table's positions before every attempt. */
  decide(positions: TablePositions): CommitDecision;
  readonly maxAttempts?: number;
  /** Told about every lost race (for metrics). */
  onConflict?(): void;
}

export type PositionedCommitOutcome =
  | { readonly kind: 'committed'; readonly table: LoadedTable; readonly positions: TablePositions; readonly attempts: number }
  | { readonly kind: 'covered' | 'stale'; readonly positions: TablePositions; readonly reason: string; readonly attempts: number; readonly outcomeWasUnknown: boolean };

const DEFAULT_MAX_ATTEMPTS = 12;
const NO_RETRIES = { 'commit.retry.num-retries': '0' };

export async function commitWithPositions(request: PositionedCommitRequest): Promise<PositionedCommitOutcome> {
  const maxAttempts = request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let outcomeWasUnknown = false;
  let lastError: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const table = await request.catalog.loadTable(request.identifier);
    const positions = TablePositions.of(table.metadata);
    const decision = request.decide(positions);
    if (decision.kind === 'covered') return { kind: 'covered', positions, reason: 'already in the table', attempts: attempt, outcomeWasUnknown };
    if (decision.kind === 'stale') return { kind: 'stale', positions, reason: decision.reason, attempts: attempt, outcomeWasUnknown };
    const summary = positionsToSummaryValue(mergePositions(positions.list, decision.advanced));
    try {
      const result = await commitSnapshot({
        catalog: request.catalog,
        identifier: request.identifier,
        base: { metadata: withoutRetries(table.metadata), io: request.io, create: false },
        mode: 'append',
        addedFiles: request.files,
        summaryProperties: { ...request.summaryProperties, [KAFKA_OFFSETS_SUMMARY_KEY]: summary },
      });
      return { kind: 'committed', table: result.table, positions: TablePositions.of(result.table.metadata), attempts: attempt };
    } catch (error) {
      if (error instanceof CommitStateUnknownError) outcomeWasUnknown = true;
      else if (error instanceof CommitConflictError) request.onConflict?.();
      else throw error;
      lastError = error;
      await sleep(Math.min(2_000, 50 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
  throw new CommitConflictError(
    `Commit to ${formatIdentifier(request.identifier)} did not succeed in ${maxAttempts} attempts: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
    { cause: lastError, retryable: true, context: { table: formatIdentifier(request.identifier) } },
  );
}

/** Only the retry policy reads these properties; the table's own are not changed (no create). */
function withoutRetries(metadata: TableMetadata): TableMetadata {
  return { ...metadata, properties: { ...metadata.properties, ...NO_RETRIES } };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
