/**
 * A Kafka input's next read, started as soon as a batch is staged: taking the next batch's records
 * off the consumer (the main thread's share, and any wait for the consumer's worker) then runs
 * while the engine processes the staged batch on DuckDB's threads, instead of after its commit.
 * A stream takes one read at a time: the read started ahead is used when the next batch asks for
 * the same ranges and limits, and is otherwise waited out and dropped (reads name their offsets,
 * so a dropped read moves nothing).
 */
import type { OffsetRead, OffsetStream } from '../../../../connectors/source.js';
import type { PositionRange } from '../../../../connectors/streaming-source.js';

export interface ReadLimits {
  readonly maxBytes: number;
  readonly idleMs: number;
}

interface Ahead {
  readonly key: string;
  readonly read: Promise<OffsetRead>;
  /** Resolves when the read has ended, either way. */
  readonly ended: Promise<void>;
}

export class ReadAhead {
  private ahead: Ahead | undefined;

  /** Starts reading `ranges` for the next take. */
  start(stream: OffsetStream, ranges: readonly PositionRange[], limits: ReadLimits): void {
    if (this.ahead !== undefined || ranges.length === 0) return;
    const read = stream.read(ranges, limits);
    this.ahead = {
      key: keyOf(ranges, limits),
      read,
      ended: read.then(
        () => undefined,
        () => undefined,
      ),
    };
  }

  /** The records of `ranges`: the read started ahead when it asked for them, a new read otherwise. */
  async take(stream: OffsetStream, ranges: readonly PositionRange[], limits: ReadLimits): Promise<OffsetRead> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead !== undefined) {
      if (ahead.key === keyOf(ranges, limits)) return ahead.read;
      await ahead.ended;
    }
    return stream.read(ranges, limits);
  }

  /** Waits for a read started ahead to end, keeping it for the next take. */
  async settle(): Promise<void> {
    await this.ahead?.ended;
  }

  /** Waits for a read started ahead to end and drops it (before the stream is closed). */
  async drop(): Promise<void> {
    const ahead = this.ahead;
    this.ahead = undefined;
    await ahead?.ended;
  }
}

function keyOf(ranges: readonly PositionRange[], limits: ReadLimits): string {
  const parts = ranges.map((r) => `${r.topic}\u0000${r.partition}\u0000${r.firstOffset}\u0000${r.nextOffset}`);
  return `${limits.maxBytes}\u0001${limits.idleMs}\u0001${parts.join('\u0001')}`;
}
