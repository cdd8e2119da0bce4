/**
 * The offset streams of a pipeline `thund serve` runs: one stream per source and flow, kept open
 * from one trigger to the next (the consumer stays connected instead of joining again every few
 * seconds) and closed when the service stops; per source partition, the end offset last seen and
 * where each flow's reading stands, for the lag metrics; and the last dead letters read, with
 * their reasons, for the status page.
 */
import type { OffsetStream, OffsetStreamConnector } from '../../../connectors/source.js';
import { topicPartitionKey, type DeadLetterCandidate, type TopicPartition } from '../../../connectors/streaming-source.js';

export interface PartitionProgress extends TopicPartition {
  readonly source: string;
  readonly reader: string;
  readonly high: bigint;
  /** Where the reader's position stands: its checkpoint's, or after its last batch (undefined before its first round). */
  readonly reached?: bigint;
  readonly records: number;
  readonly deadLetters: number;
}

/** A record that could not be decoded or checked, as the dead-letter table keeps it, without its bytes. */
export interface DeadLetterNote extends TopicPartition {
  readonly source: string;
  readonly reader: string;
  readonly offset: bigint;
  readonly code: string;
  readonly reason: string;
  /** When it was read (ms since the epoch). */
  readonly seenAt: number;
}

/** How many of the latest dead letters are kept for the status page. */
const RECENT_DEAD_LETTERS = 10;

export class ServedStreams implements OffsetStreamConnector {
  private readonly open_ = new Map<string, OffsetStream>();
  private readonly progress = new Map<string, PartitionProgress>();
  private readonly recentDeadLetters: DeadLetterNote[] = [];

  constructor(private readonly connector: OffsetStreamConnector) {}

  async open(source: Parameters<OffsetStreamConnector['open']>[0], reader: string): Promise<OffsetStream> {
    const key = `${source.name}\u0000${reader}`;
    let stream = this.open_.get(key);
    if (stream === undefined) {
      stream = await this.connector.open(source, reader);
      this.open_.set(key, stream);
    }
    const inner = stream;
    const note = (tp: TopicPartition, change: Partial<PartitionProgress>): void => {
      const id = `${key}\u0000${topicPartitionKey(tp)}`;
      const known = this.progress.get(id) ?? { source: source.name, reader, topic: tp.topic, partition: tp.partition, high: 0n, records: 0, deadLetters: 0 };
      this.progress.set(id, { ...known, ...change });
    };
    const progressOf = (tp: TopicPartition): PartitionProgress | undefined => this.progress.get(`${key}\u0000${topicPartitionKey(tp)}`);
    const recent = this.recentDeadLetters;
    const noteDeadLetters = (letters: readonly DeadLetterCandidate[]): void => {
      const seenAt = Date.now();
      for (const letter of letters.slice(-RECENT_DEAD_LETTERS)) {
        const { topic, partition, offset, code, reason } = letter;
        recent.push({ source: source.name, reader, topic, partition, offset, code, reason, seenAt });
      }
      recent.splice(0, Math.max(0, recent.length - RECENT_DEAD_LETTERS));
    };
    return {
      async bounds() {
        const bounds = await inner.bounds();
        for (const b of bounds) note(b, { high: b.high });
        return bounds;
      },
      async read(ranges, limits) {
        const read = await inner.read(ranges, limits);
        // One pass over the batch: a filter per partition would walk every record once per partition.
        const counted = new Map<string, { records: number; deadLetters: number }>();
        const countOf = (tp: TopicPartition) => {
          const id = topicPartitionKey(tp);
          let found = counted.get(id);
          if (found === undefined) counted.set(id, (found = { records: 0, deadLetters: 0 }));
          return found;
        };
        // Records come in runs of one partition: the key is built once per run, not per record.
        let run: { topic: string; partition: number; counts: { records: number } } | undefined;
        for (const record of read.records) {
          if (run === undefined || run.partition !== record.partition || run.topic !== record.topic) run = { topic: record.topic, partition: record.partition, counts: countOf(record) };
          run.counts.records += 1;
        }
        for (const letter of read.deadLetters) countOf(letter).deadLetters += 1;
        noteDeadLetters(read.deadLetters);
        for (const p of read.reached) {
          const known = progressOf(p);
          const batch = counted.get(topicPartitionKey(p));
          note(p, { records: (known?.records ?? 0) + (batch?.records ?? 0), deadLetters: (known?.deadLetters ?? 0) + (batch?.deadLetters ?? 0) });
        }
        return read;
      },
      endWhenOpened: (tp) => inner.endWhenOpened?.(tp),
      at(positions) {
        for (const p of positions) note(p, { reached: p.nextOffset });
      },
      // Kept open for the next trigger; closeAll closes it when the service stops.
      close: async () => undefined,
    };
  }

  /** Per source partition and reader: end offset, position, records and dead letters read. */
  partitions(): PartitionProgress[] {
    return [...this.progress.values()];
  }

  /** The latest dead letters read (at most ten), oldest first. */
  deadLetters(): readonly DeadLetterNote[] {
    return [...this.recentDeadLetters];
  }

  async closeAll(): Promise<void> {
    const streams = [...this.open_.values()];
    this.open_.clear();
    await Promise.all(streams.map((stream) => stream.close().catch(() => undefined)));
  }
}
