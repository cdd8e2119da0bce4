/**
 * A Kafka input's next read, started as soon as a batch is staged: taking the next batch's records
 * off the consumer (the main thread's share, and any wait for the consumer's worker) then runs
 * while the engine processes the staged batch on DuckDB's threads, instead of after its commit.
 * A stream takes one read at a time: the read started ahead is used when the next batch asks for
 * the same ranges and limits, and is otherwise stopped, waited out and dropped (reads name their
 * offsets, so a dropped read moves nothing). Stopped, it ends at its next poll rather than after
 * waiting `idleMs` for records that may not come (a consumer still joining its group, a partition
 * the group moved to another member); so does any read when the run stops (the limits' signal).
 */
import type { OffsetRead, OffsetReadLimits, OffsetStream } from '../../../../connectors/source.js';
import type { PositionRange } from '../../../../connectors/streaming-source.js';

interface Ahead {
  readonly key: string;
  readonly read: Promise<OffsetRead>;
  readonly stop: AbortController;
  /** Resolves when the read has ended, either way. */
  readonly ended: Promise<void>;
}

export class ReadAhead {
  private ahead: Ahead | undefined;

  /** Starts reading `ranges` for the next take. */
  start(stream: OffsetStream, ranges: readonly PositionRange[], limits: OffsetReadLimits): void {
    if (this.ahead !== undefined || ranges.length === 0) return;
    // Its own stop, which the run's stop (limits.signal) triggers too: a listener taken off when the
    // read ends, as a service's run signal outlives thousands of reads.
    const stop = new AbortController();
    const run = limits.signal;
    const onRunStop = (): void => stop.abort();
    if (run?.aborted === true) stop.abort();
    run?.addEventListener('abort', onRunStop);
    const read = stream.read(ranges, { ...limits, signal: stop.signal });
    this.ahead = {
      key: keyOf(ranges, limits),
      read,
      stop,
      ended: read.then(
        () => undefined,
        () => undefined,
      ).finally(() => run?.removeEventListener('abort', onRunStop)),
    };
  }

  /** The records of `ranges`: the read started ahead when it asked for them, a new read otherwise. */
  async take(stream: OffsetStream, ranges: readonly PositionRange[], limits: OffsetReadLimits): Promise<OffsetRead> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead !== undefined) {
      if (ahead.key === keyOf(ranges, limits)) return ahead.read;
      await stopped(ahead);
    }
    return stream.read(ranges, limits);
  }

  /** Waits for a read started ahead to end, keeping it for the next take. */
  async settle(): Promise<void> {
    await this.ahead?.ended;
  }

  /** Stops a read started ahead, waits for it to end and drops it (before the stream is closed). */
  async drop(): Promise<void> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead !== undefined) await stopped(ahead);
  }
}

function stopped(ahead: Ahead): Promise<void> {
  ahead.stop.abort();
  return ahead.ended;
}

function keyOf(ranges: readonly PositionRange[], limits: OffsetReadLimits): string {
  const parts = ranges.map((r) => `${r.topic}\u0000${r.partition}\u0000${r.firstOffset}\u0000${r.nextOffset}`);
  return `${limits.maxBytes}\u0001${limits.idleMs}\u0001${parts.join('\u0001')}`;
}
