/**
 * Lands dead letters in their Iceberg table, exactly once: the table's snapshot summaries carry
 * the positions up to which its dead letters are complete, so letters below them (landed by an
 * earlier attempt, a crashed run or another worker) are left out, and a batch whose partitions
 * another writer advanced meanwhile is filtered again and rewritten.
 */
import { formatIdentifier, type Catalog, type LoadedTable, type TableIdentifier } from '../../../../catalog/catalog.js';
import { positionsAfter, type DeadLetterCandidate, type PositionRange } from '../../../../connectors/streaming-source.js';
import type { DuckDbSession } from '../../../duckdb/session.js';
import type { DataFile } from '../../../iceberg/data-file.js';
import type { FileIO } from '../../../iceberg/file-io.js';
import { CommitConflictError } from '../../../errors.js';
import type { CommitNoticeSink } from '../../../table/commit-notice.js';
import { DEAD_LETTER_SCHEMA, stageDeadLetters } from './dead-letters.js';
import { commitWithPositions } from './positioned-commit.js';
import type { TablePositions } from './table-positions.js';
import { createOrLoad } from './target-tables.js';
import { writeTableFiles } from './write-table-files.js';

export interface DeadLetterSinkOptions {
  readonly catalog: Catalog;
  readonly io: FileIO;
  readonly session: DuckDbSession;
  readonly deadLetterTarget: TableIdentifier;
  readonly tempDir: string;
  onConflict?(): void;
  /** Told about lost answers, 409 retries and fenced commits (commit-notice.ts). */
  readonly onNotice?: CommitNoticeSink;
}

const STAGED = 'thund_dead_letters';
const MAX_REWRITES = 5;

export class DeadLetterSink {
  private table: LoadedTable | undefined;

  constructor(private readonly options: DeadLetterSinkOptions) {}

  async open(): Promise<void> {
    this.table = await createOrLoad(this.options.catalog, this.options.deadLetterTarget, DEAD_LETTER_SCHEMA, {});
  }

  /** Commits the letters of these ranges not yet in the table; nothing when there are none. */
  async land(letters: readonly DeadLetterCandidate[], ranges: readonly PositionRange[]): Promise<void> {
    if (letters.length === 0) return;
    let floor: TablePositions | undefined;
    for (let rewrite = 0; rewrite < MAX_REWRITES; rewrite += 1) {
      const pending = floor === undefined ? letters : letters.filter((l) => l.offset >= (floor?.of(l) ?? 0n));
      if (pending.length === 0) return;
      const files = await this.write(pending);
      const outcome = await commitWithPositions({
        catalog: this.options.catalog,
        identifier: this.options.deadLetterTarget,
        io: this.options.io,
        files,
        summaryProperties: { 'thund.engine': 'thund serve', 'thund.dead-letters': String(pending.length) },
        decide: (positions) => {
          const landed = pending.filter((l) => l.offset < (positions.of(l) ?? 0n));
          if (landed.length === 0) return { kind: 'commit', advanced: positionsAfter(ranges) };
          if (landed.length === pending.length) return { kind: 'covered' };
          return { kind: 'stale', reason: 'dead letters of these partitions were landed meanwhile' };
        },
        ...(this.options.onConflict === undefined ? {} : { onConflict: this.options.onConflict }),
        ...(this.options.onNotice === undefined ? {} : { onNotice: this.options.onNotice }),
      });
      if (outcome.kind === 'committed') {
        this.table = outcome.table;
        const snapshotId = outcome.table.metadata.currentSnapshotId;
        const table = formatIdentifier(this.options.deadLetterTarget);
        if (snapshotId !== undefined) {
          this.options.onNotice?.({ kind: 'dead-letters', table, snapshotId, tableSnapshotId: snapshotId, attempt: outcome.attempts, message: `${pending.length} dead letter${pending.length === 1 ? '' : 's'} committed to ${table}` });
        }
        return;
      }
      if (!outcome.outcomeWasUnknown) await Promise.all(files.map((f) => this.options.io.delete(f.filePath).catch(() => undefined)));
      if (outcome.kind === 'covered') return;
      floor = outcome.positions;
    }
    throw new CommitConflictError('Dead letters could not be landed: their table kept moving under concurrent writers', { retryable: true });
  }

  private async write(letters: readonly DeadLetterCandidate[]): Promise<DataFile[]> {
    const table = this.table ?? (await createOrLoad(this.options.catalog, this.options.deadLetterTarget, DEAD_LETTER_SCHEMA, {}));
    this.table = table;
    await stageDeadLetters(this.options.session, letters, STAGED, this.options.tempDir);
    return writeTableFiles(this.options.session, table, this.options.io, `SELECT * FROM ${STAGED}`, 'dead letters');
  }
}
