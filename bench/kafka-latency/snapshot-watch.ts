/**
 * Watches a table the way a reader would: every `pollMs` it loads the table's metadata from the
 * catalog and notes the wall time each snapshot id is first seen in it (a snapshot committed and
 * superseded between two polls is first seen at the later one, as a reader would see its rows),
 * and the Kafka positions the current snapshot records. The gap between polls is kept too: the
 * first-seen times are only as fine as it.
 */
import type { TableIdentifier } from '../../catalog/catalog.js';
import { openCatalog, type OpenedCatalog } from '../../src/app/open-catalog.js';
import { loadConnectionFile } from '../../src/app/serve/connection-file.js';
import { positionTotal, servedPositions } from '../../test/integration/kafka-eo-support/landed-rows.js';

export interface SeenSnapshot {
  readonly snapshotId: bigint;
  readonly operation: string;
  /** The snapshot's own timestamp-ms (set by the committer when it wrote the metadata). */
  readonly timestampMs: number;
  /** Wall time (Date.now()) of the first poll whose metadata listed it. */
  readonly firstSeenMs: number;
}

export class SnapshotWatch {
  readonly seen = new Map<bigint, SeenSnapshot>();
  /** Records the current snapshot's positions add up to, as of the last poll. */
  committedRecords = 0n;
  maxPollGapMs = 0;
  polls = 0;
  private stopped = false;
  private readonly loop: Promise<void>;

  private constructor(private readonly opened: OpenedCatalog, private readonly identifier: TableIdentifier, private readonly pollMs: number) {
    this.loop = this.run();
  }

  static async start(pipelinePath: string, identifier: TableIdentifier, pollMs: number): Promise<SnapshotWatch> {
    return new SnapshotWatch(await openCatalog(await loadConnectionFile(pipelinePath)), identifier, pollMs);
  }

  /** Polls once more (so the last commit is seen), then stops and closes the catalog. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await this.poll();
    await this.opened.close();
  }

  private async run(): Promise<void> {
    let last = Date.now();
    while (!this.stopped) {
      await this.poll();
      const now = Date.now();
      this.maxPollGapMs = Math.max(this.maxPollGapMs, now - last);
      last = now;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  private async poll(): Promise<void> {
    if (!(await this.opened.catalog.tableExists(this.identifier))) return;
    const { metadata } = await this.opened.catalog.loadTable(this.identifier);
    const now = Date.now();
    this.polls += 1;
    for (const snapshot of metadata.snapshots) {
      if (this.seen.has(snapshot.snapshotId)) continue;
      this.seen.set(snapshot.snapshotId, { snapshotId: snapshot.snapshotId, operation: snapshot.summary.operation, timestampMs: Number(snapshot.timestampMs), firstSeenMs: now });
    }
    this.committedRecords = positionTotal(servedPositions(metadata, this.identifier));
  }
}
