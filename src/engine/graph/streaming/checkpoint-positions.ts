/**
 * Input positions as a checkpoint stores them: files per file input (`positions`). Checkpoints of
 * earlier versions also held, per Kafka input, the next offset per topic and partition
 * (`offsets`, int64 as decimal text); those are read once, until the flow's first commit puts
 * them in the table's summary (offset-positions.ts).
 */
import type { Checkpoint } from './checkpoint-store.js';
import type { InputPosition } from './input-round.js';

export function positionsOf(checkpoint: Pick<Checkpoint, 'positions' | 'offsets'>): Map<string, InputPosition> {
  const positions = new Map<string, InputPosition>();
  for (const [input, files] of Object.entries(checkpoint.positions)) positions.set(input, { kind: 'files', files });
  for (const [input, topics] of Object.entries(checkpoint.offsets ?? {})) {
    const offsets = Object.entries(topics).flatMap(([topic, partitions]) =>
      Object.entries(partitions).map(([partition, offset]) => ({ topic, partition: Number(partition), nextOffset: BigInt(offset) })),
    );
    positions.set(input, { kind: 'offsets', offsets });
  }
  return positions;
}

export function checkpointPositions(positions: ReadonlyMap<string, InputPosition | undefined>): Pick<Checkpoint, 'positions'> {
  const files: Record<string, string[]> = {};
  for (const [input, position] of positions) if (position?.kind === 'files') files[input] = [...position.files];
  return { positions: files };
}
