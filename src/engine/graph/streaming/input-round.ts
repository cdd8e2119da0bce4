/**
 * A streamed input of a flow as the micro-batch loop drives it, whatever its kind: from the
 * position a checkpoint holds (files already read, or the next offset per Kafka partition) a round
 * sees what the input has now and stages it batch by batch, each within the batch limits; the
 * position after the staged batches goes into the next checkpoint. A round ends when the input has
 * nothing more than it had when the round started (available-now).
 */
import type { SourcePosition } from '../../../../connectors/streaming-source.js';
import type { Flow } from '../../../pipeline/ir/flow.js';
import type { BatchLimits } from './parquet-stream.js';
import { fileInputBatches } from './pending-batches.js';
import type { FileInput } from './stream-input.js';
import type { FailedRow } from './row-isolation.js';

/** What a checkpoint holds for one input. */
export type InputPosition = { readonly kind: 'files'; readonly files: readonly string[] } | { readonly kind: 'offsets'; readonly offsets: readonly SourcePosition[] };

/** Whether a staged batch left the input where it stood: no file read, no partition's offset moved. */
export function positionUnmoved(before: InputPosition, after: InputPosition): boolean {
  if (before.kind === 'files' && after.kind === 'files') return after.files.length === before.files.length;
  if (before.kind !== 'offsets' || after.kind !== 'offsets' || after.offsets.length !== before.offsets.length) return false;
  const was = new Map(before.offsets.map((p) => [`${p.topic}\u0000${p.partition}`, p.nextOffset]));
  return after.offsets.every((p) => was.get(`${p.topic}\u0000${p.partition}`) === p.nextOffset);
}

export interface StreamInput {
  /** The dataset name: the key of its position. */
  readonly name: string;
  /** Files: kept in the flow's checkpoint; offsets: in the table's snapshot summaries (offset-positions.ts). */
  readonly positionKind: InputPosition['kind'];
  /** A round from `position` (undefined: the input's start); undefined when the input has nothing at all yet. */
  round(position: InputPosition | undefined, limits: BatchLimits): Promise<InputRound | undefined>;
  /** Releases what the input holds open (a Kafka consumer); called once the flow is done. */
  close(): Promise<void>;
}

export interface InputRound {
  /** Whether batches remain of what the input had when the round started. */
  hasMore(): boolean;
  /**
   * Stages the next batch as table `relation` (no rows, with the input's columns, when this input
   * has nothing more while another input of the flow still has) and returns its row count.
   */
  stageNext(relation: string): Promise<number>;
  /** The position after every batch staged so far. */
  position(): InputPosition;
  /** Kafka: sends rows of the batch staged last that the flow failed on to the dead letters, with the reasons. */
  reject?(failures: readonly FailedRow[]): void;
  /**
   * Kafka: lands the dead letters of the batch staged last (records that could not be decoded or
   * staged, rows rejected), before the batch's commit; returns how many.
   */
  landDeadLetters?(): Promise<number>;
}

/** A file input (Parquet source, streaming table) driven in rounds. */
export function fileStreamInput(flow: Flow, input: FileInput): StreamInput {
  return {
    name: input.name,
    positionKind: 'files',
    async round(position, limits) {
      const processed = new Set(position?.kind === 'files' ? position.files : []);
      const batches = await fileInputBatches(flow, input, processed, limits);
      if (batches === undefined) return undefined;
      let next = 0;
      return {
        hasMore: () => next < batches.length,
        async stageNext(relation) {
          const batch = batches[next] ?? [];
          next += 1;
          for (const file of batch) processed.add(file);
          return input.stage(relation, batch);
        },
        position: () => ({ kind: 'files', files: [...processed].sort() }),
      };
    },
    close: async () => undefined,
  };
}
